import JSON

/// What `SessionStore.list` keeps: every condition given must hold. `metadata` compares the
/// session metadata's top-level keys exactly (a session without object metadata matches none);
/// `titleContains` ignores case.
public struct SessionFilter: Sendable, Equatable {
    public var state: SessionState?
    public var agentType: String?
    public var parentId: String?
    public var titleContains: String?
    public var metadata = JSONObject()
    /// Only sessions changed at or after this time (nanoseconds since 1970).
    public var updatedSinceNanos: Int64?

    public init(state: SessionState? = nil) { self.state = state }

    func matches(_ d: SessionData) -> Bool {
        if let state, d.state != state { return false }
        if let agentType, d.agentType != agentType { return false }
        if let parentId, d.extras.lineage?.parentId != parentId { return false }
        if let updatedSinceNanos, d.updatedAt < updatedSinceNanos { return false }
        if let titleContains, !titleContains.isEmpty, !d.title.lowercased().contains(titleContains.lowercased()) { return false }
        if !metadata.isEmpty {
            guard let md = d.metadata?.objectValue else { return false }
            for (k, v) in metadata.members where md[k] != v { return false }
        }
        return true
    }
}

/// The order of `SessionStore.list`, named in its cursors.
public enum SessionOrder: String, Sendable {
    /// Most recently changed first, then by id (the protocol's `session/list`).
    case updatedDescending = "u1"
    /// Oldest first, then by id (the ACP face's listing).
    case created = "c1"
}
