import JSON
import Testing
@testable import AgentSessions

/// The journal's stored form of a session's config, usage and declared tool calls (the `create`,
/// `base` and `ckpt` records, snapshots and exports), pinned to the bytes earlier versions wrote,
/// with the reading rules of damaged records: a config with one bad member reads as no config,
/// a usage reads each count on its own, a declared call without an id or name is left out.
@Suite("Stored forms of budgets and tool calls")
struct StoredBudgetFormTests {
    private func text(_ j: JSON) -> String { JSONCodec.encodeString(j) }
    private func parse(_ s: String) throws -> JSON { try JSONCodec.decode(s) }
    private func config(_ s: String) throws -> SessionConfig { SessionConfig(stored: try parse(s)) ?? SessionConfig() }

    @Test("a config stores only the members set, in a fixed order, and one bad member reads as none")
    func sessionConfig() throws {
        #expect(text(SessionConfig().stored) == "{}")
        let full = SessionConfig(modelTier: .balanced, model: "m", maxInputTokens: 10, maxOutputTokens: 20, maxTurns: 3,
                                 maxCostUSD: 1.5)
        let fullText = #"{"modelTier":"balanced","model":"m","maxInputTokens":10,"maxOutputTokens":20,"maxTurns":3,"maxCostUSD":1.5}"#
        #expect(text(full.stored) == fullText)
        #expect(try config(fullText) == full)
        #expect(text(SessionConfig(maxTurns: 0, maxCostUSD: 2).stored) == #"{"maxTurns":0,"maxCostUSD":2.0}"#)
        // null reads as absent, unknown members are ignored, an integral float is an integer
        #expect(try config(#"{"modelTier":null,"maxTurns":3.0,"maxCostUSD":2,"later":true}"#) == SessionConfig(maxTurns: 3, maxCostUSD: 2))
        for bad in [#"{"maxTurns":-1,"model":"m"}"#, #"{"modelTier":"huge","maxTurns":1}"#, #"{"model":3}"#,
                    #"{"maxCostUSD":-0.5}"#, #"{"maxInputTokens":1.5}"#, #""x""#] {
            #expect(try config(bad) == SessionConfig(), "\(bad)")
        }
    }

    @Test("a usage stores its four sums and reads each on its own, 0 when missing or unreadable")
    func usage() throws {
        let u = Usage(inputTokens: 1, outputTokens: 2, turns: 3, estimatedCostUSD: 0.5)
        let uText = #"{"inputTokens":1,"outputTokens":2,"turns":3,"estimatedCostUSD":0.5}"#
        #expect(text(u.stored) == uText)
        #expect(Usage(stored: try parse(uText)) == u)
        #expect(text(Usage().stored) == #"{"inputTokens":0,"outputTokens":0,"turns":0,"estimatedCostUSD":0.0}"#)
        #expect(Usage(stored: try parse(#"{"inputTokens":"x","turns":2,"estimatedCostUSD":1}"#)) ?? Usage() == Usage(turns: 2, estimatedCostUSD: 1))
        #expect(Usage(stored: .null) ?? Usage() == Usage())
    }

    @Test("a declared tool call stores its id, name and arguments; one without an id or name is left out")
    func declaredToolCall() throws {
        let call = ToolCallRecord(toolCallId: "c1", name: "readFile", arguments: ["path": "a"], status: .running,
                                  startedAtNanos: 5)
        #expect(text(call.stored) == #"{"toolCallId":"c1","name":"readFile","arguments":{"path":"a"}}"#)
        let read = ToolCallRecord(stored: try parse(text(call.stored)))
        #expect(read == ToolCallRecord(toolCallId: "c1", name: "readFile", arguments: ["path": "a"]))
        #expect(ToolCallRecord(stored: try parse(#"{"toolCallId":"c2","name":"n"}"#))
                == ToolCallRecord(toolCallId: "c2", name: "n", arguments: .object([:])))
        #expect(ToolCallRecord(stored: try parse(#"{"toolCallId":"c2","name":"n","arguments":null}"#))?.arguments == .null)
        for bad in [#"{"toolCallId":"","name":"n"}"#, #"{"toolCallId":"c"}"#, #"{"toolCallId":3,"name":"n"}"#, "[]"] {
            #expect(ToolCallRecord(stored: try parse(bad)) == nil, "\(bad)")
        }
    }
}
