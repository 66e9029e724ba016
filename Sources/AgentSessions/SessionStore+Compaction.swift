import JSON

extension SessionStore {
    /// Replaces a run of messages by a summary, durably and reversibly. The run ends with
    /// `throughMessageId` and starts with `fromMessageId`, or (without it) just after the
    /// previous compaction's place, or at the first message. The run must hold messages only
    /// (no other compaction: undo that one first, or start after it). `summary` is the content of
    /// the entry that stands for the run (written by the client's model; the server has none);
    /// `by` says who made it (a user, an agent, `retention`).
    ///
    /// The compaction is one journal record, durable before this returns. When the originals
    /// still in the journal reach a quarter of it (at least 64 KiB), the journal is rewritten
    /// with them moved to the archive, so recovery reads only what the session shows.
    public func compact(id: String, throughMessageId: String, fromMessageId: String? = nil, summary: JSON,
                        role: MessageRole = .system, by: String) throws(SessionError) -> Compaction {
        guard !by.isEmpty else { throw .invalid("a compaction needs an author (by)") }
        guard !summary.isNull else { throw .invalid("a compaction needs a summary") }
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        let d = try h.session
        guard let j = d.messageIndex[throughMessageId], !d.messages[j].isPlaceholder else {
            throw SessionError(.invalidArgument, "session \(id) has no message \(throughMessageId) to compact through",
                               .message(param: "throughMessageId", id: throughMessageId))
        }
        var i: Int
        if let fromMessageId {
            guard let f = d.messageIndex[fromMessageId], !d.messages[f].isPlaceholder, f <= j else {
                throw SessionError(.invalidArgument, "message \(fromMessageId) does not start a run ending at \(throughMessageId)",
                                   .message(param: "fromMessageId", id: fromMessageId))
            }
            i = f
            if let inner = d.messages[i...j].first(where: \.isPlaceholder) {
                throw SessionError(.invalidArgument, "the run holds compaction \(inner.id); undo it first or start after it",
                                   .compaction(inner.id, reason: nil))
            }
        } else {
            i = j
            while i > 0 && !d.messages[i - 1].isPlaceholder { i -= 1 }
        }
        let cid = SessionNames.randomId("cmp_")
        var r: JSONObject = ["t": "compact", "cid": .string(cid), "first": .string(d.messages[i].id),
                             "through": .string(throughMessageId), "summary": summary, "by": .string(by)]
        if role != .system { r["role"] = .string(role.rawValue) }
        r["at"] = .int(now())
        try commit(h, [.object(r)])
        let made = try committed(h.session.extras.compactions.last, "compaction", h)
        let after = try h.session
        if archivableBytes(after) >= max(64 * 1024, after.end / 4) {
            do { _ = try rewriteLocked(h) } catch {
                warn(id, "the journal was not rewritten after a compaction (recovery stays correct, only slower): \(error.message)")
                if !h.loaded { try? current(h) }
            }
        }
        return publicCompaction(made)
    }

    /// Restores the originals of compaction `compactionId` in its place and marks it undone
    /// (it stays listed, with `undoneAt`). Durable; refused when retention dropped the originals.
    public func uncompact(id: String, compactionId: String) throws(SessionError) -> Compaction {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        guard let c = try h.session.extras.compactions.first(where: { $0.id == compactionId }) else {
            throw SessionError(.notFound, "session \(id) has no compaction \(compactionId)",
                               .sessionCompaction(sessionId: id, compactionId: compactionId))
        }
        guard c.isActive else { return publicCompaction(c) }  // undone already: nothing to do
        guard c.originalsDroppedAtNanos == nil else {
            throw SessionError(.invalidArgument, "the originals of compaction \(compactionId) were dropped by the retention policy",
                               .compaction(compactionId, reason: "originalsDropped"))
        }
        var r: JSONObject = ["t": "uncompact", "cid": .string(compactionId)]
        if c.originals == nil {
            let originals = try Archive.read(folder: h.folder, cids: [compactionId])[compactionId] ?? []
            guard originals.count == c.count else {
                throw SessionError(.ioError, "the archive holds \(originals.count) of the \(c.count) originals of compaction \(compactionId)",
                                   .compaction(compactionId, reason: nil))
            }
            r["m"] = .array(originals.map(\.stored))
        }
        r["at"] = .int(now())
        try commit(h, [.object(r)])
        return publicCompaction(try committed(h.session.extras.compactions.first { $0.id == compactionId }, "compaction", h))
    }

    /// Bytes of journal records holding originals of active compactions (what a rewrite moves out).
    func archivableBytes(_ d: SessionData) -> Int64 {
        var seen = Set<Int64>()
        var total: Int64 = 0
        for c in d.extras.compactions where c.isActive {
            for m in c.originals ?? [] where seen.insert(m.record.offset).inserted { total += Int64(m.record.length) }
        }
        return total
    }

    func publicCompaction(_ c: Compaction) -> Compaction {
        var c = c
        c.originals = nil
        return c
    }
}
