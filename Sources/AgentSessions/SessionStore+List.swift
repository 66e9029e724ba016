#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

extension SessionStore {
    /// Sessions matching `filter`, in `order`, at most `limit`; `cursor` is the `nextCursor` of
    /// the page before (a cursor of another order, or unreadable, is `InvalidArgument`). The
    /// order is total (ties broken by id), so pages neither repeat nor skip a session that did
    /// not change meanwhile.
    ///
    /// Answered without reading any journal and without a `flock` per session (each session's
    /// lock is taken against this process's threads only, the journal's `flock` only before a
    /// journal is read): a session this store holds comes from memory (one `stat` tells it is
    /// still current), any other from its listing index (`ListingIndex`) while that matches the
    /// journal's size and time. Only a session without a current index (written by an older
    /// version, changed by another device or by a process that ended without `close`) is read
    /// from its journal, once, and its index written again. The index of a session this store
    /// holds is written again by the first listing after it changed (so a server that is killed
    /// leaves its successor current indexes).
    public func list(_ filter: SessionFilter = SessionFilter(), order: SessionOrder = .updatedDescending, limit: Int = 50,
                     cursor: String? = nil) throws(SessionError) -> (sessions: [Session], nextCursor: String?) {
        guard limit >= 1 else { throw .invalid("limit must be at least 1") }
        var after: (Int64, String)?
        if let cursor {
            let parts = cursor.split(separator: ":", maxSplits: 2)
            guard parts.count == 3, parts[0] == order.rawValue, let t = Int64(parts[1]) else { throw .invalid("invalid cursor") }
            after = (t, String(parts[2]))
        }
        fetchMissingFromReplica()
        func key(_ d: SessionData) -> Int64 { order == .created ? d.createdAt : d.updatedAt }
        func precedes(_ a: (Int64, String), _ b: (Int64, String)) -> Bool {
            order == .created ? a < b : (a.0 > b.0 || (a.0 == b.0 && a.1 < b.1))
        }
        // The page only is kept in order (binary insertion into at most `limit` entries; most
        // sessions fail the comparison with the last one): sorting all of them cost more than
        // looking at them. Keys only: copying each session's state out would cost its fields'
        // reference counts for every session listed.
        var top: [(key: (Int64, String), h: SessionHandle)] = []
        top.reserveCapacity(limit + 1)
        var matched = 0
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if folder >= 0 { Disk.closeDescriptor(folder) } }
        for h in allHandles() {
            h.lock.lockThreads()
            defer { h.lock.unlock() }
            guard let d = listed(h, folder), filter.matches(d) else { continue }
            let k = (key(d), h.id)
            if let after, !precedes(after, k) { continue }
            matched += 1
            if top.count == limit, let last = top.last, !precedes(k, last.key) { continue }
            var lo = 0, hi = top.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if precedes(top[mid].key, k) { lo = mid + 1 } else { hi = mid }
            }
            top.insert((k, h), at: lo)
            if top.count > limit { top.removeLast() }
        }
        var sessions: [Session] = []
        sessions.reserveCapacity(top.count)
        for f in top {
            f.h.lock.lockThreads()
            if let d = listed(f.h, folder) { sessions.append(view(f.h, d)) }
            f.h.lock.unlock()
        }
        let next = matched > limit ? top.last.map { "\(order.rawValue):\($0.key.0):\($0.key.1)" } : nil
        return (sessions, next)
    }

    /// The listed facts of `h` (see `list`), or nil when it holds no session; `folder` is the
    /// sessions folder, open (or -1: paths are then walked whole). Lock held (`lockThreads` is
    /// enough: the journal's `flock` is taken here before the journal is read).
    private func listed(_ h: SessionHandle, _ folder: Int32) -> SessionData? {
        if h.deleted { return nil }
        let journal = folder >= 0 ? Disk.identity(in: folder, h.journalName) : Disk.identity(path: h.journalPath)
        guard let journal else { return nil }
        if h.loaded, journal == h.identity, let d = h.data {
            saveListing(h)
            return d
        }
        if let l = h.listing, l.journal == journal { return l.data }
        if let d = ListingIndex.read(folder: h.folder, id: h.id, matching: journal) {
            h.listing = (journal, d)
            h.indexed = journal
            return d
        }
        h.lock.holdFile()
        guard (try? current(h)) != nil, let d = h.data else { return nil }
        saveListing(h)
        return d
    }

    /// Writes `h`'s listing index unless it already stands for the journal as it is. Lock held.
    func saveListing(_ h: SessionHandle) {
        guard let d = h.data, let journal = h.identity, h.indexed != journal else { return }
        ListingIndex.write(folder: h.folder, d, journal: journal)
        h.indexed = journal
        h.listing = nil
    }
}
