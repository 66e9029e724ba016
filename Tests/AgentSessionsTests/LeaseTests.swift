import JSON
import Testing
@testable import AgentSessions

@Suite("Leases")
struct LeaseTests {
    @Test("another owner sees a leased session read-only: reads work, every change is SessionLocked")
    func secondOwnerReadOnly() throws {
        let f = Fixture()
        let a = f.store(owner: "device-a")
        let s = try session(in: .running, a)
        _ = try a.appendMessages(id: s.id, messages: [text("from a")])
        let b = f.store(owner: "device-b")

        let seen = try b.get(id: s.id)
        let messages = try b.messages(id: s.id)
        let errors: [SessionError?] = [
            #expect(throws: SessionError.self) { try b.transition(id: s.id, to: .waitingForUser) },
            #expect(throws: SessionError.self) { try b.appendMessages(id: s.id, messages: [text("from b")]) },
            #expect(throws: SessionError.self) { try b.recordUsage(id: s.id, inputTokens: 1, outputTokens: 1) },
            #expect(throws: SessionError.self) { try b.beginToolCall(id: s.id, toolCallId: "c", name: "x") },
            #expect(throws: SessionError.self) { try b.delete(id: s.id) },
            #expect(throws: SessionError.self) { try b.resume(id: s.id) },
        ]

        #expect(seen.state == .running)
        #expect(messages.count == 1)
        #expect(errors.allSatisfy { $0?.code == "SessionLocked" })
        if case .lease(let owner, _)? = errors.first??.details { #expect(owner == "device-a") } else { Issue.record("no lease owner") }
        #expect(try a.get(id: s.id).state == .running)
    }

    @Test("an expired lease can be taken over, and the old owner is then locked out")
    func expiry() throws {
        let f = Fixture()
        let clockA = TestClock()
        let clockB = TestClock()
        let a = f.store(owner: "device-a", leaseSeconds: 60, clock: clockA)
        let b = f.store(owner: "device-b", leaseSeconds: 60, clock: clockB)
        let s = try session(in: .running, a)
        _ = try a.transition(id: s.id, to: .backgrounded)

        clockB.advance(seconds: 61)
        let resumed = try b.resume(id: s.id)
        let lockedOut = #expect(throws: SessionError.self) { try a.appendMessages(id: s.id, messages: [text("late")]) }

        #expect(resumed.session.state == .running)
        #expect(lockedOut?.code == "SessionLocked")
        #expect(try a.get(id: s.id).state == .running)  // a sees b's change
    }

    @Test("a released lease lets another owner change the session at once, from the latest state")
    func release() throws {
        let f = Fixture()
        let a = f.store(owner: "device-a")
        let b = f.store(owner: "device-b")
        let s = try session(in: .running, a)
        _ = try b.get(id: s.id)  // b has the old state cached
        _ = try a.appendMessages(id: s.id, messages: [MessageInput(id: "a1", role: .user, content: "a")])

        a.release(id: s.id)
        _ = try b.appendMessages(id: s.id, messages: [MessageInput(id: "b1", role: .user, content: "b")])
        b.release(id: s.id)
        _ = try a.appendMessages(id: s.id, messages: [MessageInput(id: "a2", role: .user, content: "a")])

        #expect(try a.messages(id: s.id).map(\.id) == ["a1", "b1", "a2"])
        #expect(try b.messages(id: s.id).map(\.id) == ["a1", "b1", "a2"])
        #expect(f.isClean(f.journal(s.id)))
    }

    @Test("the lease is renewed on use once less than half of its term is left")
    func renewal() throws {
        let f = Fixture()
        let a = f.store(owner: "device-a", leaseSeconds: 60)
        let s = try a.create()
        let leasePath = f.folder(s.id) + "/lease.json"
        let first = Lease(json: try JSONCodec.decode(f.read(leasePath)))!

        f.clock.advance(seconds: 20)
        _ = try a.appendMessages(id: s.id, messages: [text("x")])
        let unchanged = Lease(json: try JSONCodec.decode(f.read(leasePath)))!
        f.clock.advance(seconds: 20)
        _ = try a.appendMessages(id: s.id, messages: [text("y")])
        let renewed = Lease(json: try JSONCodec.decode(f.read(leasePath)))!

        #expect(unchanged == first)
        #expect(renewed.owner == "device-a")
        #expect(renewed.expiresAt > first.expiresAt + 30_000_000_000)
    }
}
