#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON
import SystemSupport
import Testing
@testable import AgentSessions

@Suite("Performance", .serialized)
struct PerformanceTests {
    @Test("backgroundAll checkpoints and backgrounds 100 running sessions, durably (its time is printed; make bench measures it)")
    func backgroundHundred() throws {
        let f = Fixture()
        let store = f.store()
        var ids: [String] = []
        for k in 0..<100 {
            let s = try session(in: k % 4 == 0 ? .waitingForUser : .running, store)
            _ = try store.appendMessages(id: s.id, messages: [text("hello \(k)")])
            ids.append(s.id)
        }
        let idle = try store.create()

        let start = MonotonicClock.nanos()
        let moved = store.backgroundAll()
        let ms = Double(MonotonicClock.nanos() - start) / 1e6

        print("backgroundAll: 100 sessions in \(ms) ms (\(isReleaseBuild() ? "release" : "debug"))")
        #expect(Set(moved.map(\.id)) == Set(ids))
        let reopened = f.store()
        #expect(try ids.allSatisfy { try reopened.get(id: $0).state == .backgrounded })
        #expect(try reopened.get(id: idle.id).state == .idle)
        let listed = reopened.backgrounded()
        #expect(listed.count == 100)
        #expect(listed.allSatisfy { $0.checkpoint?.checkpointId.hasPrefix("ckpt_") == true })
    }

    @Test("a 10,000-message session recovers whole, from its snapshot and by replaying everything (times printed; make bench measures them)")
    func recoveryOfTenThousand() throws {
        let f = Fixture()
        let writer = f.store()
        let s = try writer.create()
        _ = try writer.transition(id: s.id, to: .running)
        let body = String(repeating: "lorem ipsum dolor sit amet ", count: 6)
        for k in 0..<10_000 {
            _ = try writer.appendMessages(id: s.id, messages: [MessageInput(id: "m\(k)", role: k % 2 == 0 ? .user : .assistant,
                                                                             content: ["type": "text", "text": .string("\(k) \(body)")])])
        }
        writer.close()
        let size = f.read(f.journal(s.id)).count

        var best = UInt64.max
        for _ in 0..<5 {
            let start = MonotonicClock.nanos()
            let loaded = try SessionLoader.load(folder: f.folder(s.id), id: s.id)
            best = min(best, MonotonicClock.nanos() - start)
            #expect(loaded?.data?.messages.count == 10_000)
        }
        let fullStart = MonotonicClock.nanos()
        let replayed = try SessionLoader.load(folder: f.folder(s.id), id: s.id, useSnapshot: false)
        #expect(replayed?.data?.messages.count == 10_000)
        let full = Double(MonotonicClock.nanos() - fullStart) / 1e6
        let storeStart = MonotonicClock.nanos()
        let tail = try f.store().resume(id: s.id).messagesTail
        let resume = Double(MonotonicClock.nanos() - storeStart) / 1e6

        let ms = Double(best) / 1e6
        print("recovery: 10,000 messages (\(size / 1024) KiB journal) in \(ms) ms with the snapshot, \(full) ms replaying "
            + "everything; fresh store resume \(resume) ms (\(isReleaseBuild() ? "release" : "debug"))")
        #expect(tail.count == 50)
        #expect(tail.last?.id == "m9999")
    }
}
