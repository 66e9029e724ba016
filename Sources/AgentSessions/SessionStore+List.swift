import JSON

extension SessionStore {
    /// Sessions matching `filter`, in `order`, at most `limit`; `cursor` is the `nextCursor` of
    /// the page before (a cursor of another order, or unreadable, is `InvalidArgument`). The
    /// order is total (ties broken by id), so pages neither repeat nor skip a session that did
    /// not change meanwhile.
    ///
    /// Answered without reading any journal: a session this store holds comes from memory (one
    /// `stat` tells it is still current), any other from its listing index (`ListingIndex`) while
    /// that matches the journal's size and time. Only a session without a current index (written
    /// by an older version, changed by another device) is read from its journal, once, and its
    /// index written again.
    public func list(_ filter: SessionFilter = SessionFilter(), order: SessionOrder = .updatedDescending, limit: Int = 50,
                     cursor: String? = nil) throws(SessionError) -> (sessions: [Session], nextCursor: String?) {
        guard limit >= 1 else { throw .invalid("limit must be at least 1") }
        var after: (Int64, String)?
        if let cursor {
            let parts = cursor.split(separator: ":", maxSplits: 2)
            guard parts.count == 3, parts[0] == order.rawValue, let t = Int64(parts[1]) else { throw .invalid("invalid cursor") }
            after = (t, String(parts[2]))
        }
        func key(_ d: SessionData) -> Int64 { order == .created ? d.createdAt : d.updatedAt }
        func precedes(_ a: (Int64, String), _ b: (Int64, String)) -> Bool {
            order == .created ? a < b : (a.0 > b.0 || (a.0 == b.0 && a.1 < b.1))
        }
        var found: [(key: (Int64, String), h: SessionHandle, d: SessionData)] = []
        for h in allHandles() {
            h.lock.lock()
            defer { h.lock.unlock() }
            guard let d = listed(h), filter.matches(d) else { continue }
            let k = (key(d), h.id)
            if let after, !precedes(after, k) { continue }
            found.append((k, h, d))
        }
        found.sort { precedes($0.key, $1.key) }
        let page = found.prefix(limit)
        var sessions: [Session] = []
        sessions.reserveCapacity(page.count)
        for f in page {
            f.h.lock.lock()
            sessions.append(view(f.h, f.d))
            f.h.lock.unlock()
        }
        let next = found.count > limit ? page.last.map { "\(order.rawValue):\($0.key.0):\($0.key.1)" } : nil
        return (sessions, next)
    }

    /// The listed facts of `h` (see `list`), or nil when it holds no session. Lock held.
    private func listed(_ h: SessionHandle) -> SessionData? {
        if h.deleted { return nil }
        guard let journal = Disk.identity(path: h.journalPath) else { return nil }
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
