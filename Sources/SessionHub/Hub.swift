#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import Synchronization
import SystemSupport

/// The session hub: a PostgreSQL database every machine of a user commits its session records
/// to, local-first. A record is durable in the local journal first; then it waits in the outbox
/// (`HubOutbox`) until the drainer commits it, keyed by (session, offset) with its checksum, so a
/// retry never stores it twice; a different record already at that key is not overwritten (the
/// session diverged: two writers). With the hub down everything goes on locally and the outbox
/// drains when it is back.
public final class Hub: SessionReplica, @unchecked Sendable {  // `drainer` state under `wake`
    let connection: PGConnection
    let outbox: HubOutbox
    let origin: String
    private let wake = Condition()
    private let status = Mutex<ReplicaReport>(ReplicaReport())
    private let diverged = Mutex<Set<String>>([])
    /// The schema is made current (and migrated) once per connection.
    private let prepared = Mutex(false)
    /// The store to catch up with at each connection, and whether that is due.
    private let store = Mutex<WeakStore>(WeakStore())
    private let catchUpDue = Mutex(true)

    /// - Parameters:
    ///   - address: the hub (no password in it: `HubAddress`).
    ///   - outboxPath: the outbox file, in the config folder.
    ///   - origin: this machine's id, stored with each record it commits.
    public init(address: HubAddress, outboxPath: String, origin: String) throws(HubError) {
        connection = PGConnection(conninfo: address.conninfo, applicationName: "workspace-bridge")
        outbox = try HubOutbox(path: outboxPath)
        self.origin = origin
    }

    /// Starts the drainer thread (at most once).
    public func start() throws(OSThread.StartError) {
        try OSThread.detach { [self] in drain() }
    }

    // MARK: SessionReplica

    public func recordsDurable(session: String, offset: Int64, bytes: [UInt8]) {
        do throws(HubError) { try outbox.add(session: session, offset: offset, bytes: bytes) } catch {
            status.withLock { $0.lastError = error.message }
            return
        }
        wake.signal()
    }

    public func records(session: String) throws(SessionError) -> [ReplicaRecord] {
        do {
            return try withSchema { s throws(HubError) in
                let rows = try s.query("""
                    SELECT record_offset, record, crc FROM wb_records WHERE session_id = $1 ORDER BY record_offset
                    """, [.text(session)])
                var out: [ReplicaRecord] = []
                out.reserveCapacity(rows.count)
                for r in 0..<rows.count {
                    guard let o = rows.int(r, 0), let b = rows.bytes(r, 1), let c = rows.int(r, 2) else {
                        throw HubError("the hub returned a record of session \(session) with a missing field")
                    }
                    out.append(ReplicaRecord(offset: o, bytes: b, crc: c))
                }
                return out
            }
        } catch {
            throw SessionError(.ioError, "the hub cannot be read: \(error.message)")
        }
    }

    public func sessions() throws(SessionError) -> [ReplicaSession] {
        do {
            return try withSchema { s throws(HubError) in
                let rows = try s.query("""
                    SELECT session_id, max(record_offset + length(record)) FROM wb_records GROUP BY session_id
                    """)
                return (0..<rows.count).compactMap { r in
                    guard let id = rows.text(r, 0), let end = rows.int(r, 1) else { return nil }
                    return ReplicaSession(id: id, end: end)
                }
            }
        } catch {
            throw SessionError(.ioError, "the hub cannot be read: \(error.message)")
        }
    }

    public func opened(_ store: SessionStore) {
        self.store.withLock { $0.store = store }
        catchUpDue.withLock { $0 = true }
        wake.signal()
    }

    public func state(session: String) -> ReplicaState {
        if diverged.withLock({ $0.contains(session) }) { return .diverged }
        return outbox.pendingCount(session: session) > 0 ? .pending : .replicated
    }

    public var report: ReplicaReport {
        var s = status.withLock { $0 }
        s.outboxRecords = outbox.count
        s.divergedSessions = diverged.withLock { $0.count }
        return s
    }

    // MARK: Draining

    /// Commits the outbox, oldest first, for ever: at once when records come, after a backoff
    /// (0.2 s doubling to 10 s) while the hub cannot be reached.
    private func drain() {
        var backoff = 0.2
        while true {
            if catchUpDue.withLock({ $0 }), let local = store.withLock({ $0.store }) {
                do throws(SessionError) {
                    let ends = try sessions()
                    catchUpDue.withLock { $0 = false }
                    local.catchUpReplica(ends: Dictionary(ends.map { ($0.id, $0.end) }, uniquingKeysWith: max))
                } catch {
                    wake.wait(seconds: backoff)
                    backoff = min(10, backoff * 2)
                    continue
                }
            }
            let batch = outbox.next(256)
            if batch.isEmpty {
                // Nothing to send: connect anyway (the schema made current, `connected` true), and
                // look again every 30 s so that `connected` stays what it says.
                do throws(HubError) {
                    _ = try withSchema { s throws(HubError) in try s.query("SELECT 1") }
                    backoff = 0.2
                    wake.wait(seconds: 30)
                } catch {
                    wake.wait(seconds: backoff)
                    backoff = min(10, backoff * 2)
                }
                continue
            }
            do throws(HubError) {
                let refused = try commit(batch)
                outbox.acknowledge(batch.count)
                if !refused.isEmpty { diverged.withLock { $0.formUnion(refused) } }
                status.withLock { $0.connected = true; $0.lastError = nil; $0.committedRecords += batch.count }
                backoff = 0.2
            } catch {
                status.withLock { $0.connected = false; $0.lastError = error.message }
                wake.wait(seconds: backoff)
                backoff = min(10, backoff * 2)
            }
        }
    }

    /// Commits `batch` in one transaction; returns the sessions whose record at some offset the
    /// hub already holds with other bytes (those records are not stored).
    private func commit(_ batch: [HubOutbox.Entry]) throws(HubError) -> Set<String> {
        try withSchema { s throws(HubError) in
            try s.transaction { () throws(HubError) -> Set<String> in
                var refused = Set<String>()
                for e in batch {
                    let crc = Self.statedChecksum(e.bytes)
                    let inserted = try s.query("""
                        INSERT INTO wb_records (session_id, record_offset, record, crc, origin) VALUES ($1, $2, $3, $4, $5)
                        ON CONFLICT (session_id, record_offset) DO NOTHING
                        """, [.text(e.session), .int(e.offset), .bytes(e.bytes), .int(crc), .text(origin)])
                    guard inserted.affected == 0 else { continue }
                    let there = try s.query("SELECT record FROM wb_records WHERE session_id = $1 AND record_offset = $2",
                                            [.text(e.session), .int(e.offset)])
                    if there.count == 0 || there.bytes(0, 0) != e.bytes { refused.insert(e.session) }
                }
                return refused
            }
        }
    }

    /// The checksum a journal line states (its first 8 hex digits); -1 for a line without one
    /// (never from the store, which writes only checked lines).
    static func statedChecksum(_ line: [UInt8]) -> Int64 {
        guard line.count >= 9 else { return -1 }
        return Int64(String(decoding: line.prefix(8), as: UTF8.self), radix: 16) ?? -1
    }

    /// Runs `body` on the connection with the user's schema current (prepared once per connection).
    func withSchema<T>(_ body: (PGSession) throws(HubError) -> T) throws(HubError) -> T {
        do {
            return try connection.withSession { s throws(HubError) in
                if !prepared.withLock({ $0 }) {
                    let found = try HubSchema.prepare(s)
                    prepared.withLock { $0 = true }
                    status.withLock { $0.schemaVersion = max(found, HubSchema.version) }
                }
                let value = try body(s)
                status.withLock { $0.connected = true }
                return value
            }
        } catch {
            if error.connectionLost {
                prepared.withLock { $0 = false }
                catchUpDue.withLock { $0 = true }
            }
            status.withLock { $0.connected = false; $0.lastError = error.message }
            throw error
        }
    }

    /// Connects to the hub at `address` and reads its schema version without changing anything
    /// (for `doctor`): 0 when the schema is not created yet; a newer schema than this binary's
    /// is an error.
    public static func probe(_ address: HubAddress) throws(HubError) -> (version: Int64, supported: Int64) {
        let c = PGConnection(conninfo: address.conninfo, applicationName: "workspace-bridge doctor")
        defer { c.close() }
        return (try c.withSession { s throws(HubError) in try HubSchema.prepare(s, create: false) }, HubSchema.version)
    }
}

/// The store the hub catches up with, not kept alive by the hub (the server closes and replaces
/// stores when the active root changes).
struct WeakStore {
    weak var store: SessionStore?
}

/// A condition variable that wakes the drainer (or times out).
final class Condition: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let c = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var signalled = false

    init() {
        pthread_mutex_init(m, nil)
        pthread_cond_init(c, nil)
    }

    deinit {
        pthread_cond_destroy(c)
        pthread_mutex_destroy(m)
        c.deallocate()
        m.deallocate()
    }

    func signal() {
        pthread_mutex_lock(m)
        signalled = true
        pthread_cond_signal(c)
        pthread_mutex_unlock(m)
    }

    /// Waits for a signal or `seconds`, whichever comes first.
    func wait(seconds: Double) {
        pthread_mutex_lock(m)
        defer { pthread_mutex_unlock(m) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + seconds
        var deadline = timespec(tv_sec: Int(total), tv_nsec: Int((total - total.rounded(.down)) * 1e9))
        while !signalled {
            if pthread_cond_timedwait(c, m, &deadline) != 0 { break }
        }
        signalled = false
    }
}
