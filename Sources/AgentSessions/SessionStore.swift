#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import SystemSupport

/// The durable session store of one workspace root (`<root>/.workspace/sessions`).
///
/// Durability: every change is one or more records appended to the session's
/// `journal.jsonl` and flushed (`fsync`, `F_FULLFSYNC` on Apple) before the call returns; a
/// call that throws has changed nothing. A change that spans several facts (usage that goes
/// over budget and fails the session; a checkpoint that backgrounds it) is one record, so it
/// is all there after a crash or not at all. Recovery truncates a torn tail, opens a journal
/// damaged in the middle up to the damage (keeping the damaged file as `journal.damaged-<n>`),
/// and never refuses to open. Snapshots (every `snapshotInterval` records, or every quarter of
/// the journal once that is more) keep recovery short. A journal is rewritten (compaction,
/// retention) only crash-safely: temp file, flush, rename, folder flush, with the originals of
/// compacted messages flushed to the session's archive (`compacted.jsonl`) first; forks and
/// imports are built in a hidden folder and renamed into place.
///
/// Ownership: a store changes a session only while it holds the session's lease
/// (`lease.json`, `leaseSeconds` long, renewed on use); another owner sees it read-only and
/// gets `SessionLocked` until the lease is released or expires.
///
/// Threads: thread-safe. Calls on different sessions run in parallel; calls on one session run
/// one at a time. `onStateChange` runs on the calling thread after the change is durable,
/// with no lock held.
public final class SessionStore: Sendable {
    public let directory: String
    public let owner: String
    public let pricing: Pricing
    let leaseTerm: Int64
    let snapshotInterval: Int
    let now: @Sendable () -> Int64
    let handles = Mutex<[String: SessionHandle]>([:])
    private let warningList = Mutex<[SessionWarning]>([])
    private let stateChangeHandler: Mutex<(@Sendable (StateChange) -> Void)?>
    /// Tests only: called at each step of a journal rewrite; `true` stops the rewrite there, as a
    /// SIGKILL at that moment would (nothing after the step happens, nothing is cleaned up).
    let rewriteStop = Mutex<(@Sendable (RewriteStep) -> Bool)?>(nil)
    /// The retention policy as last read or set (`nil`: not read yet).
    let retentionCache = Mutex<RetentionPolicy?>(nil)
    /// The hub every durable record is handed to, and sessions absent here are fetched from.
    public let replica: (any SessionReplica)?

    /// - Parameters:
    ///   - directory: `<root>/.workspace/sessions`; created on first use.
    ///   - owner: this server's lease owner id (stable per device, e.g. a host id).
    ///   - snapshotInterval: records between snapshots.
    ///   - now: the wall clock in nanoseconds since 1970.
    public init(directory: String, owner: String, leaseSeconds: Int = 60, pricing: Pricing = Pricing(),
                snapshotInterval: Int = 256, onStateChange: (@Sendable (StateChange) -> Void)? = nil,
                replica: (any SessionReplica)? = nil, now: @escaping @Sendable () -> Int64 = WallClock.nanos) {
        self.replica = replica
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.owner = owner
        self.pricing = pricing
        self.leaseTerm = Int64(max(1, leaseSeconds)) * 1_000_000_000
        self.snapshotInterval = max(1, snapshotInterval)
        self.now = now
        stateChangeHandler = Mutex(onStateChange)
    }

    /// Sets (or clears) the callback that hears every state change.
    public func setStateChangeHandler(_ handler: (@Sendable (StateChange) -> Void)?) {
        stateChangeHandler.withLock { $0 = handler }
    }

    /// The problems worked around since the last call (torn tails, damaged journals, …).
    public func drainWarnings() -> [SessionWarning] {
        warningList.withLock { w in defer { w = [] }; return w }
    }

    func warn(_ id: String?, _ message: String) {
        warningList.withLock { $0.append(SessionWarning(sessionId: id, message: message)) }
    }

    func notify(_ changes: [StateChange]) {
        guard !changes.isEmpty, let handler = stateChangeHandler.withLock({ $0 }) else { return }
        for c in changes { handler(c) }
    }

    // MARK: Finding and loading sessions

    /// The handle of session `id`, if the store knows it or its folder holds a journal.
    func handle(_ id: String) throws(SessionError) -> SessionHandle {
        guard SessionNames.isSafeName(id) else { throw .notFound("session", id) }
        if let h = handles.withLock({ $0[id] }) { return h }
        let folder = directory + "/" + id
        guard Disk.identity(path: folder + "/" + Journal.file) != nil else {
            if let h = try fetchFromReplica(id) { return h }
            throw .notFound("session", id)
        }
        return handles.withLock { map in
            if let h = map[id] { return h }
            let h = SessionHandle(id: id, folder: folder)
            map[id] = h
            return h
        }
    }

    /// Every session folder on disk (others may have added some through sync) and in memory.
    func allHandles() -> [SessionHandle] {
        let names = (Disk.list(directory) ?? []).filter { SessionNames.isSafeName($0) }
        return handles.withLock { map in
            for name in names where map[name] == nil {
                map[name] = SessionHandle(id: name, folder: directory + "/" + name)
            }
            return Array(map.values)
        }
    }

    /// Session `id`'s handle, locked and current (loaded, and reloaded when another owner
    /// changed it); with `forWriting`, its lease taken and journal open too (`prepareWrite`).
    /// The caller unlocks it (`defer { h.lock.unlock() }`); on a throw it is already unlocked.
    func locked(_ id: String, forWriting: Bool) throws(SessionError) -> SessionHandle {
        let h = try handle(id)
        h.lock.lock()
        do {
            try current(h)
            if forWriting { try prepareWrite(h) }
        } catch {
            h.lock.unlock()
            throw error
        }
        return h
    }

    /// Session `id`'s handle, current, locked against this process's threads for a look at its
    /// state: while the journal is the one this store last read or wrote (its `stat` unchanged) no
    /// journal byte is read, so the `flock` other processes append under is taken only to load
    /// the journal anew. What the look sees is as current as under `locked`. The caller unlocks it.
    func lockedToLook(_ id: String) throws(SessionError) -> SessionHandle {
        let h = try handle(id)
        h.lock.lockThreads()
        guard !h.loaded || h.data == nil || h.deleted || Disk.identity(path: h.journalPath) != h.identity else { return h }
        h.lock.holdFile()
        do { try current(h) } catch {
            h.lock.unlock()
            throw error
        }
        return h
    }

    /// Loads the session on first use, and again when another owner changed its journal.
    /// Lock held. Throws `NotFound` for a folder without a session.
    func current(_ h: SessionHandle) throws(SessionError) {
        if h.deleted { throw .notFound("session", h.id) }
        if h.loaded {
            // While this store holds the lease, no other server writes; but the journal can
            // still be deleted or replaced under us (a user, a sync engine), and appending to
            // an unlinked file would acknowledge what no restart could find: check the name.
            let now = Disk.identity(path: h.journalPath)
            if now == h.identity {
                // Both nil: the folder was seen (a sync engine still bringing it) without a
                // journal, and there is still none. No session yet, never a nil one.
                if h.data == nil { throw .notFound("session", h.id) }
                return
            }
            if now == nil { h.deleted = true; throw .notFound("session", h.id) }
        }
        try reload(h)
        if h.data == nil { throw .notFound("session", h.id) }
    }

    func reload(_ h: SessionHandle) throws(SessionError) {
        h.closeWriter()
        h.unreplicated = nil
        h.compactedIds = nil
        guard let loaded = try SessionLoader.load(folder: h.folder, id: h.id) else {
            h.loaded = true
            h.data = nil
            h.identity = nil
            return
        }
        h.loaded = true
        h.data = loaded.data
        h.validEnd = loaded.validEnd
        h.fault = loaded.fault
        h.identity = loaded.identity
        for w in loaded.warnings { warn(h.id, w) }
    }

    /// The client's view of a loaded session. Lock held.
    func view(_ h: SessionHandle) throws(SessionError) -> Session { view(h, try h.session) }

    /// The client's view of `d`, the session `h` holds. Lock held.
    func view(_ h: SessionHandle, _ d: SessionData) -> Session {
        var otherOwnerRuns = false
        if h.writer == nil, !d.unfinishedCalls.isEmpty, let lease = LeaseFile.read(h.folder, view: &h.leaseView) {
            otherOwnerRuns = lease.owner != owner && lease.expiresAt > now()
        }
        var s = d.session { otherOwnerRuns || h.live.contains($0) }
        s.replication = replica?.state(session: h.id)
        return s
    }

    // MARK: Writing

    /// Takes or renews the lease and opens the journal for appending (cutting a torn tail, or
    /// setting a damaged journal aside, first). Lock held; `current(h)` done.
    func prepareWrite(_ h: SessionHandle) throws(SessionError) {
        guard let d = h.data, d.records > 0 else {
            throw SessionError(.ioError, "session \(h.id) cannot be changed: its journal is damaged from the first record",
                               .id(h.id))
        }
        let outcome = try LeaseFile.acquire(h.folder, owner: owner, now: now(), term: leaseTerm, view: &h.leaseView)
        if case .acquired = outcome, Disk.identity(path: h.journalPath) != h.identity {
            try reload(h)  // another owner wrote while we did not hold the lease
            guard h.data != nil else { throw .notFound("session", h.id) }
        }
        guard h.writer == nil else { return }
        switch h.fault {
        case .damaged?:
            let kept = try Journal.setAside(h.journalPath, validEnd: h.validEnd)
            warn(h.id, "the damaged journal was kept as \(kept); the session continues from its intact part")
        case .tornTail(let n)?:
            warn(h.id, "the journal's last write was cut off (a crash); its \(n) bytes were dropped")
        case nil:
            break
        }
        let writer = try JournalWriter.openForAppend(h.journalPath, validEnd: h.validEnd)
        h.writer = writer
        h.fault = nil
        h.identity = Disk.identity(fd: writer.fd)
    }

    /// Encodes `records` and applies them to a copy of the state (which validates them).
    func stage(_ h: SessionHandle, _ records: [JSON]) throws(SessionError) -> (bytes: [UInt8], next: SessionData) {
        var next = try h.session
        var bytes: [UInt8] = []
        var offset = try h.openWriter.end
        for r in records {
            let (line, crc) = JournalLine.encodeWithChecksum(r)
            let ref = RecordRef(offset: offset, length: Int32(line.count))
            do { try next.apply(r, ref: ref, crc: crc) } catch {
                throw SessionError(.invalidArgument, "internal: a record does not fit the session: \(error.message)")
            }
            bytes += line
            offset += Int64(line.count)
        }
        return (bytes, next)
    }

    /// Appends `records` durably and adopts the new state. Lock held; `prepareWrite(h)` done.
    /// Appends records and (unless `durable` is false) flushes them before returning. A
    /// non-durable commit becomes durable with the next flush of this journal; a crash before
    /// that may lose it (recovery cuts a torn tail), so only facts that change nothing (the
    /// record of a read-only tool call) are ever committed that way.
    ///
    /// The state is changed in place once the records are written: staging them on a copy (to
    /// keep the old state for a failed write) copied every tool call and message the session
    /// had, which made each commit cost the session's size.
    func commit(_ h: SessionHandle, _ records: [JSON], durable: Bool = true) throws(SessionError) {
        let before = try h.openWriter.end
        var next = try h.session
        var bytes: [UInt8] = []
        var staged: [(record: JSON, ref: RecordRef, crc: UInt32)] = []
        staged.reserveCapacity(records.count)
        for r in records {
            let (line, crc) = JournalLine.encodeWithChecksum(r)
            let ref = RecordRef(offset: before + Int64(bytes.count), length: Int32(line.count))
            staged.append((r, ref, crc))
            bytes += line
        }
        try h.withWriter { w throws(SessionError) in
            try w.append(bytes)
            guard durable else { return }
            do throws(SessionError) { try w.sync() } catch {
                w.rollBack(to: before)
                throw error
            }
        }
        h.data = nil  // `next` is now the only reference: applying changes it in place
        if h.compactedIds != nil,
           records.contains(where: { ["compact", "uncompact", "drop"].contains($0["t"]?.stringValue ?? "") }) {
            h.compactedIds = nil
        }
        do {
            for s in staged { try next.apply(s.record, ref: s.ref, crc: s.crc) }
        } catch {
            // A record the store built does not fit its own state (a bug): take the records back
            // and read the session again from its journal.
            h.writer?.rollBack(to: before)
            h.loaded = false
            throw SessionError(.invalidArgument, "internal: a record does not fit the session: \(error.message)")
        }
        adopt(h, next)
        replicate(h, offset: before, bytes, durable: durable)
    }

    /// What the records just committed made (an approval, a compaction, a deferral), read back
    /// from the state, where it always is once `commit` returned; were it not (a bug), an
    /// internal error rather than a crash.
    func committed<T>(_ value: T?, _ what: String, _ h: SessionHandle) throws(SessionError) -> T {
        guard let value else {
            throw SessionError(.invalidArgument, "internal: session \(h.id) does not show the \(what) just recorded",
                               .id(h.id))
        }
        return value
    }

    /// Keeps a durable state, and writes a snapshot when one is due.
    func adopt(_ h: SessionHandle, _ next: SessionData) {
        var next = next
        h.data = nil  // keeps `next` the only reference, as `commit` does
        h.validEnd = next.end
        h.identity = h.writer.flatMap { Disk.identity(fd: $0.fd) }
        // A snapshot costs the session's size, so they come at least every `snapshotInterval`
        // records and at most every quarter of the journal: amortized constant work per record,
        // and a recovery replays at most a quarter of the journal after the snapshot.
        if next.sinceSnapshot >= max(snapshotInterval, next.records / 4) {
            do {
                try next.snapshot.write(to: h.folder + "/" + Journal.snapshot)
                next.sinceSnapshot = 0
            } catch {
                warn(h.id, "cannot write a snapshot (recovery stays correct, only slower): \(error.message)")
            }
        }
        h.data = next
    }
}
