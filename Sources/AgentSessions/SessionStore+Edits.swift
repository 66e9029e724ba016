import JSON

/// Which messages `SessionStore.deleteMessages` removes (exactly one selector).
public enum MessageSelection: Sendable, Equatable {
    /// These ids (ids the session does not show are left out of the answer).
    case ids([String])
    /// Every message matching the filter.
    case matching(MessageFilter)
    /// The last `n` messages.
    case last(Int)
}

extension SessionStore {
    /// Deletes messages durably (one `del` record; export, fork, compaction and sync see the
    /// session without them). The entry standing for a compacted run is never deleted. Deleting
    /// nothing records nothing and is not an error. Returns the ids deleted, in journal order.
    /// A message deleted is gone: an append of its id later stores it again.
    public func deleteMessages(id: String, _ selection: MessageSelection) throws(SessionError) -> [String] {
        if case .last(let n) = selection, n < 1 { throw .invalid("last must be at least 1") }
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        let d = try h.session
        let plain = d.messages.filter { !$0.isPlaceholder }
        var ids: [String]
        switch selection {
        case .ids(let wanted):
            let set = Set(wanted)
            ids = plain.filter { set.contains($0.id) }.map(\.id)
        case .matching(let filter):
            ids = []
            var at = 0
            while at < plain.count {
                let end = min(plain.count, at + 256)
                ids += try readMessages(h, plain[at..<end]).filter(filter.matches).map(\.id)
                at = end
            }
        case .last(let n):
            ids = plain.suffix(n).map(\.id)
        }
        guard !ids.isEmpty else { return [] }
        try commit(h, [["t": "del", "ids": .array(ids.map(JSON.string)), "at": .int(now())]])
        return ids
    }

    /// Sets the title and/or merges `metadata` into the session's (key by key; a `null` value
    /// removes its key; metadata that was not an object becomes one), in one durable commit.
    /// Nothing to change records nothing. Returns the session.
    public func update(id: String, title: String? = nil, metadata: JSONObject? = nil) throws(SessionError) -> Session {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        let d = try h.session
        let at = now()
        var records: [JSON] = []
        if let title, title != d.title { records.append(["t": "title", "title": .string(title), "at": .int(at)]) }
        if let metadata, !metadata.isEmpty {
            let next = SessionData.merged(d.metadata, metadata)
            try SessionError.checkMetadataSize(next, "the session's")
            if next != d.metadata { records.append(["t": "meta", "set": .object(metadata), "at": .int(at)]) }
        }
        if !records.isEmpty { try commit(h, records) }
        return try view(h)
    }
}
