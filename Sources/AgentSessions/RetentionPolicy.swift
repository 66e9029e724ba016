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

    /// The smallest `maxBytesPerSession` that is allowed (a journal's own records need room).
    public static let minimumMaxBytesPerSession: Int64 = 4096

    /// Whether every limit is at least its minimum (none negative, `maxBytesPerSession` at least
    /// `minimumMaxBytesPerSession`).
    public var isValid: Bool {
        (maxBytesPerSession ?? Self.minimumMaxBytesPerSession) >= Self.minimumMaxBytesPerSession
            && (keepCompactedOriginalsSeconds ?? 0) >= 0 && (keepEndedSessions ?? 0) >= 0
    }
}

/// The policy file's form, `{maxBytesPerSession?, keepCompactedOriginalsSeconds?,
/// keepEndedSessions?}` with only the limits that are set (`null` reads as no limit); a limit of
/// another type refuses the file (`StoredFormTests` pins the bytes).
extension RetentionPolicy: StoredForm {
    static let storedFields: [StoredField<Self>] = [
        .optionalStrict("maxBytesPerSession", \.maxBytesPerSession),
        .optionalStrict("keepCompactedOriginalsSeconds", \.keepCompactedOriginalsSeconds),
        .optionalStrict("keepEndedSessions", \.keepEndedSessions),
    ]
    static var unread: Self { RetentionPolicy() }
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
}

/// What `prune` did.
public struct PruneReport: Sendable, Equatable {
    /// Sessions that changed (untouched ones are not listed).
    public var sessions: [PrunedSession] = []
    /// Ended sessions deleted beyond `keepEndedSessions`.
    public var deletedSessions: [String] = []
}
