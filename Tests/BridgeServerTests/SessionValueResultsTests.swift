@testable import AgentSessions
@testable import BridgeServer
import JSON
import SystemSupport
import Testing

/// The wire forms of the session values, declared in BridgeServer over the typed values: the
/// protocol's names, in the order they were always sent, ISO 8601 times, optional fields left
/// out when they have no value.
@Suite("Session value results")
struct SessionValueResultsTests {
    private func iso(_ n: Int64) -> JSON { .string(Timestamp.iso8601(nanos: n)) }

    @Test("a message uses the protocol's names and an ISO time; a summary entry carries its compaction")
    func message() {
        let m = Message(id: "t1", role: .tool, content: "42", toolCalls: nil, toolCallId: "c1", atNanos: 5).json
        #expect(m.objectValue?.keys == ["id", "role", "content", "toolCallId", "at"])
        #expect(m["role"] == "tool" && m["at"] == iso(5))
        let full = Message(id: "a", role: .assistant, content: "x", toolCalls: [["id": "c"]], toolCallId: nil,
                           metadata: ["k": 1], atNanos: 6).json
        #expect(full.objectValue?.keys == ["id", "role", "content", "toolCalls", "metadata", "at"])
        let summary = Message(summaryOf: Compaction(id: "c1", first: "a", through: "b", count: 2, summary: "s", by: "me", at: 7)).json
        #expect(summary.objectValue?.keys == ["id", "role", "content", "at", "compaction"])
        #expect(summary["role"] == "system" && summary["compaction"]?["by"] == "me")
    }

    @Test("a compaction says whether it is active and whether its originals are kept")
    func compaction() {
        var c = Compaction(id: "c1", first: "a", through: "b", count: 2, summary: "s", by: "me", at: 7)
        #expect(c.json == .object(JSONObject([("id", "c1"), ("firstMessageId", "a"), ("throughMessageId", "b"), ("count", 2),
                                              ("by", "me"), ("at", iso(7)), ("active", true), ("originalsKept", true)])))
        c.undoneAtNanos = 8
        c.originalsDroppedAtNanos = 9
        #expect(c.json.objectValue?.keys == ["id", "firstMessageId", "throughMessageId", "count", "by", "at", "active", "undoneAt",
                                             "originalsKept"])
        #expect(c.json["active"] == false && c.json["undoneAt"] == iso(8) && c.json["originalsKept"] == false)
    }

    @Test("an approval, a deferred call, a lineage and a queue item keep their protocol fields and order")
    func others() {
        var a = Approval(approvalId: "ap", toolCallId: "t", name: "deleteFile", arguments: ["path": "x"], at: 3)
        #expect(a.json.objectValue?.keys == ["approvalId", "toolCallId", "name", "arguments", "requestedAt"])
        a.decision = .allow
        a.effect = .replaces
        a.origin = "mcp"
        #expect(a.json.objectValue?.keys == ["approvalId", "toolCallId", "name", "arguments", "requestedAt", "decision", "effect", "origin"])
        #expect(a.json["decision"] == "allow" && a.json["effect"] == "replaces" && a.json["requestedAt"] == iso(3))

        let d = DeferredCall(toolCallId: "t", name: "n", arguments: [1], reason: "metered", at: 4).json
        #expect(d == .object(JSONObject([("toolCallId", "t"), ("name", "n"), ("arguments", [1]), ("reason", "metered"), ("at", iso(4))])))
        #expect(d.objectValue?.keys == ["toolCallId", "name", "arguments", "reason", "at"])

        #expect(Lineage(parentId: "p", messageId: nil, atNanos: 4).json.objectValue?.keys == ["parentId", "at"])
        #expect(Lineage(parentId: "p", messageId: "m", atNanos: 4, kind: .child).json.objectValue?.keys == ["parentId", "messageId", "at"])

        var q = QueueItem(id: "q", kind: "k", payload: .null, idempotencyKey: "key", requiresNetwork: false, at: 1)
        q.result = .null
        #expect(q.json.objectValue?.keys == ["id", "kind", "payload", "idempotencyKey", "requiresNetwork", "status", "attempts", "result",
                                             "createdAt", "updatedAt"])
        #expect(q.json["result"] == .null && q.json["status"] == "pending" && q.json["requiresNetwork"] == false)
    }
}

/// The wire forms of a session's config, usage, remaining budget and unfinished tool calls.
@Suite("Session budget results")
struct SessionBudgetResultsTests {
    @Test("a config sends only the members set, a usage all four sums, a remaining budget only its limits")
    func budget() {
        #expect(SessionConfig().json == .object([:]))
        let config = SessionConfig(modelTier: .fast, model: "m", maxInputTokens: 1, maxOutputTokens: 2, maxTurns: 3, maxCostUSD: 4)
        #expect(config.json == .object(JSONObject([("modelTier", "fast"), ("model", "m"), ("maxInputTokens", 1),
                                                   ("maxOutputTokens", 2), ("maxTurns", 3), ("maxCostUSD", .double(4))])))
        let usage = Usage(inputTokens: 5, outputTokens: 6, turns: 1, estimatedCostUSD: 0.25)
        #expect(usage.json == .object(JSONObject([("inputTokens", 5), ("outputTokens", 6), ("turns", 1),
                                                  ("estimatedCostUSD", .double(0.25))])))
        #expect(BudgetRemaining().json == .object([:]))
        let left = BudgetRemaining(inputTokens: 1, outputTokens: nil, turns: 2, costUSD: 0.5)
        #expect(left.json == .object(JSONObject([("inputTokens", 1), ("turns", 2), ("costUSD", .double(0.5))])))
    }

    @Test("an unfinished tool call sends its status, and its start time as ISO 8601 when it began")
    func toolCall() {
        let declared = ToolCallRecord(toolCallId: "c", name: "n", arguments: ["a": 1])
        #expect(declared.json == .object(JSONObject([("toolCallId", "c"), ("name", "n"), ("arguments", ["a": 1]),
                                                     ("status", "pending")])))
        let running = ToolCallRecord(toolCallId: "c", name: "n", status: .running, startedAtNanos: 5)
        #expect(running.json == .object(JSONObject([("toolCallId", "c"), ("name", "n"), ("arguments", .object([:])),
                                                    ("status", "running"), ("startedAt", .string(Timestamp.iso8601(nanos: 5)))])))
    }
}
