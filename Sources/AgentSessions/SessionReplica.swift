/// A place beyond this machine that holds every session's journal records (the hub), as the
/// store sees it: it hears each record once it is durable here, and it hands back the records of
/// a session this machine does not hold. The store trusts none of what comes back: every record
/// is checked as an import is (`SessionStore+Replica.swift`).
///
/// Threads: called from any thread; `recordsDurable` with the session's lock held, so the calls
/// for one session come in journal order.
public protocol SessionReplica: AnyObject, Sendable {
    /// `bytes` (whole journal lines, the first at byte `offset` of session `session`'s journal)
    /// are durable in the local journal. Must not block on the network.
    func recordsDurable(session: String, offset: Int64, bytes: [UInt8])

    /// The records the hub holds for session `session`, in offset order (empty: none).
    func records(session: String) throws(SessionError) -> [ReplicaRecord]

    /// The sessions the hub holds, with where each one's records end there.
    func sessions() throws(SessionError) -> [ReplicaSession]

    /// How far session `session` has reached the hub, as this machine knows it.
    func state(session: String) -> ReplicaState

    /// The hub as `getStorageInfo` reports it.
    var report: ReplicaReport { get }

    /// `store` is open: the replica catches up with it (`SessionStore.catchUpReplica`) at each
    /// connection to the hub. Held weakly.
    func opened(_ store: SessionStore)
}

/// The hub as `getStorageInfo` reports it.
public struct ReplicaReport: Sendable, Equatable {
    /// The last call to the hub succeeded.
    public var connected = false
    /// The schema version found (after migrating); 0 before the first connection.
    public var schemaVersion: Int64 = 0
    /// Records durable here and not committed to the hub yet.
    public var outboxRecords = 0
    /// Records committed by this process.
    public var committedRecords = 0
    /// Sessions whose records the hub holds differently at some offset (not sent).
    public var divergedSessions = 0
    /// Why the last call to the hub failed (no credentials in it: libpq's message).
    public var lastError: String?
    public init() {}
}

/// A replica in a value that compares by identity (the server's configuration is `Equatable`).
public struct ReplicaRef: Sendable, Equatable {
    public let replica: any SessionReplica
    public init(_ replica: any SessionReplica) { self.replica = replica }
    public static func == (a: ReplicaRef, b: ReplicaRef) -> Bool { a.replica === b.replica }
}

/// One record as the hub returned it: untrusted until checked.
public struct ReplicaRecord: Sendable {
    public var offset: Int64
    public var bytes: [UInt8]
    /// The checksum the hub states for `bytes`.
    public var crc: Int64
    public init(offset: Int64, bytes: [UInt8], crc: Int64) {
        self.offset = offset
        self.bytes = bytes
        self.crc = crc
    }
}

public struct ReplicaSession: Sendable, Equatable {
    public var id: String
    /// Where the session's records end in the hub (the sum of their lengths when whole).
    public var end: Int64
    public init(id: String, end: Int64) {
        self.id = id
        self.end = end
    }
}

/// A session's replication as `session/list` shows it.
public enum ReplicaState: String, Sendable {
    /// Every record this machine wrote is in the hub.
    case replicated
    /// Some records wait in the outbox (the hub down or not reached yet).
    case pending
    /// The hub holds other bytes at an offset this machine wrote (another writer): not sent.
    case diverged
}
