import AgentSessions
import JSON
import JSONRPC
import Synchronization

/// `tools/call`: validated, journaled into the connection's session, run once.
enum CallMCPTool: MethodDeclaration {
    static let method = "tools/call"
    static let result = ResultShape.object(["content", "structuredContent", "isError"])
    struct Params: MethodParams {
        var name: String
        var arguments: JSON
        init(_ p: ParamReader) throws {
            name = try p.requiredString("name")
            arguments = p.value("arguments") ?? .object(JSONObject())
        }
    }

    static func schedule(_ p: Params) -> Schedule {
        .claims(ToolClaims.claims(session: "mcp", name: p.name, arguments: p.arguments))
    }

    /// The tail of MCP tool call ids: a counter from a random start (one `getrandom` per process, not
    /// per call), so ids differ within a process and, as before, almost surely across processes
    /// journaling into the same session.
    private static let callSerial = Atomic<UInt64>(UInt64.random(in: 0 ... .max) % 1_000_000_000)

    private static func nextCallSerial() -> UInt64 {
        callSerial.add(1, ordering: .relaxed).newValue % 1_000_000_000
    }

    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let name = p.name
        guard let tool = ToolTable.byName[name] else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from tools/list", got: "\"\(name)\"")
        }
        let services = call.services
        guard let sessionID = services.mcpSession.get() else { throw RPCError.serverNotInitialized }
        let (store, _) = try services.stores()
        let toolCallId = "mcp-\(call.request?.id.map(String.init(describing:)) ?? "?")-\(nextCallSerial())"
        let arguments = p.arguments
        let run = { try ToolTable.call(name, arguments: arguments, services: services, request: call.request, scope: services.mcpRoots) }
        if tool.readOnly {
            // Reads change nothing: run, then journal intent and result together without an fsync
            // (a cancelled or failed read is journaled with its error).
            let result: ToolResult
            do {
                result = try run()
            } catch {
                let e = services.mapError(error)
                try? store.recordReadOnlyToolCall(id: sessionID, toolCallId: toolCallId, name: name, arguments: arguments,
                                                  result: ToolResult.failure(e.message, code: e.dataCode).json, isError: true)
                throw error
            }
            try store.recordReadOnlyToolCall(id: sessionID, toolCallId: toolCallId, name: name, arguments: arguments,
                                             result: result.journalJSON, isError: result.isError)
            return result.mcpJSON
        }
        _ = try store.beginToolCall(id: sessionID, toolCallId: toolCallId, name: name, arguments: arguments)
        let result: ToolResult
        do {
            result = try run()
        } catch {
            let e = services.mapError(error)
            try? store.finishToolCall(id: sessionID, toolCallId: toolCallId, result: ToolResult.failure(e.message, code: e.dataCode).json,
                                      isError: true)
            throw error
        }
        try store.finishToolCall(id: sessionID, toolCallId: toolCallId, result: result.json, isError: result.isError)
        return result.mcpJSON
    }
}
