import AgentSessions
import BridgeServer
import JSON
import JSONRPC
import Synchronization

/// `tools/call`: validated, asked of the session's approval policy (`MCPApprovals`) and of the
/// device policy (`MCPDevice`), journaled into the connection's session, run once.
enum CallMCPTool: MethodDeclaration {
    static let method = "tools/call"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var name: String
        var arguments: JSON
        /// The 2026-07-28 era's retry after `input_required`: the client's answers and the echoed state.
        var inputResponses: JSONObject?
        var requestState: String?
        /// The call, its arguments decoded once by the tool's method (nil: no such tool).
        var invocation: ToolInvocation?
        init(_ p: ParamReader) throws {
            name = try p.requiredString("name")
            arguments = p.value("arguments") ?? .object(JSONObject())
            if let raw = p.value("inputResponses") {
                guard case .object(let o) = raw else {
                    throw RPCError.invalidParams(field: "inputResponses", expected: "the answers to the input requests (an object)", got: raw.typeName)
                }
                inputResponses = o
            }
            requestState = try p.string("requestState")
            if !p.isDescribing { invocation = ToolTable.byName[name]?.invocation(arguments) }
        }
    }

    /// The tool it runs, and what the tool's method reaches (checked by the planner).
    static func forwarded(_ p: Params) -> Forward? { p.invocation.map { Forward(method: $0.tool.name, reaches: $0.tool.reaches) } }

    /// The connection's session, and what the tool's method claims for these arguments.
    static func schedule(_ p: Params) -> Schedule {
        .claims(p.invocation?.claims(session: "mcp") ?? [Claim("session", path: "mcp", access: .write)])
    }

    /// The tail of MCP tool call ids: a counter from a random start (one `getrandom` per process, not
    /// per call), so ids differ within a process and, as before, almost surely across processes
    /// journaling into the same session.
    private static let callSerial = Atomic<UInt64>(UInt64.random(in: 0 ... .max) % 1_000_000_000)

    /// A new tool call id for a call of this request.
    static func newToolCallId(_ call: Call) -> String {
        "mcp-\(call.request?.id.map(String.init(describing:)) ?? "?")-\(callSerial.add(1, ordering: .relaxed).newValue % 1_000_000_000)"
    }

    static func tool(_ name: String) throws -> Tool {
        guard let tool = ToolTable.byName[name] else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from tools/list", got: "\"\(name)\"")
        }
        return tool
    }

    /// The 2025 era: the approval step (`MCPApprovals.gate2025`), the device step (`MCPDevice`),
    /// then the call.
    static func handle(_ p: Params, _ call: Call) throws -> MCPToolAnswer {
        let tool = try tool(p.name)
        let approved: String
        switch try MCPApprovals.gate2025(p, tool, call) {
        case .answer(let result): return .answer(result)
        case .run(let toolCallId): approved = toolCallId
        }
        switch try MCPDevice.gate(p, tool, call, toolCallId: approved, modern: nil) {
        case .answer(let result): return .answer(result)
        case .run(let toolCallId): return try run(p, call, toolCallId: toolCallId)
        }
    }

    /// Runs an approved (or unguarded) call once, journaled under `toolCallId`.
    static func run(_ p: Params, _ call: Call, toolCallId: String) throws -> MCPToolAnswer {
        let name = p.name
        let invocation = try p.invocation ?? tool(name).invocation(p.arguments)
        let tool = invocation.tool
        let services = call.services
        let mcp = try call.mcp()
        let (sessionID, store) = try mcp.session.current()
        let arguments = p.arguments
        let run = { try ToolTable.call(invocation, services: services, request: call.request, scope: mcp.roots) }
        if tool.readOnly {
            // Reads change nothing: run, then journal intent and result together without an fsync
            // (a cancelled or failed read is journaled with its error), once the answer is written:
            // the record is not part of the answer, and the session claim this call holds keeps
            // the connection's next tool call waiting until it is appended. Except for a tool the
            // device policy may defer (`MCPDevice`): its record clears the deferral it ran under,
            // which the answer must find done.
            let beforeAnswer = tool.heavy || tool.requiresNetwork
            // A record that cannot be appended after the answer is logged: the answer stands.
            func record(_ result: JSON, isError: Bool) throws(SessionError) {
                let journal = { @Sendable () throws(SessionError) in
                    try store.recordReadOnlyToolCall(id: sessionID, toolCallId: toolCallId, name: name, arguments: arguments,
                                                     result: result, isError: isError)
                }
                guard let request = call.request, !beforeAnswer else { return try journal() }
                request.afterAnswer {
                    do throws(SessionError) { try journal() } catch {
                        request.logger.warning("MCP: the read \(name) (\(toolCallId)) could not be journaled in session \(sessionID): \(error.message)")
                    }
                }
            }
            let result: ToolResult
            do {
                result = try run()
            } catch {
                let e = services.mapError(error)
                try? record(ToolResult.failure(e.message, code: e.dataCode).json, isError: true)
                throw error
            }
            try record(result.journalJSON, isError: result.isError)
            return .tool(result)
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
        return .tool(result)
    }
}
