#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

/// A plain mutex that can be held across calls (`backgroundAll` holds many at once).
final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// One session's place in a store: its lock and everything the lock guards.
///
/// Thread rule: every `var` here is read and written only with `lock` held. Operations on
/// different sessions run in parallel; operations on one session run one at a time, including
/// their `fsync`, so a session's state is never seen before it is durable.
final class SessionHandle: @unchecked Sendable {
    let id: String
    let folder: String
    let lock = Lock()

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

    init(id: String, folder: String) {
        self.id = id
        self.folder = folder
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
        SessionError(.ioError, "internal: the journal of session \(id) is not open for writing", data: ["id": .string(id)])
    }

    func closeWriter() {
        writer?.closeFile()
        writer = nil
    }
}
