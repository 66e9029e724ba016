import JSON
import Synchronization

/// Where a request's answer goes.
enum Reply: Sendable {
    /// Straight to the client.
    case direct
    /// Into a batch response that is sent when its last member is answered.
    case batch(BatchCollector)
    /// Nowhere: a notification.
    case none
}

/// One request or notification on its way through the connection.
///
/// Every mutable field is guarded by the connection's state lock, except `answered`.
final class Job: @unchecked Sendable {
    enum Status { case queued, running, done, cancelled }

    let method: Method
    let schedule: Schedule
    let context: RequestContext
    let reply: Reply
    let progressKey: JSON?
    var status: Status = .queued
    /// Earlier unfinished jobs this one waits for.
    var blockers = 0
    /// Later jobs waiting for this one.
    var dependents: [Job] = []
    /// Monotonic nanoseconds at which its handler was allowed to start (0: not yet).
    var startedAt: UInt64 = 0
    /// Set by whoever answers the request first: its handler, or a cancel that abandoned it
    /// (see `Connection.cancel(id:)`); a request is answered at most once.
    private let answered = Atomic<Bool>(false)

    /// Claims the right to answer; true exactly once.
    func claimAnswer() -> Bool {
        !answered.exchange(true, ordering: .acquiringAndReleasing)
    }

    var isAnswered: Bool { answered.load(ordering: .acquiring) }

    /// Set by the handler's path from just before it claims the answer until the answer is
    /// written (see `Connection.execute`): an answer claimed is not yet an answer sent.
    let writingAnswer = Atomic<Bool>(false)

    /// Whether the client has its answer, or will never get one from this job's handler (a
    /// cancel answered it): what `shutdown` waits for.
    var isAnswerSent: Bool { isAnswered && !writingAnswer.load(ordering: .acquiring) }

    /// The trace level in force when the message was read (see `Connection.traceHandled`).
    let traceAtAdmission: Connection.Trace

    init(method: Method, schedule: Schedule, context: RequestContext, reply: Reply, progressKey: JSON?,
         traceAtAdmission: Connection.Trace) {
        self.traceAtAdmission = traceAtAdmission
        self.method = method
        self.schedule = schedule
        self.context = context
        self.reply = reply
        self.progressKey = progressKey
    }
}
