#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import SystemSupport

/// Work to do when the network returns (`<root>/.workspace/queue/`), durable.
///
/// Same journal format as the sessions (one checksummed record per line, flushed before a call
/// returns, torn tail cut, damage kept aside as `journal.damaged-<n>`, snapshots). The same
/// idempotency key never makes a second item. Items keep their enqueue order.
///
/// Threads and processes: thread-safe; every change is made under an exclusive `flock` on the
/// journal, after reloading it if another process changed it, so several servers on one
/// machine share one queue. (Devices that sync the folder should not both write to it: a sync
/// engine would make a conflict copy; each device's server owns its own root's queue.)
public final class OfflineQueue: Sendable {
    public let directory: String
    let now: @Sendable () -> Int64
    let snapshotInterval: Int

    private struct Inner {
        var state = QueueState()
        var validEnd: Int64 = 0
        var fault: JournalScan.Fault?
        var identity: FileIdentity?
        var fd: Int32 = -1
        var warnings: [SessionWarning] = []
    }
    private let inner: Mutex<Inner>

    private var journalPath: String { directory + "/" + Journal.file }

    /// Opens and recovers the queue in `directory`. The folder is created by the first change,
    /// not here, so a read-only workspace can still be read (an absent queue is empty).
    public init(directory: String, snapshotInterval: Int = 512,
                now: @escaping @Sendable () -> Int64 = WallClock.nanos) throws(SessionError) {
        self.directory = directory
        self.now = now
        self.snapshotInterval = max(1, snapshotInterval)
        var i = Inner()
        try Self.load(directory, into: &i)
        inner = Mutex(i)
    }

    deinit {
        inner.withLock { if $0.fd >= 0 { close($0.fd) } }
    }

    private static func load(_ directory: String, into i: inout Inner) throws(SessionError) {
        let path = directory + "/" + Journal.file
        guard let bytes = try Disk.readFile(path) else {
            i.state = QueueState()
            i.validEnd = 0
            i.fault = nil
            i.identity = nil
            return
        }
        i.identity = Disk.identity(path: path)
        var warnings: [String] = []
        bytes.withUnsafeBytes { raw in
            let scan = JournalScan.scan(raw)
            var state = QueueState()
            var start = 0
            if let snap = Snapshot.read(directory + "/" + Journal.snapshot, matching: scan), let s = QueueState(snapshot: snap) {
                state = s
                start = snap.records
            }
            var fault = scan.fault
            for k in start..<scan.entries.count {
                let e = scan.entries[k]
                do {
                    let r = try JSONCodec.decode(UnsafeRawBufferPointer(rebasing: raw[Int(e.ref.offset) + 9..<Int(e.ref.end) - 1]))
                    try state.apply(r, ref: e.ref, crc: e.crc)
                } catch {
                    fault = .damaged(record: k, offset: e.ref.offset)
                    break
                }
            }
            if case .damaged(let k, let offset)? = fault {
                warnings.append("the queue journal is damaged at record \(k + 1) (byte \(offset)): it opens with the \(k) "
                    + "records before it; the damaged file is kept as journal.damaged-<n> at the next change")
            }
            i.state = state
            i.validEnd = state.end
            i.fault = fault
        }
        for w in warnings { i.warnings.append(SessionWarning(sessionId: nil, message: w)) }
    }

    /// Reloads when another process changed the journal. Lock held.
    private func refresh(_ i: inout Inner) throws(SessionError) {
        if Disk.identity(path: journalPath) != i.identity { try Self.load(directory, into: &i) }
    }

    /// Appends `records` durably under the cross-process lock, after `check` (which sees the
    /// current state and may throw or return a result without writing). Lock held.
    private func change<T>(_ i: inout Inner, _ body: (QueueState) throws(SessionError) -> (records: [JSON], result: T?))
        throws(SessionError) -> T? {
        for _ in 0..<3 {
            if i.fd < 0 {
                try Disk.makeDirectories(directory)
                i.fd = Disk.openRegular(journalPath, O_RDWR | O_CREAT)
                guard i.fd >= 0 else { throw .io("cannot open the queue journal", errno: errno, path: journalPath) }
            }
            while flock(i.fd, LOCK_EX) != 0 {
                guard errno == EINTR else { throw .io("cannot lock the queue journal", errno: errno, path: journalPath) }
            }
            // The name may now point at another file (damage set aside by another process).
            if Disk.identity(path: journalPath).map({ $0.inode }) != Disk.identity(fd: i.fd).map({ $0.inode }) {
                close(i.fd)  // also drops the lock
                i.fd = -1
                continue
            }
            defer { _ = flock(i.fd, LOCK_UN) }
            return try changeLocked(&i, body)
        }
        throw .io("the queue journal keeps being replaced", errno: EAGAIN, path: journalPath)
    }

    private func changeLocked<T>(_ i: inout Inner, _ body: (QueueState) throws(SessionError) -> (records: [JSON], result: T?))
        throws(SessionError) -> T? {
        if Disk.identity(fd: i.fd) != i.identity { try Self.load(directory, into: &i) }
        if case .damaged? = i.fault {
            let kept = try Journal.setAside(journalPath, validEnd: i.validEnd)
            i.warnings.append(SessionWarning(sessionId: nil, message: "the damaged queue journal was kept as \(kept)"))
            close(i.fd)
            i.fd = Disk.openRegular(journalPath, O_RDWR)
            guard i.fd >= 0, flock(i.fd, LOCK_EX) == 0 else { throw .io("cannot reopen the queue journal", errno: errno, path: journalPath) }
        }
        var writer = JournalWriter(path: journalPath, fd: i.fd, end: i.validEnd)
        if let size = Disk.identity(fd: i.fd)?.size, size != i.validEnd {
            writer.rollBack(to: i.validEnd)  // the torn tail of a crashed writer
        }
        i.fault = nil
        let (records, result) = try body(i.state)
        guard !records.isEmpty else { i.identity = Disk.identity(fd: i.fd); return result }
        var next = i.state
        var bytes: [UInt8] = []
        var offset = writer.end
        for r in records {
            let (line, crc) = JournalLine.encodeWithChecksum(r)
            do { try next.apply(r, ref: RecordRef(offset: offset, length: Int32(line.count)), crc: crc) } catch {
                throw .invalid("internal: a queue record does not fit: \(error.message)")
            }
            bytes += line
            offset += Int64(line.count)
        }
        try writer.append(bytes)
        do { try writer.sync() } catch {
            writer.rollBack(to: i.validEnd)
            throw error
        }
        i.state = next
        i.validEnd = next.end
        i.identity = Disk.identity(fd: i.fd)
        if next.sinceSnapshot >= snapshotInterval {
            do {
                try next.snapshot.write(to: directory + "/" + Journal.snapshot)
                i.state.sinceSnapshot = 0
            } catch {
                i.warnings.append(SessionWarning(sessionId: nil, message: "cannot write the queue snapshot: \(error.message)"))
            }
        }
        return result
    }

    /// Adds an item, durably; if an item with this idempotency key exists, returns it instead.
    public func enqueue(kind: String, payload: JSON, idempotencyKey: String,
                        requiresNetwork: Bool = true) throws(SessionError) -> QueueItem {
        guard !kind.isEmpty else { throw .invalid("kind must not be empty") }
        guard !idempotencyKey.isEmpty else { throw .invalid("idempotencyKey must not be empty") }
        return try inner.withLock { (i: inout Inner) throws(SessionError) -> QueueItem in
            let id = SessionNames.randomId("q_")
            let at = now()
            _ = try change(&i) { (s: QueueState) throws(SessionError) -> (records: [JSON], result: Int?) in
                if s.byKey[idempotencyKey] != nil { return ([], nil) }
                let item = QueueItem(id: id, kind: kind, payload: payload, idempotencyKey: idempotencyKey,
                                     requiresNetwork: requiresNetwork, at: at)
                return ([["t": "enq", "item": item.stored, "at": .int(at)]], nil)
            }
            guard let k = i.state.byKey[idempotencyKey] else { throw .invalid("internal: the queue does not show item \(id) just enqueued") }
            return i.state.items[k]
        }
    }

    /// Every item, in enqueue order.
    public func list() throws(SessionError) -> [QueueItem] {
        try inner.withLock { (i: inout Inner) throws(SessionError) -> [QueueItem] in
            try refresh(&i)
            return i.state.items
        }
    }

    /// Pending items that may run now (those needing the network only when it is there), in
    /// enqueue order.
    public func ready(networkAvailable: Bool = true) throws(SessionError) -> [QueueItem] {
        try list().filter { $0.status == .pending && (networkAvailable || !$0.requiresNetwork) }
    }

    /// Marks an item done, durably. Completing a completed item changes nothing.
    public func complete(id: String, result: JSON? = nil) throws(SessionError) -> QueueItem {
        try settle(id) { (item: QueueItem) throws(SessionError) -> JSON? in
            if item.status == .completed { return nil }
            guard item.status == .pending else { throw .invalid("queue item \(id) failed; it cannot be completed") }
            var r: JSONObject = ["t": "done", "id": .string(id)]
            if let result { r["result"] = result }
            r["at"] = .int(now())
            return .object(r)
        }
    }

    /// Records a failure, durably: with `retry` the item goes back to `pending` (attempts + 1),
    /// without it the item is `failed` for good.
    public func fail(id: String, error: JSON, retry: Bool = false) throws(SessionError) -> QueueItem {
        try settle(id) { (item: QueueItem) throws(SessionError) -> JSON? in
            guard item.status != .completed else { throw .invalid("queue item \(id) is completed; it cannot fail") }
            return ["t": "fail", "id": .string(id), "error": error, "retry": .bool(retry), "at": .int(now())]
        }
    }

    private func settle(_ id: String, _ record: (QueueItem) throws(SessionError) -> JSON?) throws(SessionError) -> QueueItem {
        try inner.withLock { (i: inout Inner) throws(SessionError) -> QueueItem in
            _ = try change(&i) { (s: QueueState) throws(SessionError) -> (records: [JSON], result: Int?) in
                guard let k = s.byId[id] else { throw .notFound("queue item", id) }
                return (try record(s.items[k]).map { [$0] } ?? [], nil)
            }
            guard let k = i.state.byId[id] else { throw .notFound("queue item", id) }
            return i.state.items[k]
        }
    }

    /// Problems worked around since the last call (a damaged journal, a failed snapshot).
    public func drainWarnings() -> [SessionWarning] {
        inner.withLock { i in defer { i.warnings = [] }; return i.warnings }
    }
}
