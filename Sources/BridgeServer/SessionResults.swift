import AgentSessions
import JSON

/// The protocol's session object, declared with the methods that answer it (the store hands out
/// `Session` values). Facts of issue 17 (lineage, compactions, approvals, deferred calls) are
/// sent only when the session has them, so a session that uses none of it looks as it always did.
struct SessionObject: ObjectResult {
    var session: Session

    static let fields: [ResultField<Self>] = [
        .field("id", \.session.id), .field("title", \.session.title), .field("agentType", \.session.agentType),
        .field("state", \.session.state.rawValue), .field("error", \.session.error), .field("config", \.session.config),
        .field("usage", \.session.usage), .field("pendingToolCalls", \.session.pendingToolCalls),
        .field("metadata", \.session.metadata), .field("createdAt", \.session.createdAt), .field("updatedAt", \.session.updatedAt),
        .field("parentId", \.session.lineage?.parentId), .field("parentKind", \.session.lineage?.kind.rawValue),
        .field("forkedAt", { forkedAt($0.session) }),
        .field("compactions", { nonEmpty($0.session.compactions) }),
        .field("approvalPolicy", { policy($0.session) }),
        .field("pendingApprovals", { nonEmpty($0.session.pendingApprovals) }),
        .field("deferredToolCalls", { nonEmpty($0.session.deferredToolCalls) }),
        .field("bytesOnDisk", \.session.bytesOnDisk),
        .field("replication", \.session.replication?.rawValue),
    ]

    /// Where a fork was taken (a child stream has no fork point).
    private static func forkedAt(_ s: Session) -> Lineage? {
        guard let lineage = s.lineage, lineage.kind == .fork else { return nil }
        return lineage
    }
    private static func nonEmpty<V>(_ items: [V]) -> [V]? { items.isEmpty ? nil : items }
    /// The policy, unless it is `none`. (Not a ternary: `cond ? nil : json` makes that `nil` the
    /// JSON `null`, since `JSON` is nil-literal expressible, and the field would be sent.)
    private static func policy(_ s: Session) -> JSON? {
        guard s.approvalPolicy != .none else { return nil }
        return s.approvalPolicy.json
    }
}

/// `session/resume`'s result: the session, its last messages, its unfinished tool calls and the
/// partial results of its last checkpoint that carried any.
struct ResumeObject: ObjectResult {
    var resumed: ResumeResult

    static let fields: [ResultField<Self>] = [
        .field("session", { SessionObject(session: $0.resumed.session) }), .field("messagesTail", \.resumed.messagesTail),
        .field("pendingToolCalls", \.resumed.pendingToolCalls), .nullable("partialResults", \.resumed.partialResults),
    ]
}
