#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import SystemSupport

/// Searches one session for `SessionStore.search` (see there for what is found and why).
struct SessionScan {
    let query: SessionSearchQuery
    let matcher: TextMatcher
    /// The query as the journal escapes it (literal queries only): lines without it are skipped.
    let prefilter: TextMatcher?
    /// True once the search must end (cancelled, or out of time): asked before each record and
    /// each call of a regular expression's engine, so no session or long message holds it up.
    let stop: () -> Bool
    /// The window being read (one per scan, so per thread).
    let buffer = ByteScratch()

    /// The journal is read in windows of at most this many bytes (whole records), so a search
    /// holds at most one window per thread however large a session grows.
    static let window = 32 << 20

    /// What the scan needs of a session, taken under its lock.
    private struct Taken {
        var data: SessionData
        var fd: Int32
        var archived: [String: [Message]]
        var shapes: RecordShapeCache?
    }

    /// Searches session `h`; false when it was skipped (gone, or filtered out by state or agent).
    func search(_ h: SessionHandle, _ store: SessionStore, into hits: inout HitList,
                check: () throws(SessionError) -> Void) throws(SessionError) -> Bool {
        guard let t = take(h, store) else { return false }
        defer { Disk.closeDescriptor(t.fd) }
        let d = t.data
        var s = State(scan: self, data: d, fd: t.fd, shapes: t.shapes)
        var offset: Int64 = 0
        while offset < d.end {
            try check()
            guard let bytes = readWindow(t.fd, at: offset, end: d.end) else {
                throw .io("the journal of session \(d.id) cannot be read", errno: EIO)
            }
            try s.scanWindow(bytes, base: offset, into: &hits, check: check)
            offset += Int64(bytes.count)
        }
        do throws(TextMatcher.Failure) {
            for ref in d.messages where ref.isPlaceholder {
                guard let c = d.extras.compactions.first(where: { $0.id == ref.id }) else { continue }
                try s.message(Message(summaryOf: c), compactedBy: nil, summary: true, into: &hits)
            }
            for (cid, list) in t.archived.sorted(by: { $0.key < $1.key }) {
                for m in list { try s.message(m, compactedBy: cid, summary: false, into: &hits) }
            }
        } catch {
            try Self.end(error, session: d.id, check: check)
        }
        if let walked = s.shapes, walked.messages > (t.shapes?.messages ?? 0) {
            h.lock.lock()
            if h.recordShapes == nil || h.recordShapes?.file == walked.file { h.recordShapes = walked }
            h.lock.unlock()
        }
        return true
    }

    /// A field's search ended early: the search ends (its hits are not kept) with the time limit
    /// or the cancellation `check` throws, or with the bound the regular expression reached.
    static func end(_ failure: TextMatcher.Failure, session: String,
                    check: () throws(SessionError) -> Void) throws(SessionError) -> Never {
        switch failure {
        case .stopped:
            try check()
            throw SessionError(.cancelled, "the search was cancelled")
        case .overLimit(_, let why):
            throw SessionError(.limitExceeded, "\(why) (in session \(session))", .reason("matchLimit"))
        }
    }

    /// The session's state, its journal open, and (with `includeCompacted`) the archived
    /// originals of its active compactions, under its lock; nil when it is not searched.
    private func take(_ h: SessionHandle, _ store: SessionStore) -> Taken? {
        h.lock.lock()
        defer { h.lock.unlock() }
        guard (try? store.current(h)) != nil, let d = h.data else { return nil }
        if let states = query.states, !states.contains(d.state) { return nil }
        if let agents = query.agentTypes, !agents.contains(d.agentType) { return nil }
        let fd = Disk.openRegular(h.journalPath, O_RDONLY)
        guard fd >= 0 else { return nil }
        var archived: [String: [Message]] = [:]
        let kept = d.extras.compactions.filter { $0.isActive && $0.originalsDroppedAtNanos == nil && $0.originals == nil }
        if query.includeCompacted, !kept.isEmpty {
            archived = (try? Archive.read(folder: h.folder, cids: Set(kept.map(\.id)))) ?? [:]
        }
        var shapes: RecordShapeCache?
        if let id = Disk.identity(fd: fd) {
            let key = RecordShapeCache.FileKey(device: id.device, inode: id.inode)
            shapes = h.recordShapes?.file == key ? h.recordShapes : RecordShapeCache(file: key)
        }
        return Taken(data: d, fd: fd, archived: archived, shapes: shapes)
    }

    /// Whole records from `at` in the scan's buffer: up to `window` bytes, cut after the last
    /// newline (more when one record is longer); nil when the journal cannot be read.
    private func readWindow(_ fd: Int32, at: Int64, end: Int64) -> UnsafeRawBufferPointer? {
        var want = Int(min(Int64(Self.window), end - at))
        while true {
            let buffer = buffer.reserve(want)
            guard FileIO.pread(fd, into: buffer, offset: at) == want else { return nil }
            let bytes = UnsafeRawBufferPointer(buffer)
            if at + Int64(want) >= end { return bytes }
            if let nl = bytes.lastIndex(of: 10) { return UnsafeRawBufferPointer(rebasing: bytes[...nl]) }
            want = Int(min(Int64(want) * 2, end - at))
        }
    }

    /// The scan of one session: its visible messages by record, the tool fields already found.
    private struct State {
        let scan: SessionScan
        let data: SessionData
        let fd: Int32
        /// Record offset → position → compaction, for the originals `includeCompacted` searches
        /// (built on first need; the shown messages are found through the session's own index).
        var originals: [Int64: [Int: String]]?
        var seenTools = Set<String>()
        var denied: Set<String>?

        /// Record shapes known for this journal file, and those this scan walks.
        var shapes: RecordShapeCache?

        init(scan: SessionScan, data: SessionData, fd: Int32, shapes: RecordShapeCache?) {
            self.scan = scan
            self.data = data
            self.fd = fd
            self.shapes = shapes
        }

        /// Searches the records of one window: with a prefilter only the lines holding the
        /// escaped query, and in a message record only the messages holding it.
        mutating func scanWindow(_ raw: UnsafeRawBufferPointer, base: Int64, into hits: inout HitList,
                                 check: () throws(SessionError) -> Void) throws(SessionError) {
            // Each candidate line, and where in it the escaped query is (nil: anywhere).
            var lines: [(range: Range<Int>, at: [Int]?)] = []
            if let pre = scan.prefilter {
                // A literal search never throws (only a regular expression's can be stopped or run into a bound).
                try? pre.forEachMatch(in: raw, everyMatch: true) { hit in
                    if let last = lines.last, last.range.lowerBound == hit.lineStart {
                        lines[lines.count - 1].at?.append(hit.match.lowerBound - hit.lineStart)
                    } else {
                        lines.append((hit.lineStart..<hit.lineEnd, [hit.match.lowerBound - hit.lineStart]))
                    }
                    return true
                }
            } else {
                var start = 0
                for i in 0..<raw.count where raw[i] == 10 {
                    lines.append((start..<i, nil))
                    start = i + 1
                }
            }
            for line in lines {
                if scan.stop() { try check() }
                do throws(TextMatcher.Failure) {
                    try record(UnsafeRawBufferPointer(rebasing: raw[line.range]), at: base + Int64(line.range.lowerBound),
                               near: line.at, into: &hits)
                } catch {
                    try SessionScan.end(error, session: data.id, check: check)
                }
            }
        }

        /// One record: a tool call's is decoded whole (its checksum checked); of a message
        /// record only the visible messages holding a match (all visible ones when `near` is nil).
        private mutating func record(_ line: UnsafeRawBufferPointer, at offset: Int64, near: [Int]?,
                                     into hits: inout HitList) throws(TextMatcher.Failure) {
            let shape: RecordShape
            if let known = shapes?.shapes[offset] {
                shape = RecordShape(messages: known)
            } else {
                // Walked whole when it can be kept for later searches, else only as far as needed.
                let keep = shapes.map { !$0.isFull } ?? false
                guard let walked = RecordShape(line, through: keep ? .max : near?.max() ?? .max) else { return }
                if keep && !walked.messages.isEmpty { shapes?.add(offset, walked.messages) }
                shape = walked
            }
            switch shape.type {
            case "begin", "end", "read":
                if let r = JournalLine.decode(line) { try tool(r, into: &hits) }
            default:
                guard !shape.messages.isEmpty else { return }
                let candidates = near.map { Set($0.compactMap(shape.message(at:))).sorted() } ?? Array(shape.messages.indices)
                for p in candidates {
                    guard let json = try? JSONCodec.decode(UnsafeRawBufferPointer(rebasing: line[shape.messages[p]])),
                          let m = Message(stored: json), let shown = shownAs(m.id, offset, p) else { continue }
                    try message(m, compactedBy: shown, summary: false, into: &hits)
                }
            }
        }

        /// Whether the message at position `p` of the record at `offset` is one the session shows
        /// (`.some(nil)`), or with `includeCompacted` an original a compaction keeps (`.some(cid)`);
        /// nil for anything else (an original not asked for, or a copy the state does not point at).
        private mutating func shownAs(_ id: String, _ offset: Int64, _ p: Int) -> String?? {
            if let i = data.messageIndex[id], data.messages[i].record.offset == offset, data.messages[i].position == p {
                return .some(nil)
            }
            guard scan.query.includeCompacted else { return nil }
            if originals == nil {
                var v: [Int64: [Int: String]] = [:]
                for c in data.extras.compactions where c.isActive && c.originalsDroppedAtNanos == nil {
                    for m in c.originals ?? [] { v[m.record.offset, default: [:]][m.position] = c.id }
                }
                originals = v
            }
            guard let cid = originals?[offset]?[p] else { return nil }
            return .some(cid)
        }

        mutating func message(_ m: Message, compactedBy: String?, summary: Bool, into hits: inout HitList) throws(TextMatcher.Failure) {
            let q = scan.query
            if let roles = q.roles, !roles.contains(m.role) { return }
            guard inTime(m.atNanos) else { return }
            var fields: [(String, JSON)] = [("content", m.content)]
            if let calls = m.toolCalls { fields.append(("toolCalls", calls)) }
            for (field, value) in fields {
                guard let f = try SearchText.find(scan.matcher, in: SearchText.of(value), stop: scan.stop) else { continue }
                var hit = makeHit(.message, m.id, field, m.atNanos, f)
                hit.role = m.role
                hit.compactedBy = compactedBy
                hit.isSummary = summary
                hits.add(hit)
            }
        }

        /// A `begin`, `end` or `read` record: the call's name, arguments (never a denied call's)
        /// and result, each found once per call.
        private mutating func tool(_ r: JSON, into hits: inout HitList) throws(TextMatcher.Failure) {
            let q = scan.query
            if let roles = q.roles, !roles.contains(.tool) { return }
            guard let call = r["call"]?.stringValue, let at = r["at"]?.intValue, inTime(at) else { return }
            let name = r["name"]?.stringValue ?? data.toolCalls[call]?.name ?? ""
            var fields: [(String, JSON)] = [("name", .string(name))]
            if let args = r["args"], !isDenied(call) { fields.append(("arguments", args)) }
            if let result = r["result"] { fields.append(("result", result)) }
            for (field, value) in fields where !seenTools.contains(call + "\u{0}" + field) {
                guard let f = try SearchText.find(scan.matcher, in: SearchText.of(value), stop: scan.stop) else { continue }
                seenTools.insert(call + "\u{0}" + field)
                var hit = makeHit(.toolCall, call, field, at, f)
                hit.toolName = name
                hits.add(hit)
            }
        }

        /// Whether the user denied call `id`: its approval says so, or (a remembered denial) its
        /// recorded result is the refusal.
        private mutating func isDenied(_ id: String) -> Bool {
            if denied == nil {
                var set = Set(data.extras.approvals.filter { $0.decision == .deny }.map(\.toolCallId))
                for t in data.toolCalls.values where t.isError {
                    guard let ref = t.result, let line = Disk.pread(fd, offset: ref.offset, length: Int(ref.length)), line.last == 10,
                          let r = line.withUnsafeBytes({ JournalLine.decode(UnsafeRawBufferPointer(rebasing: $0.dropLast())) })
                    else { continue }
                    if r["result"]?["structuredContent"]?["code"]?.stringValue == "ApprovalDenied" { set.insert(t.id) }
                }
                denied = set
            }
            return denied?.contains(id) ?? true
        }

        private func inTime(_ at: Int64) -> Bool {
            if let since = scan.query.since, at < since { return false }
            if let until = scan.query.until, at >= until { return false }
            return true
        }

        private func makeHit(_ kind: SessionSearchHit.Kind, _ id: String, _ field: String, _ at: Int64,
                             _ f: SearchText.Found) -> SessionSearchHit {
            SessionSearchHit(sessionId: data.id, sessionTitle: data.title, agentType: data.agentType, state: data.state,
                             kind: kind, itemId: id, role: nil, toolName: nil, field: field, atNanos: at, score: f.score,
                             matchCount: f.count, matches: f.matches, snippet: f.snippet, snippetStart: f.snippetStart)
        }
    }
}
