import JSON

/// How much a workspace keeps of its sessions (`<sessions>/retention.json`, replaced
/// crash-safely). Every limit is optional; with none set nothing is ever dropped.
public struct RetentionPolicy: Sendable, Equatable {
    /// The most a session may hold on disk (journal, snapshot, archive). Over it, a prune
    /// rewrites the journal, then drops compacted originals (oldest compaction first), then
    /// compacts the oldest messages into a `retention` compaction whose originals are dropped.
    public var maxBytesPerSession: Int64?
    /// How long the originals of a compaction are kept after it was made.
    public var keepCompactedOriginalsSeconds: Int64?
    /// How many ended sessions (completed or failed) are kept, the most recently changed first.
    public var keepEndedSessions: Int?

    public init(maxBytesPerSession: Int64? = nil, keepCompactedOriginalsSeconds: Int64? = nil, keepEndedSessions: Int? = nil) {
        self.maxBytesPerSession = maxBytesPerSession
        self.keepCompactedOriginalsSeconds = keepCompactedOriginalsSeconds
        self.keepEndedSessions = keepEndedSessions
    }

    public var isEmpty: Bool { self == RetentionPolicy() }

    /// Parses `{maxBytesPerSession?, keepCompactedOriginalsSeconds?, keepEndedSessions?}`
    /// (`null` clears a limit); wrong types and negative values are `InvalidArgument`.
    public init(json: JSON) throws(SessionError) {
        guard case .object(let o) = json else { throw .invalid("the retention policy must be an object") }
        func limit(_ key: String, minimum: Int64) throws(SessionError) -> Int64? {
            guard let v = o[key], !v.isNull else { return nil }
            guard let i = v.intValue, i >= minimum else { throw .invalid("\(key) must be an integer >= \(minimum)") }
            return i
        }
        maxBytesPerSession = try limit("maxBytesPerSession", minimum: 4096)
        keepCompactedOriginalsSeconds = try limit("keepCompactedOriginalsSeconds", minimum: 0)
        keepEndedSessions = try limit("keepEndedSessions", minimum: 0).map { Int($0) }
    }

    /// Only the limits that are set.
    public var json: JSON {
        var o = JSONObject()
        if let maxBytesPerSession { o["maxBytesPerSession"] = .int(maxBytesPerSession) }
        if let keepCompactedOriginalsSeconds { o["keepCompactedOriginalsSeconds"] = .int(keepCompactedOriginalsSeconds) }
        if let keepEndedSessions { o["keepEndedSessions"] = JSON(keepEndedSessions) }
        return .object(o)
    }
}

/// What a prune did to one session.
public struct PrunedSession: Sendable, Equatable {
    public var id: String
    public var bytesBefore: Int64
    public var bytesAfter: Int64
    /// Compactions whose originals were dropped.
    public var droppedOriginals: [String]
    /// Messages folded into a `retention` compaction (their originals dropped).
    public var droppedMessages: Int

    public var json: JSON {
        ["id": .string(id), "bytesBefore": .int(bytesBefore), "bytesAfter": .int(bytesAfter),
         "droppedOriginals": .array(droppedOriginals.map(JSON.string)), "droppedMessages": JSON(droppedMessages)]
    }
}

/// What `prune` did.
public struct PruneReport: Sendable, Equatable {
    /// Sessions that changed (untouched ones are not listed).
    public var sessions: [PrunedSession] = []
    /// Ended sessions deleted beyond `keepEndedSessions`.
    public var deletedSessions: [String] = []

    public var json: JSON {
        ["sessions": .array(sessions.map(\.json)), "deletedSessions": .array(deletedSessions.map(JSON.string))]
    }
}
