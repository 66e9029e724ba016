import JSON
import Logging
import Synchronization

/// What a handler gets: its params, a cancellation flag, progress, and a way to notify.
///
/// Thread rules: a context belongs to one request; `isCancelled` may be read from any
/// thread and is set by the reader thread when `$/cancelRequest` arrives.
public final class RequestContext: Sendable {
    public let id: RequestID?
    public let method: String
    public let params: JSON?
    /// The params as the method's planner decoded them (see `Method.Planner`).
    public let decoded: (any Sendable)?
    public let logger: Logger
    /// Present when the params carried a `workDoneToken`.
    public let progress: ProgressReporter?
    let cancelled = Atomic<Bool>(false)
    let connection: Connection
    /// Whether the connection answers this request (false: a detached context, see `detached`).
    let answeredByConnection: Bool
    /// What `afterAnswer` left to run.
    private let afterwards = Mutex<[@Sendable () -> Void]>([])

    init(id: RequestID?, method: String, params: JSON?, decoded: (any Sendable)?, logger: Logger,
         progress: ProgressReporter?, connection: Connection, answeredByConnection: Bool = true) {
        self.id = id
        self.method = method
        self.params = params
        self.decoded = decoded
        self.logger = logger
        self.progress = progress
        self.connection = connection
        self.answeredByConnection = answeredByConnection
    }

    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Throws `RequestCancelled` once the client has cancelled this request.
    public func checkCancellation() throws(RPCError) {
        if isCancelled { throw RPCError.cancelled }
    }

    /// Runs `work` once this request has been answered (its answer written, or discarded after a
    /// cancellation), still inside the request's schedule: a later request whose claims conflict
    /// with this one's starts only after `work` has returned, and the end of the connection waits
    /// for it as for the handler. For bookkeeping the answer does not depend on (the record of a
    /// read), which then does not delay the answer. On a detached context (work continuing after
    /// the request was answered, see `detached`) `work` runs at once.
    public func afterAnswer(_ work: @escaping @Sendable () -> Void) {
        guard answeredByConnection else { return work() }
        afterwards.withLock { $0.append(work) }
    }

    /// Runs what `afterAnswer` left, once (the connection calls it when the request is answered).
    func runAfterAnswer() {
        for work in afterwards.withLock({ w in defer { w = [] }; return w }) { work() }
    }

    /// Sends a notification to the client.
    public func notify(_ method: String, _ params: JSON?) {
        connection.notify(method, params)
    }

    /// The connection serving this request (to reach its cancellation and exit controls).
    public var serving: Connection { connection }

    /// Named params as an object (an absent `params` reads as `{}`).
    public func paramsObject() throws(RPCError) -> Params {
        try Params(params)
    }
}
