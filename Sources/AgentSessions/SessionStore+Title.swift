import JSON

extension SessionStore {
    /// Renames the session, durably (a `title` record; a version that does not know it keeps
    /// the old title and loses nothing else). Returns the session.
    public func setTitle(id: String, _ title: String) throws(SessionError) -> Session {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        if h.data!.title != title {
            try commit(h, [["t": "title", "title": .string(title), "at": .int(now())]])
        }
        return view(h)
    }
}
