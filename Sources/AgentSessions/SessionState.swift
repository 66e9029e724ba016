/// The lifecycle state of an agent session.
///
/// The transition table is exactly the seeds' table and is the only one clients can ask for
/// (`SessionStore.transition`): idle→running; running→waitingForUser|backgrounded|completed|
/// failed; waitingForUser→running|backgrounded; backgrounded→running|completed; `completed` and
/// `failed` are final. One move is made by the server itself, outside the table: a session that
/// goes over its budget is stopped (`failed`, `BudgetExceeded`) from whatever non-final state it
/// is in, because usage can arrive after the front end has already moved on (for example a model
/// answer that lands just after the app was backgrounded).
public enum SessionState: String, Sendable, CaseIterable, Hashable {
    case idle
    case running
    case waitingForUser
    case backgrounded
    case completed
    case failed

    /// The states a client may move this state to, in a stable order.
    public var allowedTransitions: [SessionState] {
        switch self {
        case .idle: [.running]
        case .running: [.waitingForUser, .backgrounded, .completed, .failed]
        case .waitingForUser: [.running, .backgrounded]
        case .backgrounded: [.running, .completed]
        case .completed, .failed: []
        }
    }

    /// Whether `transition(to:)` from this state to `next` is in the table.
    public func canTransition(to next: SessionState) -> Bool {
        allowedTransitions.contains(next)
    }

    /// `completed` and `failed`: nothing leaves them.
    public var isFinal: Bool { self == .completed || self == .failed }

    /// The states `SessionStore.backgroundAll()` checkpoints and moves to `backgrounded`.
    public var isActive: Bool { self == .running || self == .waitingForUser }
}

/// One change of a session's state, as the store reports it after it is durable
/// (the server sends it as `session/didChangeState`).
public struct StateChange: Sendable, Equatable {
    public let id: String
    public let from: SessionState
    public let to: SessionState
    /// Why, when the store knows: `"BudgetExceeded"`, `"background"`, `"resume"`, or the
    /// message of the error a client gave with `failed`.
    public let reason: String?

    public init(id: String, from: SessionState, to: SessionState, reason: String?) {
        self.id = id
        self.from = from
        self.to = to
        self.reason = reason
    }
}
