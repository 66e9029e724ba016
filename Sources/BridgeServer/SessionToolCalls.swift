import AgentSessions
import JSON
import JSONRPC
import Workspace

/// `session/callTool`: journals the intent, runs the tool once, journals the result. A
/// `toolCallId` seen before returns its recorded result without running the tool again (the same
/// id for another tool is `InvalidArgument`). The approval policy and the device policy are asked
/// first (`SessionMethods.runGated`).
enum CallTool: MethodDeclaration {
    static let method = "session/callTool"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var id: String
        var name: String
        var toolCallId: String
        var userConfirmed: Bool
        /// The call, its arguments decoded once by the tool's method (nil: no such tool).
        var invocation: ToolInvocation?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            name = try p.requiredString("name")
            toolCallId = try p.requiredString("toolCallId")
            let arguments = p.value("arguments") ?? .object(JSONObject())
            userConfirmed = try p.bool("userConfirmed") ?? false
            if !p.isDescribing { invocation = ToolTable.byName[name]?.invocation(arguments) }
        }
    }

    /// A tool call holds its session, and what the tool's method claims for these arguments.
    /// The tool it runs, and what the tool's method reaches (checked by the planner).
    static func forwarded(_ p: Params) -> Forward? { p.invocation.map { Forward(method: $0.tool.name, reaches: $0.tool.reaches) } }

    static func schedule(_ p: Params) -> Schedule {
        .claims(p.invocation?.claims(session: p.id) ?? [Claim("session", path: p.id, access: .write)])
    }

    static func handle(_ p: Params, _ call: Call) throws -> Answer {
        guard let invocation = p.invocation else { throw SessionMethods.unknownTool(p.name) }
        let toolCall = SessionMethods.ToolCall(session: p.id, toolCallId: p.toolCallId, invocation: invocation,
                                               userConfirmed: p.userConfirmed)
        return Answer(json: try SessionMethods.onStore(call) { try SessionMethods.runGated($0, toolCall, call) })
    }

    /// The call's result as the journal recorded it (`ToolResult`'s shape: a replay answers the
    /// same bytes), or `{pendingApproval}`.
    struct Answer: ListedObjectResult {
        var json: JSON
        static let fieldNames = ["content", "structuredContent", "isError", "pendingApproval"]
    }
}

extension SessionMethods {
    /// One tool call as `session/callTool` and `session/approve` run it.
    struct ToolCall {
        var session: String
        var toolCallId: String
        var invocation: ToolInvocation
        var userConfirmed: Bool
        var name: String { invocation.tool.name }
        var arguments: JSON { invocation.arguments }
    }

    static func unknownTool(_ name: String) -> RPCError {
        RPCError.invalidParams(field: "name", expected: "a tool from agent/listTools", got: "\"\(name)\"")
    }

    /// The gate before a call runs: a recorded result is returned as is; the approval policy may
    /// answer `{pendingApproval}` (nothing run) or a refusal (recorded as the call's error result);
    /// the device policy may defer it (`Deferred`, recorded in the session's deferred calls unless
    /// no confirmation could help; `deviceDecision`, the step MCP's `tools/call` shares). Otherwise
    /// the call runs once, journaled before and after.
    static func runGated(_ store: SessionStore, _ tc: ToolCall, _ call: Call) throws -> JSON {
        let tool = tc.invocation.tool
        if let done = try store.toolCallResult(id: tc.session, toolCallId: tc.toolCallId) {
            // A replay answers the call that ran under this id, never another tool's.
            guard done.name == tc.name else {
                throw SessionError(.invalidArgument, "tool call \(tc.toolCallId) was a call of \(done.name); give this call a toolCallId of its own",
                                   .toolCallOf(toolCallId: tc.toolCallId, name: done.name))
            }
            return done.result
        }
        switch try consent(store, session: tc.session, toolCallId: tc.toolCallId, tool: tool, arguments: tc.arguments) {
        case .pending(let approval): return ["pendingApproval": approval.json]
        case .answered(let result): return result
        case .run: break
        }
        let device = deviceDecision(tool, userConfirmed: tc.userConfirmed, agents: call.services.agents)
        if case .deferred(let reason, let confirmable, let message) = device.decision {
            try deferCall(store, session: tc.session, toolCallId: tc.toolCallId, tool: tool, arguments: tc.arguments, reason: reason)
            throw WorkDecision.deferredError(reason: reason, confirmable: confirmable, message: message, queued: true)
        }
        switch try store.beginToolCall(id: tc.session, toolCallId: tc.toolCallId, name: tc.name, arguments: tc.arguments) {
        case .recorded(let result, _): return result
        case .inProgress:
            throw SessionError(.invalidArgument, "tool call \(tc.toolCallId) is running now; wait for its answer",
                               .toolCallId(tc.toolCallId))
        case .started: break
        }
        let result: ToolResult
        if device.offline {
            result = offlineResult(tool, device)
        } else {
            result = try ToolTable.call(tc.invocation, services: call.services, request: call.request)
        }
        try store.finishToolCall(id: tc.session, toolCallId: tc.toolCallId, result: result.json, isError: result.isError)
        return result.json
    }
}

extension SessionMethods {
    /// What the approval step decided for one call.
    package enum Consent {
        /// Run it (no consent needed, or allowed).
        case run
        /// Waiting for the user (nothing ran).
        case pending(Approval)
        /// Refused, or already answered: the call's recorded result, to answer as is.
        case answered(JSON)
    }

    /// The approval step every tool call passes, `session/callTool` and MCP's `tools/call` alike:
    /// asks the session's policy about what this call does (`Tool.facts`: the effect its
    /// arguments ask for, whichever tool) through `SessionStore.checkApproval`, which records a
    /// pending approval durably and refuses an id already asked for another tool or arguments; a refused call is journaled as begun and closed with an `ApprovalDenied` error
    /// result (nothing runs), so asking again answers the same.
    package static func consent(_ store: SessionStore, session: String, toolCallId: String, tool: Tool, arguments: JSON,
                        origin: String? = nil) throws -> Consent {
        switch try store.checkApproval(id: session, toolCallId: toolCallId, tool: tool.facts(arguments), arguments: arguments, origin: origin) {
        case .pending(let approval):
            return .pending(approval)
        case .denied:
            let refusal = ToolResult.failure("The user did not allow \(tool.name); it was not run.", code: "ApprovalDenied")
            if case .recorded(let result, _) = try store.beginToolCall(id: session, toolCallId: toolCallId, name: tool.name,
                                                                      arguments: arguments) { return .answered(result) }
            try store.finishToolCall(id: session, toolCallId: toolCallId, result: refusal.json, isError: true)
            return .answered(refusal.json)
        case .allowed, .notNeeded:
            return .run
        }
    }
}
