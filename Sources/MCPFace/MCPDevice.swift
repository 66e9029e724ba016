import AgentSessions
import BridgeServer
import JSON
import JSONRPC
import SystemSupport

/// The device policy on MCP's `tools/call`, both eras, after the approval step: the step
/// `session/callTool` passes (`SessionMethods.deviceDecision`), so an agent's `search_files` on a
/// hot device or a low battery is deferred on either face (docs/protocol.md, MCP face).
///
/// - Allowed: the call runs. A call deferred before (the same tool and arguments, found in the
///   session's deferred calls) runs under that deferral's tool call id, which clears it.
/// - Deferred where a confirmation can help (`confirmable`), the call is recorded in the session's
///   deferred calls and the user is asked to run it anyway: a 2026-07-28 client declaring
///   `elicitation` gets `input_required` with one `elicitation/create` (`inputRequests.confirm`)
///   and a signed `requestState` bound to the call, its tool call id and the reason; a 2025
///   client that declared it is sent `elicitation/create` and waited for (`--approval-timeout`).
///   `accept` with `confirm: true` runs the call (userConfirmed) if the reason is still the one
///   confirmed; a new reason is asked about anew.
/// - Otherwise (cannot ask, declined, no answer, or offline): the `isError` result `Deferred`
///   naming the reason, the session and the tool call id; the call stays in
///   `session/listDeferred` and the same call again runs once the conditions allow.
enum MCPDevice {
    static let inputKey = "confirm"

    /// Whether a retry's `requestState` is a device confirmation's (the approval step then treats
    /// the call as a first call, and this step reads the answer).
    static func isConfirmation(_ p: CallMCPTool.Params, _ call: Call) -> Bool {
        guard let text = p.requestState, p.inputResponses?[inputKey] != nil,
              let state = try? MCPRequestState.decode(text, key: call.mcp().approvals.key, nowMs: WallClock.nanos() / 1_000_000)
        else { return false }
        return state.reason != nil
    }

    /// The device step of a call the approval step lets run under `proposed`; `modern` is the
    /// request's envelope in the 2026-07-28 era, nil in the 2025 one.
    static func gate(_ p: CallMCPTool.Params, _ tool: Tool, _ call: Call, toolCallId proposed: String,
                     modern: MCPEnvelope?) throws -> MCPApprovals.Gate {
        guard tool.heavy || tool.requiresNetwork else { return .run(toolCallId: proposed) }
        let services = call.services
        let (session, store) = try call.mcp().session.current()
        // The arguments' digest only when something is matched or signed with it (most calls never).
        var memo: String?
        func digest() throws -> String {
            if let memo { return memo }
            let d = try MCPRequestState.digest(p.arguments)
            memo = d
            return d
        }
        let confirmation = modern == nil ? nil : try answer(p, call, session: session, digest: digest)
        let open = try store.openDeferral(id: session, name: tool.name, preferring: confirmation?.toolCallId ?? proposed) {
            (try? MCPRequestState.digest($0)) == (try? digest())
        }
        let toolCallId = confirmation?.toolCallId ?? open?.toolCallId ?? proposed
        let check = SessionMethods.deviceDecision(tool, userConfirmed: false, agents: services.agents)
        if check.offline {
            let result = SessionMethods.offlineResult(tool, check)
            _ = try store.beginToolCall(id: session, toolCallId: toolCallId, name: tool.name, arguments: p.arguments)
            try store.finishToolCall(id: session, toolCallId: toolCallId, result: result.json, isError: true)
            return .answer(result.json)
        }
        guard case .deferred(let reason, let confirmable, _) = check.decision else { return .run(toolCallId: toolCallId) }
        let ask = Question(tool: tool, session: session, toolCallId: toolCallId, reason: reason, check: check)
        if let confirmation, confirmation.reason == reason {
            if let done = try store.toolCallResult(id: session, toolCallId: toolCallId) { return .answer(done.result) }
            if confirmation.confirmed { return .run(toolCallId: toolCallId) }
        }
        if open?.toolCallId != toolCallId || open?.reason != reason {
            try SessionMethods.deferCall(store, session: session, toolCallId: toolCallId, tool: tool, arguments: p.arguments,
                                         reason: reason)
        }
        if let confirmation, confirmation.reason == reason {
            return .answer(deferred(ask, confirmable: confirmable, why: "The user declined to run it anyway."))
        }
        guard confirmable else { return .answer(deferred(ask, confirmable: false, why: nil)) }
        if let modern {
            guard MCPApprovals.formElicitation(modern.capabilities) else {
                return .answer(deferred(ask, confirmable: true, why: "This client declared no elicitation capability, so it cannot be asked here."))
            }
            let state = MCPRequestState(method: CallMCPTool.method, tool: tool.name, argumentsDigest: try digest(), session: session,
                                        approvalId: "", expiresAtMs: MCPRequestState.expiry(services), reason: reason, toolCallId: toolCallId)
            return .answer(try MCPRequestState.inputRequired(inputKey, params: elicitation(ask, modern: true), state: state, call))
        }
        guard try call.mcp().approvals.clientElicits2025 else {
            return .answer(deferred(ask, confirmable: true, why: "This client declared no elicitation capability, so it cannot be asked here."))
        }
        let answer = try MCPApprovals.ask(call, elicitation(ask, modern: false), within: services.configuration.mcpApprovalTimeout)
        switch answer {
        case .success(let result) where confirmed(result) == true:
            // Conditions may have changed while the user read the question: decide again, confirmed.
            return SessionMethods.deviceDecision(tool, userConfirmed: true, agents: services.agents).decision.isAllowed
                ? .run(toolCallId: toolCallId) : .answer(deferred(ask, confirmable: false, why: nil))
        case .success(let result) where confirmed(result) == false:
            return .answer(deferred(ask, confirmable: true, why: "The user declined to run it anyway."))
        case .failure(let e): return .answer(deferred(ask, confirmable: true, why: "The client's elicitation failed (\(e.message))."))
        case .success(.null): return .answer(deferred(ask, confirmable: true, why: "The client did not answer the elicitation in time."))
        case .success: return .answer(deferred(ask, confirmable: true, why: "The client's elicitation answer was not an elicitation result."))
        }
    }

    /// One deferred call, as the question and the `Deferred` result name it.
    struct Question {
        var tool: Tool
        var session: String
        var toolCallId: String
        var reason: String
        var check: SessionMethods.DeviceCheck
        var why: String { SessionMethods.reasonText(reason, check.conditions) }
    }

    /// The answer a 2026-07-28 retry carries for a device confirmation (nil when it carries none:
    /// a first call, or the retry of an approval), verified like an approval's state.
    private static func answer(_ p: CallMCPTool.Params, _ call: Call, session: String,
                               digest: () throws -> String) throws -> (reason: String, toolCallId: String, confirmed: Bool)? {
        guard let text = p.requestState, let response = p.inputResponses?[inputKey] else { return nil }
        let state = try MCPRequestState.verified(text, tool: p.name, digest: digest, session: session, call)
        guard let reason = state.reason, let toolCallId = state.toolCallId else { return nil }
        guard let confirmed = confirmed(response) else {
            throw RPCError.invalidParams(field: "inputResponses.confirm", expected: "an elicitation result {action: accept|decline|cancel, content?}",
                                         got: response.typeName)
        }
        return (reason, toolCallId, confirmed)
    }

    /// What an elicitation answer (`{action, content: {confirm}}`) says: true only for `accept`
    /// with `confirm: true`; false for `decline`, `cancel` or `confirm: false`; nil when it is
    /// not an elicitation result.
    static func confirmed(_ answer: JSON) -> Bool? {
        guard let action = answer["action"]?.stringValue, ["accept", "decline", "cancel"].contains(action) else { return nil }
        return action == "accept" && answer["content"]?["confirm"]?.boolValue == true
    }

    /// The `elicitation/create` params asking to run the deferred call anyway.
    static func elicitation(_ q: Question, modern: Bool) -> JSON {
        let message = "The device policy deferred \(q.tool.name): \(q.why). \(q.check.decision.json["message"]?.stringValue ?? "") "
            + "Run \(q.tool.name) anyway? (session \(q.session), tool call \(q.toolCallId))"
        let schema: JSON = [
            "type": "object",
            "properties": [
                "confirm": ["type": "boolean", "title": .string("Run \(q.tool.name) now"),
                            "description": .string("true runs \(q.tool.name) now despite \(q.why); false leaves it deferred")],
            ],
            "required": ["confirm"],
        ]
        var o: JSONObject = ["message": .string(message), "requestedSchema": schema]
        if modern { o["mode"] = "form" }
        return .object(o)
    }

    /// The `Deferred` error result: the reason, and how the call runs later.
    static func deferred(_ q: Question, confirmable: Bool, why: String?) -> JSON {
        var message = "\(q.tool.name) was not run: the device policy deferred it (\(q.why)). "
        if let why { message += why + " " }
        message += "It is recorded in the deferred calls of session \(q.session) (tool call \(q.toolCallId)); "
            + "call \(q.tool.name) again with the same arguments once the conditions allow"
            + (confirmable ? ", or when the user agrees to run it anyway." : ".")
        let s: JSONObject = ["error": .string(message), "code": "Deferred", "reason": .string(q.reason), "confirmable": .bool(confirmable),
                             "queued": true, "toolCallId": .string(q.toolCallId), "sessionId": .string(q.session)]
        return ToolResult(content: [ToolResult.text(message)], structuredContent: .object(s), isError: true).json
    }
}
