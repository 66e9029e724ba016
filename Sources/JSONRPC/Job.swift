import JSON

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
/// Every mutable field is guarded by the connection's state lock.
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

    init(method: Method, schedule: Schedule, context: RequestContext, reply: Reply, progressKey: JSON?) {
        self.method = method
        self.schedule = schedule
        self.context = context
        self.reply = reply
        self.progressKey = progressKey
    }
}
