import AgentSessions
import JSON
import JSONRPC

/// The consent and device-policy steps of a tool call (issue 17): `session/setApprovalPolicy`,
/// `session/approve`, `session/listDeferred`, and the gate `session/callTool` passes before it
/// runs anything.
extension SessionMethods {
    struct SetApprovalPolicyParams { var id: String; var policy: ApprovalPolicy }

    static func setApprovalPolicyParams(_ p: Params) throws -> SetApprovalPolicyParams {
        guard let policy = try decode(p, "approvalPolicy", ApprovalPolicy.init(json:)) else {
            throw RPCError.invalidParams(field: p.field("approvalPolicy"), expected: "\"none\", \"destructive\" or {tools, annotations}",
                                         got: "nothing")
        }
        return SetApprovalPolicyParams(id: try p.requiredString("id"), policy: policy)
    }

    static func setApprovalPolicy(_ store: SessionStore, _ p: SetApprovalPolicyParams) throws -> JSON {
        try store.setApprovalPolicy(id: p.id, p.policy).json
    }

    struct ApproveParams { var id: String; var toolCallId: String; var decision: Approval.Decision; var remember: Bool }

    static func approveParams(_ p: Params) throws -> ApproveParams {
        guard let decision = try p.choice("decision", ["allow", "deny"]).flatMap(Approval.Decision.init(rawValue:)) else {
            throw RPCError.invalidParams(field: p.field("decision"), expected: "\"allow\" or \"deny\"", got: "nothing")
        }
        return ApproveParams(id: try p.requiredString("id"), toolCallId: try p.requiredString("toolCallId"), decision: decision,
                             remember: try p.bool("remember") ?? false)
    }

    /// The session, and the workspace for the tool an allowed call runs (its name is in the
    /// journal, not in the params, so its paths cannot be claimed more narrowly).
    static func approveClaims(_ p: ApproveParams) -> [Claim] {
        [.write("session", p.id), .write("file", "")]
    }

    /// Records the decision, then runs an allowed call (through the device policy, like any call)
    /// or closes a refused one with an error result: `{approval, result}`. Answering again returns
    /// the recorded result; nothing runs twice.
    static func approve(_ server: BridgeServer, _ store: SessionStore, _ p: ApproveParams, _ ctx: RequestContext) throws -> JSON {
        let approval = try store.approve(id: p.id, toolCallId: p.toolCallId, decision: p.decision, remember: p.remember)
        let call = ToolCall(session: p.id, toolCallId: p.toolCallId, name: approval.name, arguments: approval.arguments,
                            userConfirmed: false)
        let result = try runGated(server, store, call, ctx)
        return ["approval": approval.json, "result": result]
    }

    /// Every deferred tool call of the workspace's sessions, oldest first, and whether the device
    /// policy would run it now (send the same `session/callTool` again to run it).
    static func listDeferred(_ server: BridgeServer, _ store: SessionStore) -> JSON {
        let conditions = server.agents.currentConditions
        return ["calls": .array(deferredCalls(store, conditions, server.agents.policy(for: conditions)).map(\.json))]
    }

    /// The deferred calls of `store` and whether each would run under `conditions`.
    static func deferredCalls(_ store: SessionStore, _ conditions: DeviceConditions,
                              _ policy: Policy) -> [(json: JSON, runnable: Bool, key: String)] {
        store.deferredToolCalls().map { entry in
            var o = entry.call.json.objectValue ?? JSONObject()
            o["sessionId"] = .string(entry.sessionId)
            let facts = ToolTable.byName[entry.call.name].map { WorkFacts(needsNetwork: $0.requiresNetwork, heavy: $0.heavy) }
            let runnable = facts.map { policy.decide($0, conditions: conditions).isAllowed } ?? false
            o["runnableNow"] = .bool(runnable)
            return (.object(o), runnable, entry.sessionId + "/" + entry.call.toolCallId)
        }
    }

    /// The deferred calls that new conditions let run and the old ones did not: what
    /// `session/deferredReady` announces (empty: nothing to say).
    static func newlyRunnable(_ store: SessionStore, before: (DeviceConditions, Policy), after: (DeviceConditions, Policy)) -> [JSON] {
        let was = Set(deferredCalls(store, before.0, before.1).filter(\.runnable).map(\.key))
        return deferredCalls(store, after.0, after.1).filter { $0.runnable && !was.contains($0.key) }.map(\.json)
    }

    static func registerApprovals(_ methods: inout [Method]) {
        methods.append(typed("session/setApprovalPolicy", setApprovalPolicyParams, id: \.id, setApprovalPolicy))
        methods.append(Method("session/approve", schedule: { params in
            .claims(approveClaims(try approveParams(try Params(params))))
        }) { ctx in
            let p = try approveParams(try ctx.paramsObject())
            let server = try LifecycleMethods.server(ctx)
            let (store, _) = try server.agents.stores(for: try server.workspace())
            defer { server.agents.logWarnings(store) }
            return try approve(server, store, p, ctx)
        })
        methods.append(Method("session/listDeferred", schedule: { _ in .claims([.read("session", "")]) }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let (store, _) = try server.agents.stores(for: try server.workspace())
            return listDeferred(server, store)
        })
    }

    /// One tool call as `session/callTool` and `session/approve` run it.
    struct ToolCall { var session: String; var toolCallId: String; var name: String; var arguments: JSON; var userConfirmed: Bool }

    /// The gate before a call runs: a recorded result is returned as is; the approval policy may
    /// answer `{pendingApproval}` (nothing run) or a refusal (recorded as the call's error result);
    /// the device policy may defer it (`Deferred`, recorded in the session's deferred calls unless
    /// no confirmation could help). Otherwise the call runs once, journaled before and after.
    static func runGated(_ server: BridgeServer, _ store: SessionStore, _ call: ToolCall, _ ctx: RequestContext) throws -> JSON {
        guard let tool = ToolTable.byName[call.name] else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from agent/listTools", got: "\"\(call.name)\"")
        }
        if let done = try store.toolCallResult(id: call.session, toolCallId: call.toolCallId) { return done.result }
        let facts = ToolFacts(name: tool.name, readOnly: tool.readOnly, destructive: tool.destructive, openWorld: tool.requiresNetwork)
        switch try store.checkApproval(id: call.session, toolCallId: call.toolCallId, tool: facts, arguments: call.arguments) {
        case .pending(let approval):
            return ["pendingApproval": approval.json]
        case .denied:
            // Journaled as begun and closed with the refusal (nothing runs), so a replay answers the same.
            let refusal = ToolResult.failure("The user did not allow \(call.name); it was not run.", code: "ApprovalDenied")
            if case .recorded(let result, _) = try store.beginToolCall(id: call.session, toolCallId: call.toolCallId, name: call.name,
                                                                      arguments: call.arguments) { return result }
            try store.finishToolCall(id: call.session, toolCallId: call.toolCallId, result: refusal.json, isError: true)
            return refusal.json
        case .allowed, .notNeeded: break
        }
        let conditions = server.agents.currentConditions
        let policy = server.agents.policy(for: conditions)
        if !(tool.requiresNetwork && !policy.allowNetworkTools) {  // offline: the call answers Offline below
            let decision = policy.decide(WorkFacts(needsNetwork: tool.requiresNetwork, heavy: tool.heavy), conditions: conditions,
                                         userConfirmed: call.userConfirmed)
            if case .deferred(let reason, _, _) = decision {
                _ = try store.deferToolCall(id: call.session, toolCallId: call.toolCallId, name: call.name, arguments: call.arguments,
                                            reason: reason)
                throw decision.error(queued: true)!
            }
        }
        switch try store.beginToolCall(id: call.session, toolCallId: call.toolCallId, name: call.name, arguments: call.arguments) {
        case .recorded(let result, _): return result
        case .inProgress:
            throw SessionError(.invalidArgument, "tool call \(call.toolCallId) is running now; wait for its answer",
                               data: ["toolCallId": .string(call.toolCallId)])
        case .started: break
        }
        let result: ToolResult
        if tool.requiresNetwork && !policy.allowNetworkTools {
            result = .failure("\(call.name) needs the network, and the device is offline. \(policy.message ?? "")", code: "Offline")
        } else {
            result = try ToolTable.call(call.name, arguments: call.arguments, server: server, request: ctx)
        }
        try store.finishToolCall(id: call.session, toolCallId: call.toolCallId, result: result.json, isError: result.isError)
        return result.json
    }
}
