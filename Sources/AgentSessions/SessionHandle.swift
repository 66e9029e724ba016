#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

/// A session's lock: a mutex between this process's threads, and an exclusive `flock` on the
/// session's journal between processes of this machine, held together (`backgroundAll` holds
/// many at once). Two processes of one device (one lease owner) may change one session, e.g.
/// the ACP proxy and the `mcp --session` server it offers the agent: under the lock each sees
/// the other's appends (`SessionStore.current` compares the journal's size and time, and reloads)
/// and never appends, reloads or cuts a torn tail while the other is writing. A journal that
/// does not exist yet (a session being created) or cannot be opened is not locked between
/// processes (nothing else can know the session yet; a full descriptor table costs only that).
final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let path: String?
    /// The descriptor holding the `flock` while locked (-1: none). Guarded by `mutex`.
    private var fd: Int32 = -1

    /// `path`: the file locked between processes (nil: a mutex only).
    init(path: String? = nil) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        self.path = path
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() {
        pthread_mutex_lock(mutex)
        holdFile()
    }

    /// Locks against this process's threads only: for a reader that looks at what the handle
    /// holds and at files replaced whole (the listing index), never at the journal's bytes. It
    /// calls `holdFile()` before it reads the journal. `unlock()` ends either.
    func lockThreads() { pthread_mutex_lock(mutex) }

    /// With the mutex held: takes the `flock` too, unless already held.
    func holdFile() {
        guard fd < 0, let path else { return }
        let f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard f >= 0 else { return }
        while flock(f, LOCK_EX) != 0 {
            if errno != EINTR { close(f); return }
        }
        fd = f
    }

    func unlock() {
        if fd >= 0 {
            close(fd)  // releases the flock
            fd = -1
        }
        pthread_mutex_unlock(mutex)
    }
}

/// One session's place in a store: its lock and everything the lock guards.
///
/// Thread rule: every `var` here is read and written only with `lock` held. Operations on
/// different sessions run in parallel; operations on one session run one at a time, including
/// their `fsync`, so a session's state is never seen before it is durable.
final class SessionHandle: @unchecked Sendable {
    let id: String
    let folder: String
    let lock: Lock

    /// `nil` until loaded (or when the folder holds no session).
    var data: SessionData?
    var loaded = false
    var deleted = false
    /// Where the journal's intact part ends, and what is wrong after it (until the next change).
    var validEnd: Int64 = 0
    var fault: JournalScan.Fault?
    /// The journal file as this store last read or wrote it.
    var identity: FileIdentity?
    /// Open while this store holds the lease and has written.
    var writer: JournalWriter?
    var leaseView = LeaseView()
    /// Tool calls begun in this process and not finished.
    var live: Set<String> = []
    /// The journal's size after the last automatic prune (see `pruneIfOver`).
    var prunedAt: Int64 = 0
    /// Ids of the messages active compactions replaced (journal and archive), loaded on first
    /// need, forgotten whenever the compactions or the files change.
    var compactedIds: Set<String>?
    /// The listed facts read from the listing index, and the journal they stand for.
    var listing: (journal: FileIdentity, data: SessionData)?
    /// The journal the listing index on disk was last written for by this store.
    var indexed: FileIdentity?
    /// The message byte ranges of the journal records `session/search` has walked, by record
    /// offset, for the journal file (device, inode) they were read from: a journal only grows
    /// while it keeps its inode (a rewrite or a replacement is a new file), so they stay true, and
    /// a later search decodes a hit's message without walking its record again.
    var recordShapes: RecordShapeCache?
    /// Records committed without a flush, handed to the replica with the next flushed ones.
    var unreplicated: (offset: Int64, bytes: [UInt8])?

    init(id: String, folder: String) {
        self.id = id
        self.folder = folder
        lock = Lock(path: folder + "/" + Journal.file)
        journalPath = folder + "/" + Journal.file
        journalName = id + "/" + Journal.file
    }

    deinit { writer?.closeFile() }

    let journalPath: String
    /// The journal's path inside the sessions folder.
    let journalName: String

    /// The session as loaded. Code under the lock reads it after `SessionStore.current` (which
    /// throws `NotFound` when the folder holds no session), so this never throws there; were a
    /// path to miss that step, the client gets `NotFound`, not a crashed server.
    var session: SessionData {
        get throws(SessionError) {
            guard let data else { throw .notFound("session", id) }
            return data
        }
    }

    /// The journal open for appending (`SessionStore.prepareWrite` done): its end and descriptor.
    /// Without one (a path that skipped `prepareWrite`) an `IOError`, never a crash.
    var openWriter: JournalWriter {
        get throws(SessionError) {
            guard let writer else { throw notWritable }
            return writer
        }
    }

    /// Runs `body` on the journal open for appending (see `openWriter`), keeping what it changes.
    func withWriter<R>(_ body: (inout JournalWriter) throws(SessionError) -> R) throws(SessionError) -> R {
        guard var w = writer else { throw notWritable }
        defer { writer = w }
        return try body(&w)
    }

    private var notWritable: SessionError {
        SessionError(.ioError, "internal: the journal of session \(id) is not open for writing", .id(id))
    }

    func closeWriter() {
        writer?.closeFile()
        writer = nil
    }
}
