import Dispatch
import JSON
import Testing
@testable import AgentSessions

/// Two processes of one device writing one session (the ACP proxy and the `mcp --session`
/// server it offers the agent): two stores of one owner stand for them here, since each store's
/// lock takes the journal's `flock` through a descriptor of its own, as another process would.
@Suite("One session, two writers of one device")
struct SharedWriterTests {
    @Test("Appends from two stores of one owner interleave whole: a fresh store reads every one, the journal intact")
    func interleaved() throws {
        let f = Fixture()
        let a = f.store(), b = f.store()
        let s = try a.create(title: "shared")
        let n = 150
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            let store = side == 0 ? a : b
            for i in 0..<n {
                _ = try? store.appendMessages(id: s.id, messages: [MessageInput(role: .user, content: .string("\(side)-\(i)"))])
            }
        }
        // Each sees the other's appends (it reloads when the journal changed under it).
        #expect(try a.messages(id: s.id, limit: 1000).count == 2 * n)
        _ = try b.recordUsage(id: s.id, inputTokens: 1, outputTokens: 1, costUSD: 0.5)
        #expect(try a.get(id: s.id).usage.estimatedCostUSD == 0.5)
        a.close()
        b.close()
        let fresh = f.store()
        let texts = try fresh.messages(id: s.id, limit: 1000).compactMap { $0.content.stringValue }
        #expect(texts.count == 2 * n)
        for side in 0..<2 { #expect(texts.filter { $0.hasPrefix("\(side)-") } == (0..<n).map { "\(side)-\($0)" }) }
        #expect(f.isClean(f.journal(s.id)))
    }

    @Test("a metadata update is durable and replaces the keys it sets; a reported cost is counted instead of the price table's")
    func metadataAndReportedCost() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(title: "m", config: SessionConfig(maxCostUSD: 1), metadata: ["acp": ["cwdInRoot": ""]])
        _ = try store.update(id: s.id, metadata: ["acp": ["cwdInRoot": "", "agentSessionId": "a1"]])
        let r = try store.recordUsage(id: s.id, inputTokens: 1_000_000, outputTokens: 0, costUSD: 1.5)
        #expect(r.exceeded == ["maxCostUSD"] && r.usage.estimatedCostUSD == 1.5)
        store.close()
        let again = try f.store().get(id: s.id)
        #expect(again.metadata?["acp"]?["agentSessionId"]?.stringValue == "a1")
        #expect(again.state == .failed && again.usage.estimatedCostUSD == 1.5)
    }
}
