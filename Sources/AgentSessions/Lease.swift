#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import SystemSupport

/// Who may change a session: `<session>/lease.json` `{owner, expiresAt}`.
///
/// Taken when a store first changes a session, renewed when less than half of its term is left,
/// released by `release(id:)` and `close()`. Another owner sees the session read-only
/// (`SessionLocked` on any change) until the lease is released or expires. Processes on one
/// machine decide under an exclusive `flock` on the session folder; devices that share the
/// folder through a sync engine see each other's leases as fast as the engine carries them
/// (a lease is a promise, not a lock, across devices).
struct Lease: Equatable {
    var owner: String
    var expiresAt: Int64

    var json: JSON {
        ["owner": .string(owner), "expiresAt": .string(Timestamp.iso8601(nanos: expiresAt)), "expiresAtNanos": .int(expiresAt)]
    }

    init(owner: String, expiresAt: Int64) {
        self.owner = owner
        self.expiresAt = expiresAt
    }

    init?(json: JSON) {
        guard let owner = json["owner"]?.stringValue, let at = json["expiresAtNanos"]?.intValue else { return nil }
        self.init(owner: owner, expiresAt: at)
    }
}

/// The lease as this store last saw it, so a lease file that did not change is not read again.
struct LeaseView {
    var file: FileIdentity?
    var lease: Lease?
}

enum LeaseFile {
    enum Outcome {
        /// This owner already held it (perhaps renewed now).
        case held
        /// This owner took it now: another owner may have changed the session meanwhile.
        case acquired
    }

    static func read(_ folder: String, view: inout LeaseView) -> Lease? {
        let path = folder + "/" + Journal.lease
        let id = Disk.identity(path: path)
        if id == nil { view = LeaseView(file: nil, lease: nil); return nil }
        if id == view.file, view.file != nil { return view.lease }
        let lease = (try? Disk.readFile(path, cap: .lease)).flatMap { $0 }.flatMap { try? JSONCodec.decode($0) }.flatMap(Lease.init(json:))
        view = LeaseView(file: id, lease: lease)
        return lease
    }

    /// Makes sure `owner` holds the lease of the session in `folder` for at least half a term.
    static func acquire(_ folder: String, owner: String, now: Int64, term: Int64,
                        view: inout LeaseView) throws(SessionError) -> Outcome {
        if let lease = read(folder, view: &view), lease.expiresAt > now {
            if lease.owner == owner {
                if lease.expiresAt - now >= term / 2 { return .held }
            } else {
                throw locked(lease)
            }
        }
        let dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw .io("cannot open the session folder", errno: errno, path: folder) }
        defer { close(dfd) }
        while flock(dfd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .io("cannot lock the session folder", errno: errno, path: folder) }
        }
        defer { _ = flock(dfd, LOCK_UN) }
        view = LeaseView()
        let current = read(folder, view: &view)
        if let current, current.expiresAt > now, current.owner != owner { throw locked(current) }
        let wasMine = current.map { $0.owner == owner && $0.expiresAt > now } ?? false
        let lease = Lease(owner: owner, expiresAt: now + term)
        try Disk.writeAtomically(folder + "/" + Journal.lease, JSONCodec.encode(lease.json))
        view = LeaseView(file: Disk.identity(path: folder + "/" + Journal.lease), lease: lease)
        return wasMine ? .held : .acquired
    }

    /// Gives the lease up if `owner` holds it. Returns whether a lease was removed.
    @discardableResult
    static func release(_ folder: String, owner: String, view: inout LeaseView) -> Bool {
        let dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { return false }
        defer { close(dfd) }
        while flock(dfd, LOCK_EX) != 0 { if errno != EINTR { return false } }
        defer { _ = flock(dfd, LOCK_UN) }
        view = LeaseView()
        guard let lease = read(folder, view: &view), lease.owner == owner else { return false }
        unlink(folder + "/" + Journal.lease)
        _ = fsync(dfd)
        view = LeaseView()
        return true
    }

    static func locked(_ lease: Lease) -> SessionError {
        SessionError(.sessionLocked,
                     "the session is owned by \(lease.owner) until \(Timestamp.iso8601(nanos: lease.expiresAt)); it is read-only here",
                     .lease(owner: lease.owner, expiresAtNanos: lease.expiresAt))
    }
}
