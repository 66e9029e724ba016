import AgentSessions
import BridgeServer
import Dispatch
import JSON
import JSONRPC
import Synchronization
import SystemSupport

/// The approval step of `tools/call` in each era (`MCPApprovals` says what each answers).
extension MCPApprovals {
    /// The 2026-07-28 era: a retry carrying `requestState` is verified and decided; a first call
    /// needing consent answers `input_required` (a client declaring `elicitation`) or the
    /// `ApprovalRequired` error result (one that did not).
    static func gateModern(_ p: CallMCPTool.Params, _ tool: Tool, _ call: Call, _ envelope: MCPEnvelope) throws -> Gate {
        let services = call.services
        let (session, store) = try call.mcp().session.current()
        // A retry answering the device step's question (`MCPDevice`) is a first call here.
        if (p.requestState != nil || p.inputResponses != nil) && !MCPDevice.isConfirmation(p, call) {
            return try retry(p, tool, call, store, session: session)
        }
        let (toolCallId, consent) = try check(p, tool, store, session: session, call)
        switch consent {
        case .run: return .run(toolCallId: toolCallId)
        case .answered(let result): return .answer(result)
        case .pending(let approval):
            guard formElicitation(envelope.capabilities) else {
                return .answer(required(approval, session: session,
                                        why: "this client declared no elicitation capability, so it cannot be asked here."))
            }
            let state = MCPRequestState(method: CallMCPTool.method, tool: p.name, argumentsDigest: try MCPRequestState.digest(p.arguments),
                                        session: session, approvalId: approval.approvalId, expiresAtMs: MCPRequestState.expiry(services))
            return .answer(try MCPRequestState.inputRequired("approve", params: elicitation(approval, session: session, modern: true),
                                                             state: state, call))
        }
    }

    /// The client's retry: the state must be this process's, unexpired, and for this very call;
    /// the answer decides (unless the host decided first), then the call runs or is refused. A
    /// retry of a call that already ran answers its recorded result.
    private static func retry(_ p: CallMCPTool.Params, _ tool: Tool, _ call: Call, _ store: SessionStore, session: String) throws -> Gate {
        guard let text = p.requestState else {
            throw RPCError.invalidParams(field: "requestState", expected: "the requestState of the input_required result answered", got: "nothing")
        }
        let state = try MCPRequestState.verified(text, tool: p.name, digest: { try MCPRequestState.digest(p.arguments) }, session: session,
                                                 call)
        guard let approval = try store.approval(id: session, approvalId: state.approvalId) else {
            throw RPCError.invalidParams(field: "requestState", expected: MCPRequestState.expectedOnRetry,
                                         got: "a requestState naming an approval the session does not have")
        }
        if let done = try store.toolCallResult(id: session, toolCallId: approval.toolCallId) { return .answer(done.result) }
        guard let answer = p.inputResponses?["approve"] else {
            throw RPCError.invalidParams(field: "inputResponses.approve", expected: "the answer to the approve input request", got: "nothing")
        }
        guard let (decision, remember) = decision(of: answer) else {
            throw RPCError.invalidParams(field: "inputResponses.approve", expected: "an elicitation result {action: accept|decline|cancel, content?}",
                                         got: answer.typeName)
        }
        return try settle(store, session: session, approval, decision, remember: remember, p, tool)
    }

    /// Records the user's answer (unless the host decided first), then passes the consent step
    /// again: the call runs under the approval's tool call id, or answers its refusal.
    private static func settle(_ store: SessionStore, session: String, _ approval: Approval, _ decision: Approval.Decision,
                               remember: Bool, _ p: CallMCPTool.Params, _ tool: Tool) throws -> Gate {
        try decide(store, session: session, approval, decision, remember: remember)
        switch try SessionMethods.consent(store, session: session, toolCallId: approval.toolCallId, tool: tool, arguments: p.arguments,
                                          origin: origin) {
        case .run: return .run(toolCallId: approval.toolCallId)
        case .answered(let result): return .answer(result)
        case .pending(let a): return .answer(required(a, session: session, why: "it is still undecided."))
        }
    }

    /// The 2025 era: a call needing consent sends `elicitation/create` to a client that declared
    /// it and waits for the answer on this worker (at most `--approval-timeout`, ending early when
    /// the call is cancelled); no answer, or a client that cannot be asked, is `ApprovalRequired`.
    static func gate2025(_ p: CallMCPTool.Params, _ tool: Tool, _ call: Call) throws -> Gate {
        let services = call.services
        let (session, store) = try call.mcp().session.current()
        let (toolCallId, consent) = try check(p, tool, store, session: session, call)
        switch consent {
        case .run: return .run(toolCallId: toolCallId)
        case .answered(let result): return .answer(result)
        case .pending(let approval):
            guard try call.mcp().approvals.clientElicits2025 else {
                return .answer(required(approval, session: session, why: "this client declared no elicitation capability, so it cannot be asked here."))
            }
            let answer = try ask(call, elicitation(approval, session: session, modern: false), within: services.configuration.mcpApprovalTimeout)
            guard case .success(let result) = answer, let (decision, remember) = decision(of: result) else {
                let why: String
                switch answer {
                case .failure(let e): why = "the client's elicitation failed (\(e.message))."
                case .success(.null): why = "the client did not answer the elicitation in time."
                case .success: why = "the client's elicitation answer was not an elicitation result."
                }
                return .answer(required(approval, session: session, why: why))
            }
            return try settle(store, session: session, approval, decision, remember: remember, p, tool)
        }
    }

    /// Sends `elicitation/create` and waits for the answer at most `bound` (`.success(.null)`
    /// when none came); a cancelled call stops waiting (`RequestCancelled`). The answer is
    /// delivered on the reading thread, which never waits here.
    static func ask(_ call: Call, _ params: JSON, within bound: Duration) throws -> Result<JSON, RPCError> {
        let box = Mutex<Result<JSON, RPCError>?>(nil)
        let arrived = DispatchSemaphore(value: 0)
        try call.connection().request("elicitation/create", params) { answer in
            box.withLock { $0 = answer }
            arrived.signal()
        }
        let deadline = MonotonicClock.nanos() &+ UInt64(max(0, bound.milliseconds)) * 1_000_000
        while true {
            if let answer = box.withLock({ $0 }) { return answer }
            try call.request?.checkCancellation()
            let now = MonotonicClock.nanos()
            if now >= deadline { return .success(.null) }
            _ = arrived.wait(timeout: .now() + .nanoseconds(Int(min(deadline - now, 100_000_000))))
        }
    }
}

extension Duration {
    /// Whole milliseconds (rounded down).
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
