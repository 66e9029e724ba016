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
    public let logger: Logger
    /// Present when the params carried a `workDoneToken`.
    public let progress: ProgressReporter?
    let cancelled = Atomic<Bool>(false)
    let runningInline = Atomic<Bool>(false)
    let connection: Connection

    init(id: RequestID?, method: String, params: JSON?, logger: Logger, progress: ProgressReporter?,
         connection: Connection) {
        self.id = id
        self.method = method
        self.params = params
        self.logger = logger
        self.progress = progress
        self.connection = connection
    }

    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// True while the handler runs on the reader thread (an `inline` method that could start at
    /// once). Such a handler must stay quick: when it finds its work heavy (a large read, a
    /// hash), it throws `MoveToWorkerPool` before doing anything with side effects, and runs
    /// again on the worker pool.
    public var isRunningInline: Bool { runningInline.load(ordering: .relaxed) }

    /// Throws `RequestCancelled` once the client has cancelled this request.
    public func checkCancellation() throws(RPCError) {
        if isCancelled { throw RPCError.cancelled }
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

/// Thrown by an inline handler to be run again on the worker pool (see `isRunningInline`).
public struct MoveToWorkerPool: Error {
    public init() {}
}
