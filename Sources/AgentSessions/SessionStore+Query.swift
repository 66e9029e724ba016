import JSON

extension SessionStore {
    /// Messages of session `id` as `query` asks (see `MessageQuery`), in journal order. A
    /// compacted run is one entry (its summary); with `includeCompacted` each summary is followed
    /// by the originals it replaced that match the filter, marked `compactedBy` (a forward page
    /// counts them against `limit`, as `messages(id:after:limit:includeCompacted:)` does). An
    /// `after` or `before` the session does not show is `InvalidArgument`. Without a filter only
    /// the page's records are read; with one, the journal is read in chunks until the page is full.
    public func messagePage(id: String, _ q: MessageQuery) throws(SessionError) -> MessagePage {
        guard q.limit >= 1, (q.last ?? 1) >= 1 else { throw .invalid("limit and last must be at least 1") }
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        let d = try h.session
        func index(_ mid: String?, _ field: String) throws(SessionError) -> Int? {
            guard let mid else { return nil }
            guard let i = d.messageIndex[mid] else {
                throw SessionError(.invalidArgument, "session \(id) has no message \(mid)", .message(param: field, id: mid))
            }
            return i
        }
        let lo = try index(q.after, "after").map { $0 + 1 } ?? 0
        let hi = try index(q.before, "before") ?? d.messages.count
        guard lo < hi else { return MessagePage(messages: [], hasMore: false) }
        let want = q.last ?? q.limit
        let backward = q.last != nil
        var picked: [Message] = []
        var more = false
        if q.filter.isEmpty {
            let range = backward ? max(lo, hi - want)..<hi : lo..<min(hi, lo + want)
            picked = try readMessages(h, d.messages[range])
            more = backward ? range.lowerBound > lo : range.upperBound < hi
        } else {
            // Chunks of records in the direction read, until `want` match and one more is seen.
            let chunk = 256
            var at = backward ? hi : lo
            while backward ? at > lo : at < hi {
                let range = backward ? max(lo, at - chunk)..<at : at..<min(hi, at + chunk)
                var found = try readMessages(h, d.messages[range]).filter(q.filter.matches)
                if backward { found.reverse() }
                for m in found {
                    if picked.count == want { more = true; break }
                    picked.append(m)
                }
                if more { break }
                at = backward ? range.lowerBound : range.upperBound
            }
            if backward { picked.reverse() }
        }
        var page = MessagePage(messages: picked, hasMore: more)
        if more {
            if backward { page.nextBefore = picked.first?.id } else { page.nextAfter = picked.last?.id }
        }
        guard q.includeCompacted, picked.contains(where: { $0.compaction != nil }) else { return page }
        var out: [Message] = []
        for m in picked {
            out.append(m)
            guard let shown = m.compaction, let c = try h.session.extras.compactions.first(where: { $0.id == shown.id }) else {
                continue
            }
            for var o in try originals(h, c) where q.filter.matches(o) {
                o.compactedBy = c.id
                out.append(o)
            }
        }
        page.messages = backward ? out : Array(out.prefix(q.limit))
        return page
    }
}
