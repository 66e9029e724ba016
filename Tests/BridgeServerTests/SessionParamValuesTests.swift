@testable import AgentSessions
@testable import BridgeServer
import JSON
import JSONRPC
import Testing

/// The protocol's readings of the session values a request carries: a message to append, a
/// pending tool call a front end declares, a config. Each refusal is `-32602` on the item, with
/// the words clients have always seen.
@Suite("Session param values")
struct SessionParamValuesTests {
    private func refusal(_ read: () throws -> Void) -> String? {
        do { try read() } catch let e as RPCError {
            return "\(e.data["field"]?.stringValue ?? ""): \(e.data["expected"]?.stringValue ?? "")"
        } catch { return "not an RPCError: \(error)" }
        return nil
    }

    @Test("a message to append is read from the protocol's object; bad input names the item and what was wrong")
    func message() throws {
        let ok = try MessageInput(param: ["id": "x", "role": "user", "content": ["type": "text"], "toolCalls": nil], field: "messages[0]")
        #expect(ok == MessageInput(id: "x", role: .user, content: ["type": "text"]))
        let full = try MessageInput(param: ["role": "tool", "content": "r", "toolCallId": "c", "toolCalls": [1], "metadata": ["k": 1]],
                                    field: "m")
        #expect(full == MessageInput(role: .tool, content: "r", toolCalls: [1], toolCallId: "c", metadata: ["k": 1]))
        let cases: [(JSON, String)] = [
            (["role": "robot", "content": ""], "messages[1]: message role must be one of user, assistant, system, tool"),
            (["role": "user"], "messages[1]: a message needs content"),
            (["id": 3, "role": "user", "content": ""], "messages[1]: message id must be a non-empty string"),
            (["role": "user", "content": "", "toolCallId": 1], "messages[1]: toolCallId must be a string"),
            (["role": "user", "content": "", "metadata": [1]], "messages[1]: message metadata must be an object, got array"),
            ("x", "messages[1]: a message must be an object, got string"),
        ]
        for (bad, said) in cases { #expect(refusal { _ = try MessageInput(param: bad, field: "messages[1]") } == said) }
    }

    @Test("a pending tool call is read in the front end's shape or OpenAI's; bad input names the item")
    func declaredToolCall() throws {
        let openAI = try ToolCallRecord(declared: ["id": "c9", "type": "function", "function": ["name": "list_files", "arguments": "{}"]],
                                        field: "p")
        #expect(openAI == ToolCallRecord(toolCallId: "c9", name: "list_files", arguments: "{}"))
        #expect(try ToolCallRecord(declared: ["toolCallId": "c1", "name": "n"], field: "p") == ToolCallRecord(toolCallId: "c1", name: "n"))
        let items = try [ToolCallRecord](items: [["id": "a", "name": "n"], ["id": "b", "name": "m", "arguments": [1]]], of: "pendingToolCalls",
                                         ToolCallRecord.init(declared:field:))
        #expect(items.map(\.toolCallId) == ["a", "b"] && items[1].arguments == [1])
        let cases: [(JSON, String)] = [
            ([1], "pendingToolCalls[1]: a pending tool call must be an object"),
            (["id": "", "name": "n"], "pendingToolCalls[1]: a pending tool call needs a toolCallId"),
            (["id": "c"], "pendingToolCalls[1]: pending tool call c needs a name"),
        ]
        for (bad, said) in cases {
            #expect(refusal { _ = try [ToolCallRecord](items: [["id": "a", "name": "n"], bad], of: "pendingToolCalls",
                                                       ToolCallRecord.init(declared:field:)) } == said)
        }
    }

    @Test("a config handed over whole is checked member by member, with the member named")
    func config() throws {
        #expect(try SessionConfig(checking: ["modelTier": "fast", "maxTurns": 2, "other": 1]) == SessionConfig(modelTier: .fast, maxTurns: 2))
        let cases: [(JSON, String)] = [
            ([], "config must be an object, got array"),
            (["modelTier": "huge"], "config.modelTier must be one of fast, balanced, powerful"),
            (["model": 1], "config.model must be a string"),
            (["maxInputTokens": -1], "config.maxInputTokens must be an integer >= 0"),
            (["maxOutputTokens": 1.5], "config.maxOutputTokens must be an integer >= 0"),
            (["maxTurns": "3"], "config.maxTurns must be an integer >= 0"),
            (["maxCostUSD": "1"], "config.maxCostUSD must be a number >= 0"),
            (["modelTier": 1, "maxTurns": -1], "config.modelTier must be one of fast, balanced, powerful"),
        ]
        for (bad, said) in cases {
            let e = #expect(throws: SessionError.self) { try SessionConfig(checking: bad) }
            #expect(e?.message == said && e?.code == "InvalidArgument")
        }
    }
}
