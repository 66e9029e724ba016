#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

extension SessionStore {
    /// Appends messages in one durable record (all of them or, after a crash, none). A message
    /// whose id is already stored (or repeated in the call) is skipped; messages without an id
    /// get one. Returns how many were stored.
    public func appendMessages(id: String, messages: [MessageInput]) throws(SessionError) -> Int {
        guard !messages.isEmpty else { return 0 }
        for m in messages { try SessionError.checkMetadataSize(m.metadata, "a message's") }
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        let d = try h.session
        let at = now()
        var seen = Set<String>()
        var stored: [JSON] = []
        // A retried append of messages that were compacted since is recognised too.
        let compacted = messages.contains { $0.id != nil } && d.extras.compactions.contains { $0.isActive }
            ? try compactedIds(h) : []
        for m in messages {
            let mid = m.id ?? SessionNames.randomId("msg_")
            guard d.messageIndex[mid] == nil, !compacted.contains(mid), seen.insert(mid).inserted else { continue }
            stored.append(Message(id: mid, role: m.role, content: m.content, toolCalls: m.toolCalls,
                                  toolCallId: m.toolCallId, metadata: m.metadata, atNanos: at).stored)
        }
        guard !stored.isEmpty else { return 0 }
        try commit(h, [["t": "msg", "m": .array(stored), "at": .int(at)]])
        pruneIfOver(h)
        return stored.count
    }

    /// Ids of the messages active compactions replaced, whose originals are kept. Lock held.
    func compactedIds(_ h: SessionHandle) throws(SessionError) -> Set<String> {
        if let known = h.compactedIds { return known }
        var ids = Set<String>()
        let active = try h.session.extras.compactions.filter { $0.isActive && $0.originalsDroppedAtNanos == nil }
        for c in active { for r in c.originals ?? [] { ids.insert(r.id) } }
        if active.contains(where: { $0.originals == nil }) {
            for (_, list) in try Archive.read(folder: h.folder, cids: Set(active.map(\.id))) { for m in list { ids.insert(m.id) } }
        }
        h.compactedIds = ids
        return ids
    }

    /// Stored messages in append order: those after the entry `after` (from the start when
    /// `nil`), at most `limit` entries. A compacted run shows as one entry, its summary (`id` is
    /// the compaction's id, `compaction` says what it replaced); with `includeCompacted` the
    /// summary is followed by the originals it replaced, each marked `compactedBy`.
    public func messages(id: String, after: String? = nil, limit: Int = 100,
                         includeCompacted: Bool = false) throws(SessionError) -> [Message] {
        guard limit >= 1 else { throw .invalid("limit must be at least 1") }
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        let d = try h.session
        var start = 0
        if let after {
            guard let i = d.messageIndex[after] else {
                throw SessionError(.invalidArgument, "session \(id) has no message \(after)", .message(param: "after", id: after))
            }
            start = i + 1
        }
        let end = start + min(limit, d.messages.count - start)  // any limit, even `Int.max`
        guard start < end else { return [] }
        let page = try readMessages(h, d.messages[start..<end])
        guard includeCompacted, page.contains(where: { $0.compaction != nil }) else { return page }
        var out: [Message] = []
        for m in page {
            out.append(m)
            if let shown = m.compaction, let c = try h.session.extras.compactions.first(where: { $0.id == shown.id }) {
                for var o in try originals(h, c) {
                    o.compactedBy = c.id
                    out.append(o)
                }
            }
            if out.count >= limit { break }
        }
        return Array(out.prefix(limit))
    }

    /// The originals a compaction replaced: from the journal while they are there, else from the
    /// archive; empty when retention dropped them. Lock held.
    func originals(_ h: SessionHandle, _ c: Compaction) throws(SessionError) -> [Message] {
        if let refs = c.originals { return try readMessages(h, refs[...]) }
        if c.originalsDroppedAtNanos != nil { return [] }
        return try Archive.read(folder: h.folder, cids: [c.id])[c.id] ?? []
    }

    /// Reads messages from the journal (each record once). Lock held.
    func readMessages(_ h: SessionHandle, _ refs: ArraySlice<MessageRef>) throws(SessionError) -> [Message] {
        var out: [Message] = []
        out.reserveCapacity(refs.count)
        var cached: (RecordRef, [JSON])?
        // Many records: read the span they cover once rather than one `pread` each.
        var span: (offset: Int64, bytes: [UInt8])?
        let plain = refs.lazy.filter { !$0.isPlaceholder }
        if refs.count > 32, let lo = plain.map(\.record.offset).min(), let hi = plain.map(\.record.end).max(),
           hi - lo <= 64 << 20 {
            span = try withJournal(h) { fd throws(SessionError) in
                guard let b = Disk.pread(fd, offset: lo, length: Int(hi - lo)) else {
                    throw .io("the journal of session \(h.id) cannot be read", errno: EIO, path: h.journalPath)
                }
                return (lo, b)
            }
        }
        try withJournal(h) { fd throws(SessionError) in
            for ref in refs {
                if ref.isPlaceholder {
                    guard let c = try h.session.extras.compactions.first(where: { $0.id == ref.id }) else {
                        throw .io("compaction \(ref.id) of session \(h.id) is unknown", errno: EIO, path: h.journalPath)
                    }
                    out.append(Message(summaryOf: c))
                    continue
                }
                let list: [JSON]
                if let c = cached, c.0 == ref.record { list = c.1 } else {
                    let record: JSON
                    if let span {
                        let at = Int(ref.record.offset - span.offset)
                        let json = span.bytes[at..<at + Int(ref.record.length)].withUnsafeBytes { line in
                            line.last == 0x0A ? JournalLine.decode(UnsafeRawBufferPointer(rebasing: line.dropLast())) : nil
                        }
                        guard let json else {
                            throw .io("a record of session \(h.id) at byte \(ref.record.offset) cannot be read", errno: EIO,
                                      path: h.journalPath)
                        }
                        record = json
                    } else {
                        record = try readRecord(h, fd, ref.record)
                    }
                    list = record["m"]?.arrayValue ?? []
                    cached = (ref.record, list)
                }
                guard ref.position < list.count, let m = Message(stored: list[ref.position]) else {
                    throw .io("message \(ref.id) of session \(h.id) cannot be read", errno: EIO, path: h.journalPath)
                }
                out.append(m)
            }
        }
        return out
    }

    /// Runs `body` with a descriptor open on the session's journal. Lock held.
    func withJournal<T>(_ h: SessionHandle, _ body: (Int32) throws(SessionError) -> T) throws(SessionError) -> T {
        if let w = h.writer { return try body(w.fd) }
        let fd = Disk.openRegular(h.journalPath, O_RDONLY)
        guard fd >= 0 else { throw .io("cannot open the journal of session \(h.id)", errno: errno, path: h.journalPath) }
        defer { Disk.closeDescriptor(fd) }
        return try body(fd)
    }

    /// One record, checked against its checksum. Lock held.
    func readRecord(_ h: SessionHandle, _ ref: RecordRef) throws(SessionError) -> JSON {
        try withJournal(h) { fd throws(SessionError) in try readRecord(h, fd, ref) }
    }

    func readRecord(_ h: SessionHandle, _ fd: Int32, _ ref: RecordRef) throws(SessionError) -> JSON {
        guard let line = Disk.pread(fd, offset: ref.offset, length: Int(ref.length)), line.last == 0x0A,
              let json = line.withUnsafeBytes({ JournalLine.decode(UnsafeRawBufferPointer(rebasing: $0.dropLast())) })
        else {
            throw .io("a record of session \(h.id) at byte \(ref.offset) cannot be read (changed underneath?)",
                      errno: EIO, path: h.journalPath)
        }
        return json
    }
}
