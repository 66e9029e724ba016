import JSON

extension SessionStore {
    /// Renames the session, durably (a `title` record; a version that does not know it keeps
    /// the old title and loses nothing else). Setting the title it has records nothing. Returns
    /// the session.
    public func setTitle(id: String, _ title: String) throws(SessionError) -> Session {
        if try get(id: id).title != title {
            let h = try locked(id, forWriting: true)
            defer { h.lock.unlock() }
            try commit(h, [["t": "title", "title": .string(title), "at": .int(now())]])
        }
        return try get(id: id)
    }

    /// Replaces the session's `metadata`, durably (a `meta` record; a version that does not know
    /// it keeps the metadata the session was created with). Returns the session.
    public func setMetadata(id: String, _ metadata: JSON) throws(SessionError) -> Session {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        try commit(h, [["t": "meta", "metadata": metadata, "at": .int(now())]])
        return try view(h)
    }
}
