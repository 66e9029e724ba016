import JSON

/// Which messages a read or a deletion concerns: a role and/or exact values of top-level
/// metadata keys (all must match; a message without metadata matches no metadata key).
public struct MessageFilter: Sendable, Equatable {
    public var role: MessageRole?
    public var metadata: JSONObject

    public init(role: MessageRole? = nil, metadata: JSONObject = JSONObject()) {
        self.role = role
        self.metadata = metadata
    }

    public var isEmpty: Bool { role == nil && metadata.isEmpty }

    public func matches(_ m: Message) -> Bool {
        if let role, m.role != role { return false }
        guard !metadata.isEmpty else { return true }
        guard let md = m.metadata?.objectValue else { return false }
        for (k, v) in metadata.members where md[k] != v { return false }
        return true
    }

    /// Parses `{role?, metadata?: {key: value}}`.
    public init(json: JSON) throws(SessionError) {
        guard case .object(let o) = json else { throw .invalid("where must be an object") }
        for k in o.keys where k != "role" && k != "metadata" { throw .invalid("where knows role and metadata, not \(k)") }
        if let r = o["role"], !r.isNull {
            guard let s = r.stringValue, let role = MessageRole(rawValue: s) else {
                throw .invalid("where.role must be one of user, assistant, system, tool")
            }
            self.role = role
        }
        metadata = JSONObject()
        if let md = o["metadata"], !md.isNull {
            guard let mo = md.objectValue else { throw .invalid("where.metadata must be an object") }
            metadata = mo
        }
    }
}

/// A page of `SessionStore.messagePage`: the messages in journal order, whether more match
/// beyond it in the direction read, and where to go on (`after` the last, or `before` the first
/// when reading the last ones).
public struct MessagePage: Sendable, Equatable {
    public var messages: [Message]
    public var hasMore: Bool
    public var nextAfter: String?
    public var nextBefore: String?
}

/// What `SessionStore.messagePage` reads: the entries strictly between `after` and `before`
/// that match `filter`, the first `limit` of them, or (with `last`) the last `last`.
public struct MessageQuery: Sendable, Equatable {
    public var after: String?
    public var before: String?
    public var last: Int?
    public var limit: Int
    public var filter: MessageFilter
    public var includeCompacted: Bool

    public init(after: String? = nil, before: String? = nil, last: Int? = nil, limit: Int = 100,
                filter: MessageFilter = MessageFilter(), includeCompacted: Bool = false) {
        self.after = after
        self.before = before
        self.last = last
        self.limit = limit
        self.filter = filter
        self.includeCompacted = includeCompacted
    }
}
