import JSON

extension RequestContext {
    /// A context for this request's work continuing after the request itself has been answered
    /// (e.g. a long job the client polls for): the same id, method, params (as sent and as
    /// decoded) and logger, its own cancellation flag (set by `markCancelled`, never by the client
    /// cancelling the original request), and progress going to `progress` instead of the client (LSP-shaped values:
    /// `{token, value: {kind, message?, percentage?}}`, at most ten a second).
    public func detached(progress sink: @escaping @Sendable (JSON) -> Void) -> RequestContext {
        RequestContext(id: id, method: method, params: params, decoded: decoded, logger: logger,
                       progress: ProgressReporter(token: .string("detached"), send: sink), connection: connection,
                       answeredByConnection: false)
    }

    /// Flags the work as cancelled: handlers see `isCancelled` and stop at their next check.
    public func markCancelled() { cancelled.store(true, ordering: .relaxed) }
}
