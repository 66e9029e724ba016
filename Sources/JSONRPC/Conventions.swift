import JSON

extension Connection {
    /// What differs between the protocols a connection may speak over the same JSON-RPC
    /// machinery: where a request's progress token is and how its progress goes out, whether a
    /// cancelled request is still answered, and whether handled messages are traced. The server
    /// hands the connection a value (`use(_:)`); this module knows only the LSP-style default.
    public struct Conventions: Sendable {
        /// Turns one request's progress values (`{token, value}`, LSP's `$/progress` params) into
        /// the notifications sent: a method and params, or nil to send nothing for that value.
        public typealias ProgressNotifier = @Sendable (JSON) -> (method: String, params: JSON)?

        /// The progress token in a request's params, or nil when it asks for no progress.
        public var progressToken: @Sendable (_ params: JSON?) -> JSON?
        /// Makes the notifier of one request (it may keep state across that request's values).
        public var progressNotifier: @Sendable () -> ProgressNotifier
        /// Whether a request the client cancelled is answered (`-32800`, LSP) or left unanswered.
        public var answersCancelledRequests: Bool
        /// Whether tracing (`$/setTrace`) may report handled messages as `$/logTrace`.
        public var traces: Bool

        public init(progressToken: @escaping @Sendable (_ params: JSON?) -> JSON?,
                    progressNotifier: @escaping @Sendable () -> ProgressNotifier,
                    answersCancelledRequests: Bool, traces: Bool) {
            self.progressToken = progressToken
            self.progressNotifier = progressNotifier
            self.answersCancelledRequests = answersCancelledRequests
            self.traces = traces
        }

        /// LSP's: `workDoneToken` in the params, `$/progress` out, `-32800` for a cancelled request,
        /// tracing on request.
        public static let lsp = Conventions(
            progressToken: { $0?["workDoneToken"] },
            progressNotifier: { { value in ("$/progress", value) } },
            answersCancelledRequests: true, traces: true)
    }

    /// Switches the connection's conventions (for the messages routed after this call).
    public func use(_ conventions: Conventions) { self.conventionsBox.withLock { $0 = conventions } }

    /// The conventions in force.
    public var conventions: Conventions { conventionsBox.withLock { $0 } }
}
