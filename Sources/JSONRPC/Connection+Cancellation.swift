import JSON

/// `$/cancelRequest` and `window/workDoneProgress/cancel`: what a cancel does to a queued
/// request, to a running one that only reads, and to a running one that may write.
extension Connection {
    /// `$/cancelRequest`: a queued request is answered `-32800` now. A running one is
    /// flagged (handlers check it between steps); when it only reads (`Schedule.onlyReads`)
    /// it is also answered `-32800` now and abandoned: a handler stuck in a system call (a hung
    /// mount) cannot be interrupted, but nothing it would have done is lost, its result is
    /// discarded when it returns, and it keeps its claims until then, so a later write to the
    /// same file still waits for it. A running request that may write answers its real outcome.
    /// Unknown or finished ids are ignored.
    public func cancel(id: RequestID) {
        if cancelDeferred(id: id) { return }
        enum Action { case none, dequeue(Job), abandon(Job) }
        let action: Action = state.withLock { s in
            guard let job = s.byID[id] else { return .none }
            switch job.status {
            case .queued: return .dequeue(job)
            case .running:
                job.context.cancelled.store(true, ordering: .relaxed)
                guard job.schedule.onlyReads else { return .none }
                return .abandon(job)
            case .done, .cancelled: return .none
            }
        }
        switch action {
        case .none:
            return
        case .dequeue(let job):
            job.context.cancelled.store(true, ordering: .relaxed)
            _ = job.claimAnswer()
            if conventions.answersCancelledRequests { deliver(OutgoingMessage.error(id: id, .cancelled), to: job.reply) }
            finish(job, as: .cancelled)
        case .abandon(let job):
            guard job.claimAnswer() else { return }  // its handler has just answered
            pool.abandonOne()
            forget(job)
            if conventions.answersCancelledRequests {
                job.context.progress?.end()
                deliver(OutgoingMessage.error(id: id, .cancelled), to: job.reply)
            }
            traceHandled(job, answer: nil, abandoned: true)
        }
    }

    /// `window/workDoneProgress/cancel`: cancels the request that owns the token.
    public func cancel(progressToken token: JSON) {
        guard let id = state.withLock({ $0.byToken[Self.tokenString(token)] }) else { return }
        cancel(id: id)
    }

    static func tokenString(_ token: JSON) -> String {
        switch token {
        case .int(let i): "i:\(i)"
        case .string(let s): "s:\(s)"
        default: "?"
        }
    }
}
