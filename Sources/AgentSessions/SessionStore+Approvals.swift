import JSON

/// What `checkApproval` decided for one tool call.
public enum ApprovalCheck: Sendable, Equatable {
    /// The policy asks nothing for this call: run it.
    case notNeeded
    /// The user allowed it (now, or by a remembered decision): run it.
    case allowed
    /// The user refused it (now, or by a remembered decision): do not run it.
    case denied
    /// Waiting for the user: nothing has run. Answer with `approve`.
    case pending(Approval)
}

extension SessionStore {
    /// Changes the session's approval policy, durably. Calls already pending stay pending.
    public func setApprovalPolicy(id: String, _ policy: ApprovalPolicy) throws(SessionError) -> Session {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        if try h.session.extras.approvalPolicy != policy {
            try commit(h, [["t": "policy", "policy": policy.storedJSON, "at": .int(now())]])
        }
        return try view(h)
    }

    /// Decides whether tool call `toolCallId` may run under the session's approval policy. A call
    /// that needs consent and has no decision is recorded as pending (durably, with an approval
    /// id: it survives a crash and shows in `Session.pendingApprovals`) and nothing runs. Asking
    /// again for the same `toolCallId` returns the same pending approval, or its decision — only
    /// for the same tool with the same arguments (`ArgumentsDigest`): an approval covers exactly
    /// the call it was asked for, so another tool or other arguments under that id are refused
    /// (`InvalidArgument`, nothing recorded). `tool.effect` decides whether the policy asks, and a
    /// remembered decision answers only calls of the same tool with the same effect. `origin` is
    /// recorded with a new approval (`Approval.origin`).
    public func checkApproval(id: String, toolCallId: String, tool: ToolFacts, arguments: JSON = .object([:]),
                              origin: String? = nil) throws(SessionError) -> ApprovalCheck {
        guard !toolCallId.isEmpty else { throw .invalid("toolCallId must not be empty") }
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        if let known = try decided(h.session, toolCallId, tool, arguments) { return known }
        guard try h.session.extras.approvalPolicy.requiresConsent(tool) else { return .notNeeded }
        if let remembered = try h.session.extras.remembered[Approval.rememberKey(tool.name, tool.effect)] {
            return remembered == .allow ? .allowed : .denied
        }
        try prepareWrite(h)
        if let known = try decided(h.session, toolCallId, tool, arguments) { return known }
        let aid = SessionNames.randomId("apr_")
        var ask: JSONObject = ["t": "ask", "aid": .string(aid), "call": .string(toolCallId), "name": .string(tool.name),
                               "args": arguments, "fx": .string(tool.effect.rawValue), "at": .int(now())]
        if let origin { ask["by"] = .string(origin) }
        try commit(h, [.object(ask)])
        return .pending(try committed(h.session.extras.approvals.last, "approval", h))
    }

    /// For callers without tool call ids of their own (MCP's `tools/call`): the newest approval
    /// of a call of `tool` whose arguments `matches` accepts and whose call has not begun yet
    /// (pending, or decided and waiting for the caller to run or refuse it), whose `toolCallId`
    /// the caller then uses; nil when there is none (a new call: the caller makes a new id). And
    /// whether the session's policy asks about `tool` at all: with no open approval and
    /// `policyAsks` false the call may run without `checkApproval` (one lock for the common case).
    public func openApproval(id: String, tool: ToolFacts,
                             matches: (JSON) -> Bool) throws(SessionError) -> (open: Approval?, policyAsks: Bool) {
        let h = try lockedToLook(id)
        defer { h.lock.unlock() }
        let d = try h.session
        let open = d.extras.approvals.last { $0.name == tool.name && d.toolCalls[$0.toolCallId] == nil && matches($0.arguments) }
        return (open, d.extras.approvalPolicy.requiresConsent(tool))
    }

    /// The approval `approvalId` of the session, nil when it has none by that id.
    public func approval(id: String, approvalId: String) throws(SessionError) -> Approval? {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        return try h.session.extras.approvals.last { $0.approvalId == approvalId }
    }

    /// The approval already asked for `toolCallId`, nil when none; one asked for another tool or
    /// other arguments is `InvalidArgument`.
    private func decided(_ d: SessionData, _ toolCallId: String, _ tool: ToolFacts,
                         _ arguments: JSON) throws(SessionError) -> ApprovalCheck? {
        guard let a = d.extras.approvals.last(where: { $0.toolCallId == toolCallId }) else { return nil }
        guard a.name == tool.name, try ArgumentsDigest.of(a.arguments) == ArgumentsDigest.of(arguments) else {
            throw SessionError(.invalidArgument,
                               "tool call \(toolCallId) was asked for as \(a.name) with other arguments; an approval covers only "
                                   + "the tool and arguments it was asked for: give this call a toolCallId of its own",
                               .approvalOf(toolCallId: toolCallId, approvalId: a.approvalId, name: a.name))
        }
        switch a.decision {
        case .allow?: return .allowed
        case .deny?: return .denied
        case nil: return .pending(a)
        }
    }

    /// Answers a pending approval, durably. `remember` applies the decision to later calls of the
    /// same tool with the same effect in this session. Returns the approval (name and arguments,
    /// for the caller to run an allowed call or record a refused one). Answering again with the
    /// same decision changes nothing; with the other one it is `InvalidArgument`.
    public func approve(id: String, toolCallId: String, decision: Approval.Decision,
                        remember: Bool = false) throws(SessionError) -> Approval {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        guard let a = try h.session.extras.approvals.last(where: { $0.toolCallId == toolCallId }) else {
            throw SessionError(.notFound, "session \(id) has no approval for tool call \(toolCallId)",
                               .toolCall(sessionId: id, toolCallId: toolCallId))
        }
        if let earlier = a.decision {
            guard earlier == decision else {
                throw SessionError(.invalidArgument, "tool call \(toolCallId) was already answered \(earlier.rawValue)",
                                   .answered(toolCallId: toolCallId, decision: earlier))
            }
            return a
        }
        try commit(h, [["t": "decide", "aid": .string(a.approvalId), "decision": .string(decision.rawValue),
                        "remember": .bool(remember), "at": .int(now())]])
        return try committed(h.session.extras.approvals.last { $0.toolCallId == toolCallId }, "decision", h)
    }

    /// Records that the device policy deferred tool call `toolCallId` (durably; visible in
    /// `Session.deferredToolCalls` until the call is begun or finished). Recording it again
    /// replaces the reason.
    public func deferToolCall(id: String, toolCallId: String, name: String, arguments: JSON,
                              reason: String) throws(SessionError) -> DeferredCall {
        guard !toolCallId.isEmpty else { throw .invalid("toolCallId must not be empty") }
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        if try h.session.toolCalls[toolCallId] != nil {
            throw SessionError(.invalidArgument, "tool call \(toolCallId) has already begun; it cannot be deferred",
                               .toolCallId(toolCallId))
        }
        try refuseIfFinal(h.session, doing: "defer tool calls")
        try prepareWrite(h)
        try commit(h, [["t": "defer", "call": .string(toolCallId), "name": .string(name), "args": arguments,
                        "reason": .string(reason), "at": .int(now())]])
        return try committed(h.session.extras.deferred.last, "deferral", h)
    }

    /// The open deferral of a call of `name` in session `id` whose arguments `matches` accepts
    /// (the one with id `preferring` when there is such), nil when none: how a caller without
    /// tool call ids (MCP) finds the deferred call its retry is.
    public func openDeferral(id: String, name: String, preferring: String? = nil,
                             matches: (JSON) -> Bool) throws(SessionError) -> DeferredCall? {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        let candidates = try h.session.extras.deferred.filter { $0.name == name }
        if let preferring, let c = candidates.first(where: { $0.toolCallId == preferring }) { return c }
        return candidates.first { matches($0.arguments) }
    }

    /// Every deferred tool call of the sessions this store sees, with its session id, oldest first:
    /// what to offer (or run) when the conditions allow again.
    public func deferredToolCalls() -> [(sessionId: String, call: DeferredCall)] {
        var out: [(sessionId: String, call: DeferredCall)] = []
        for h in allHandles() {
            h.lock.lock()
            defer { h.lock.unlock() }
            guard (try? current(h)) != nil, let d = h.data else { continue }
            for c in d.extras.deferred { out.append((d.id, c)) }
        }
        return out.sorted { ($0.call.atNanos, $0.sessionId) < ($1.call.atNanos, $1.sessionId) }
    }
}
