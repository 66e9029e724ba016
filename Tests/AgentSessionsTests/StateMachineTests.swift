import JSON
import Synchronization
import Testing
@testable import AgentSessions

struct TransitionCase: Sendable, CustomTestStringConvertible {
    let from: SessionState
    let to: SessionState
    var allowed: Bool { expectedTable[from]!.contains(to) }
    var testDescription: String { "\(from.rawValue) → \(to.rawValue)" }
}

/// The seeds' table, written out independently of the implementation.
let expectedTable: [SessionState: Set<SessionState>] = [
    .idle: [.running],
    .running: [.waitingForUser, .backgrounded, .completed, .failed],
    .waitingForUser: [.running, .backgrounded],
    .backgrounded: [.running, .completed],
    .completed: [],
    .failed: [],
]

let everyPair = SessionState.allCases.flatMap { from in SessionState.allCases.map { TransitionCase(from: from, to: $0) } }

@Suite("Session state machine")
struct StateMachineTests {
    @Test("the table allows exactly the seeds' moves", arguments: everyPair)
    func table(_ c: TransitionCase) {
        #expect(c.from.canTransition(to: c.to) == c.allowed)
    }

    @Test("a session moves along every allowed pair, stays put on a move to its own state, and refuses every other one",
          arguments: everyPair)
    func storeEnforcesTable(_ c: TransitionCase) throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: c.from, store)
        let seen = Mutex<[StateChange]>([])
        store.setStateChangeHandler { change in seen.withLock { $0.append(change) } }

        if c.from == c.to {  // a retry: a no-op, not an error
            let before = try store.get(id: s.id)
            let (after, from) = try store.transition(id: s.id, to: c.to)
            #expect(from == c.from)
            #expect(after == before)
            #expect(seen.withLock { $0 }.isEmpty)
        } else if c.allowed {
            let (after, from) = try store.transition(id: s.id, to: c.to)
            #expect(from == c.from)
            #expect(after.state == c.to)
            #expect(try f.store(owner: "device-a").get(id: s.id).state == c.to)  // durable
        } else {
            let error = #expect(throws: SessionError.self) { try store.transition(id: s.id, to: c.to) }
            #expect(error?.code == "InvalidTransition")
            #expect(error?.details == .transition(from: c.from, to: c.to))
            #expect(try store.get(id: s.id).state == c.from)
        }
    }

    @Test("every change is reported once, after it is durable, with its reason")
    func changesAreReported() throws {
        let f = Fixture()
        let store = f.store()
        let seen = Mutex<[StateChange]>([])
        store.setStateChangeHandler { change in seen.withLock { $0.append(change) } }
        let s = try store.create()

        _ = try store.transition(id: s.id, to: .running)
        _ = try store.transition(id: s.id, to: .failed, error: ["code": "ModelError", "message": "the model went away"])

        let changes = seen.withLock { $0 }
        #expect(changes == [
            StateChange(id: s.id, from: .idle, to: .running, reason: nil),
            StateChange(id: s.id, from: .running, to: .failed, reason: "the model went away"),
        ])
        #expect(try store.get(id: s.id).error?["code"] == "ModelError")
    }

    @Test("an unknown or unsafe session id is NotFound")
    func unknownSession() throws {
        let f = Fixture()
        let store = f.store()
        for id in ["sess_0000000000000000", "../etc", ".hidden", "", "a/b"] {
            let error = #expect(throws: SessionError.self) { try store.get(id: id) }
            #expect(error?.code == "NotFound")
        }
    }
}
