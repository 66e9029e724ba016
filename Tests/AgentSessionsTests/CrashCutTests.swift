import JSON
import Testing
@testable import AgentSessions

@Suite("Crash cuts")
struct CrashCutTests {
    @Test("a journal cut at any byte recovers exactly the records before the cut, and appends cleanly after")
    func everyCut() throws {
        let f = Fixture()
        let store = f.store(snapshotInterval: 1_000)
        let s = try store.create(config: SessionConfig(modelTier: .fast))
        _ = try store.transition(id: s.id, to: .running)
        // After each acknowledged call: (journal size, messages, turns, state, unfinished calls).
        var acknowledged: [(size: Int, messages: Int, turns: Int, state: SessionState, open: Int)] = []
        func note(_ messages: Int, _ turns: Int, _ state: SessionState, _ open: Int) {
            acknowledged.append((f.read(f.journal(s.id)).count, messages, turns, state, open))
        }
        note(0, 0, .running, 0)
        var messages = 0, turns = 0
        for k in 0..<12 {
            _ = try store.appendMessages(id: s.id, messages: [text("m\(k)")])
            messages += 1
            note(messages, turns, .running, 0)
            _ = try store.beginToolCall(id: s.id, toolCallId: "c\(k)", name: "read_file", arguments: ["path": "p"])
            note(messages, turns, .running, 1)
            try store.finishToolCall(id: s.id, toolCallId: "c\(k)", result: ["content": "x"])
            note(messages, turns, .running, 0)
            _ = try store.recordUsage(id: s.id, inputTokens: 10, outputTokens: 5)
            turns += 1
            note(messages, turns, .running, 0)
        }
        _ = try store.transition(id: s.id, to: .waitingForUser)
        note(messages, turns, .waitingForUser, 0)
        let full = f.read(f.journal(s.id))

        var cuts = 0
        for cut in stride(from: acknowledged[0].size, through: full.count, by: 3) {
            f.write(f.journal(s.id), Array(full[0..<cut]))
            let expected = acknowledged.last { $0.size <= cut }!
            let reopened = f.store(snapshotInterval: 1_000)

            let got = try reopened.get(id: s.id)

            #expect(try reopened.messages(id: s.id, limit: 100).count == expected.messages, "cut at \(cut)")
            #expect(got.usage.turns == expected.turns, "cut at \(cut)")
            #expect(got.state == expected.state, "cut at \(cut)")
            #expect(got.pendingToolCalls.count == expected.open, "cut at \(cut)")
            #expect(got.pendingToolCalls.allSatisfy { $0.status == .interrupted }, "cut at \(cut)")
            _ = try reopened.checkpoint(id: s.id)
            #expect(f.isClean(f.journal(s.id)), "cut at \(cut)")
            cuts += 1
        }
        #expect(cuts > 100)
    }
}
