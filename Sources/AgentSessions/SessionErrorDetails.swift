import JSON

extension SessionError {
    /// The facts of a failure a client acts on, typed; each case is one shape of the protocol's
    /// `error.data` (its keys and their order are `SessionErrorData`'s, the faces' one mapping).
    public enum Details: Sendable, Equatable {
        case none
        /// The session (or other thing) concerned or not found.
        case id(String)
        /// A refused move between states; the moves `from` allows are `from.allowedTransitions`.
        case transition(from: SessionState, to: SessionState)
        /// A failed system call: its errno, and the file when one is concerned.
        case system(errno: Int32, path: String?)
        /// A file the operation needed (a pricing file).
        case path(String)
        /// A session's tool call that is not there.
        case toolCall(sessionId: String, toolCallId: String)
        /// The tool call concerned.
        case toolCallId(String)
        /// A tool call id already used by a call of another tool (`name`).
        case toolCallOf(toolCallId: String, name: String)
        /// A tool call id whose approval was asked for another call (the tool `name`, or other
        /// arguments).
        case approvalOf(toolCallId: String, approvalId: String, name: String)
        /// A tool call the user already answered.
        case answered(toolCallId: String, decision: Approval.Decision)
        /// A session that went over its budget: the error it recorded then.
        case budget(sessionId: String, error: JSON)
        /// A session in a final state.
        case final(sessionId: String, state: SessionState)
        /// A message id, given as the param `param`, that the session does not have.
        case message(param: String, id: String)
        /// A session's compaction that is not there.
        case sessionCompaction(sessionId: String, compactionId: String)
        /// The compaction concerned, and why when the code does not say it.
        case compaction(String, reason: String?)
        /// Another owner's lease on the session, until `expiresAtNanos`.
        case lease(owner: String, expiresAtNanos: Int64)
        /// Work the device policy deferred (`WorkDecision.deferred`).
        case deferred(reason: String, queued: Bool, confirmable: Bool)
        /// A value over its bound: the bound and the value's size.
        case tooLarge(limit: Int64, size: Int64)
        /// A bound of an operation that was reached: which (`reason`), its value, and the size
        /// that went over it when there is one.
        case limit(reason: String, limit: Int64, size: Int64?)
        /// A param at fault.
        case field(String)
        /// A param at fault, and why.
        case fieldReason(field: String, reason: String)
        /// Why, in one word of the schema (`damaged`, `matchLimit`).
        case reason(String)
        /// A file to import that is refused: why, the member at fault and the id that occurs twice,
        /// when there are.
        case unimportable(reason: String, field: String?, id: String?)
    }
}
