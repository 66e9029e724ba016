import JSON
import SystemSupport

/// What `recordUsage` reports.
public struct UsageReport: Sendable, Equatable {
    public let usage: Usage
    public let remaining: BudgetRemaining
    /// The limits now exceeded; when not empty the session has been moved to `failed`.
    public let exceeded: [String]
    public let session: Session
    /// The model id of this turn when the price table does not know it: the turn was counted
    /// but not priced (its cost is 0, so `maxCostUSD` cannot see it).
    public var unpricedModel: String? = nil
}

/// What `resume` hands back to the front end.
public struct ResumeResult: Sendable, Equatable {
    public let session: Session
    /// The last messages (up to 50), oldest first.
    public let messagesTail: [Message]
    public let pendingToolCalls: [ToolCallRecord]
    /// The partial results of the last checkpoint that carried any.
    public let partialResults: JSON?
}

extension SessionStore {
    /// Moves a session along the state table (see `SessionState`). `error` is kept with a move to
    /// `failed`. Refused moves throw `InvalidTransition` with `from`, `to` and `allowed`; a move to
    /// the state the session is already in is a no-op (no record, no notification), so a retry succeeds.
    public func transition(id: String, to: SessionState,
                           error: JSON? = nil) throws(SessionError) -> (session: Session, from: SessionState) {
        let h = try handle(id)
        h.lock.lock()
        let result: (session: Session, from: SessionState)
        do {
            defer { h.lock.unlock() }
            try current(h)
            let from = try h.session.state
            // Already there (a retry whose answer was lost): nothing is written, nothing is sent.
            if from == to { return (try view(h), from) }
            guard from.canTransition(to: to) else { throw .invalidTransition(from, to) }
            try prepareWrite(h)
            let from2 = try h.session.state  // the lease may have brought a newer state
            if from2 == to { return (try view(h), from2) }
            guard from2.canTransition(to: to) else { throw .invalidTransition(from2, to) }
            var r: JSONObject = ["t": "state", "from": .string(from2.rawValue), "to": .string(to.rawValue)]
            if to == .failed, let error { r["error"] = error }
            r["at"] = .int(now())
            try commit(h, [.object(r)])
            result = (try view(h), from2)
        }
        notify([StateChange(id: id, from: result.from, to: to, reason: reason(of: error))])
        return result
    }

    private func reason(of error: JSON?) -> String? {
        error?["message"]?.stringValue ?? error?["code"]?.stringValue ?? error?.stringValue
    }

    /// Counts one turn and prices it. Going over any limit fails the session with
    /// `BudgetExceeded` in the same durable record, and the report says so. Refused on a
    /// `completed` session, and on a `failed` one (`BudgetExceeded` if that is why it failed).
    /// `costUSD`, when given, is the turn's cost as the agent itself reported it (the ACP face's
    /// `usage_update`), counted instead of the price table's.
    public func recordUsage(id: String, inputTokens: Int, outputTokens: Int,
                            model: String? = nil, costUSD: Double? = nil) throws(SessionError) -> UsageReport {
        guard inputTokens >= 0, outputTokens >= 0 else { throw .invalid("token counts must be >= 0") }
        if let costUSD { guard costUSD >= 0, costUSD.isFinite else { throw .invalid("cost must be a finite number >= 0") } }
        let h = try handle(id)
        h.lock.lock()
        let report: UsageReport
        var change: StateChange?
        do {
            defer { h.lock.unlock() }
            try current(h)
            try refuseIfFinal(h.session, doing: "record usage")
            try prepareWrite(h)
            let d = try h.session
            try refuseIfFinal(d, doing: "record usage")
            let quote = pricing.quote(model: model ?? d.config.model, tier: d.config.modelTier)
            let cost = costUSD ?? pricing.cost(inputTokens: inputTokens, outputTokens: outputTokens,
                                               model: model ?? d.config.model, tier: d.config.modelTier)
            var after = d.usage
            after.inputTokens += inputTokens
            after.outputTokens += outputTokens
            after.turns += 1
            after.estimatedCostUSD += cost
            let exceeded = Budget.exceeded(d.config, after)
            var r: JSONObject = ["t": "usage", "in": JSON(inputTokens), "out": JSON(outputTokens)]
            if let model { r["model"] = .string(model) }
            r["cost"] = .double(cost)
            if costUSD == nil, case .unpriced(let m) = quote { r["unpriced"] = .string(m) }
            if !exceeded.isEmpty {
                r["fail"] = [
                    "code": "BudgetExceeded",
                    "message": .string("the session went over its budget (\(exceeded.joined(separator: ", ")))"),
                    "exceeded": .array(exceeded.map(JSON.string)), "usage": after.stored, "limits": d.config.stored,
                ]
                change = StateChange(id: id, from: d.state, to: .failed, reason: "BudgetExceeded")
            }
            r["at"] = .int(now())
            try commit(h, [.object(r)])
            let s = try view(h)
            var made = UsageReport(usage: s.usage, remaining: Budget.remaining(s.config, s.usage), exceeded: exceeded, session: s)
            if costUSD == nil, case .unpriced(let m) = quote { made.unpricedModel = m }
            report = made
        }
        if let change { notify([change]) }
        return report
    }

    func refuseIfFinal(_ d: SessionData, doing what: String) throws(SessionError) {
        guard d.state.isFinal else { return }
        if let error = d.error, error["code"]?.stringValue == "BudgetExceeded" {
            throw SessionError(.budgetExceeded, "session \(d.id) went over its budget; cannot \(what)",
                               .budget(sessionId: d.id, error: error))
        }
        throw SessionError(.invalidArgument, "session \(d.id) is \(d.state.rawValue); cannot \(what)",
                           .final(sessionId: d.id, state: d.state))
    }

    /// Records a checkpoint: the front end's pending tool calls (replacing the ones it declared
    /// before; `nil` keeps them) and its partial results (`nil` keeps the last ones). Durable.
    public func checkpoint(id: String, pendingToolCalls: [ToolCallRecord]? = nil,
                           partialResults: JSON? = nil) throws(SessionError) -> (checkpointId: String, at: String) {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        let cid = SessionNames.randomId("ckpt_")
        let at = now()
        var r: JSONObject = ["t": "ckpt", "cid": .string(cid)]
        if let pendingToolCalls { r["pending"] = .array(pendingToolCalls.map(\.stored)) }
        if let partialResults, !partialResults.isNull { r["partial"] = partialResults }
        r["at"] = .int(at)
        try commit(h, [.object(r)])
        return (cid, Timestamp.iso8601(nanos: at))
    }

    /// Takes the session over (lease), moves it from `backgrounded` to `running`, and returns
    /// what the front end needs to continue. Other non-final states are resumed as they are;
    /// final sessions are returned read-only.
    public func resume(id: String) throws(SessionError) -> ResumeResult {
        let h = try handle(id)
        h.lock.lock()
        let result: ResumeResult
        var change: StateChange?
        do {
            defer { h.lock.unlock() }
            try current(h)
            if try !h.session.state.isFinal {
                try prepareWrite(h)
                if try h.session.state == .backgrounded {
                    try commit(h, [["t": "state", "from": "backgrounded", "to": "running", "reason": "resume",
                                    "at": .int(now())]])
                    change = StateChange(id: id, from: .backgrounded, to: .running, reason: "resume")
                }
            }
            let d = try h.session
            let tail = try readMessages(h, d.messages.suffix(50))
            let partial = try d.checkpoint?.partial.map { ref throws(SessionError) in try readRecord(h, ref)["partial"] ?? .null }
            let s = try view(h)
            result = ResumeResult(session: s, messagesTail: tail, pendingToolCalls: s.pendingToolCalls, partialResults: partial)
        }
        if let change { notify([change]) }
        return result
    }
}
