import AgentSessions
import JSON
import JSONRPC

/// The agent's `session/request_permission` under the session's approval policy (sessions made
/// with `--approval-policy`; the others go to the editor unchanged).
///
/// Guarantees: the call's effect decides, from its ACP `kind` (`read`, `search`, `think`,
/// `fetch`: reads; every other kind, or none, as replacing existing content: a kind says too
/// little to assume less); the "tool" a remembered decision covers is `acp/<kind>`. When the
/// policy asks nothing, or a remembered decision answers, the agent is answered at once with its
/// own first option of the matching kind (`allow_once`, else `allow_always`; `reject_once`, else
/// `reject_always`; none: `cancelled`) and the editor is not asked; otherwise the approval is
/// recorded pending and the editor is asked, and its answer decides it (an `_always` option
/// remembers it). Either way the request and the outcome are journaled before the agent is answered.
extension ACPProxy {
    /// Answers the permission request itself when the policy lets it; false: ask the editor.
    func answeredByPolicy(session sid: String, agentId: RequestID, params: JSON, extra: JSONObject) -> Bool {
        guard isGated(sid), let call = params["toolCall"], let callId = call["toolCallId"]?.stringValue else { return false }
        let tool = Self.facts(call)
        let check: ApprovalCheck
        do throws(SessionError) {
            check = try store.checkApproval(id: sid, toolCallId: callId, tool: tool, arguments: call["rawInput"] ?? .object([:]),
                                            origin: "acp")
        } catch {
            logger.warning("acp: session \(sid): the approval policy could not weigh \(callId) (\(error.message)); asking the editor")
            return false
        }
        let allow: Bool
        switch check {
        case .notNeeded, .allowed: allow = true
        case .denied: allow = false
        case .pending: return false
        }
        let options = params["options"]?.arrayValue ?? []
        let kinds = allow ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"]
        let chosen = kinds.lazy.compactMap { k in options.first { $0["kind"]?.stringValue == k }?["optionId"] }.first
        let outcome: JSON = chosen.map { ["outcome": "selected", "optionId": $0] } ?? ["outcome": "cancelled"]
        let result: JSON = ["outcome": outcome]
        toAgentSide({ $0.respond(agentId, result, extras: extra) }, session: sid,
                    records: [ACPRecords.permission(params), ACPRecords.permissionOutcome(result: result, error: nil, by: "policy")])
        return true
    }

    /// Records the editor's answer as the decision of the pending approval.
    func recordDecision(session sid: String, request: JSON, result: JSON?) {
        guard isGated(sid), let callId = request["toolCall"]?["toolCallId"]?.stringValue,
              let chosen = result?["outcome"]?["optionId"],
              let kind = request["options"]?.arrayValue?.first(where: { $0["optionId"] == chosen })?["kind"]?.stringValue
        else { return }
        let decision: Approval.Decision = kind.hasPrefix("allow") ? .allow : .deny
        do throws(SessionError) {
            _ = try store.approve(id: sid, toolCallId: callId, decision: decision, remember: kind.hasSuffix("_always"))
        } catch {
            logger.warning("acp: session \(sid): the decision on \(callId) was not recorded: \(error.message)")
        }
    }

    /// Whether the session was made with `--approval-policy` (its policy then weighs requests).
    func isGated(_ sid: String) -> Bool {
        if let known = gated[sid] { return known }
        let g = (try? store.get(id: sid)).flatMap(ACPSessionInfo.init)?.consent ?? false
        gated[sid] = g
        return g
    }

    static func facts(_ call: JSON) -> ToolFacts {
        let kind = call["kind"]?.stringValue ?? "other"
        let reads = ["read", "search", "think", "fetch"].contains(kind)
        return ToolFacts(name: "acp/" + kind, effect: reads ? .reads : .replaces, openWorld: kind == "fetch")
    }
}
