import JSON

/// A session exported as one self-describing JSON file.
public struct ExportedSession: Sendable, Equatable {
    /// The file's bytes (written by jansson), to store where the caller chooses.
    public let bytes: [UInt8]
    /// SHA-256 of `bytes`, lowercase hex.
    public let sha256: String
    public let sessionId: String
    /// The seeds' place for conversations, relative to the workspace: `Chats/<id>.json`.
    public var defaultPath: String { "Chats/\(sessionId).json" }
}

/// What `importSession` made.
public struct ImportedSession: Sendable, Equatable {
    public let session: Session
    /// The id the file carried when it was taken (or unusable) and the session got a new one.
    public let replacedId: String?
    /// The consent the file carried and the import left out.
    public let notImported: NotImported
}

/// The export file's format (`format`, `version` 1):
///
/// `{format: "workspace-bridge.session", version: 1, session: {facts, times in nanoseconds},
/// messages: [every message in order, originals of compactions marked `compactedBy`; a
/// compaction whose originals were dropped appears as `{placeOf: <compactionId>}`],
/// compactions: [...], toolCalls: [...], checksum: {algorithm: "sha256", value}}`, written by
/// jansson. `checksum` is the last member; its `value` is the SHA-256 of the file's bytes with
/// the value's 64 hex digits replaced by 64 zeros (so the file is encoded once, and checked
/// without encoding it again).
enum ExportFormat {
    static let name = "workspace-bridge.session"
    static let version: Int64 = 1

    /// The checksum's place while the file is hashed: 64 zeros.
    static let zeros = String(repeating: "0", count: 64)

    /// Where `needle` last occurs in `bytes` (the checksum is the document's last member, so
    /// its value is the last occurrence of its digits).
    static func lastRange(of needle: String, in bytes: [UInt8]) -> Range<Int>? {
        let n = Array(needle.utf8)
        guard !n.isEmpty, bytes.count >= n.count else { return nil }
        var i = bytes.count - n.count
        while i >= 0 {
            if bytes[i] == n[0] && bytes[i..<i + n.count].elementsEqual(n) { return i..<i + n.count }
            i -= 1
        }
        return nil
    }

    /// `InvalidArgument` with `data.reason`; `field` (dotted, e.g. `session.usage.turns`) names the
    /// member at fault when one is, and `id` the id that occurs twice.
    static func damaged(_ why: String, reason: String = "damaged", field: String? = nil, id: String? = nil) -> SessionError {
        SessionError(.invalidArgument, "the file is not a session export this version can import: \(why)",
                     .unimportable(reason: reason, field: field, id: id))
    }
}

extension SessionStore {
    /// Exports session `id` (read-only: no lease needed) as one JSON file with its messages (the
    /// originals of compacted runs included), tool calls and their results, usage, lineage,
    /// compactions, approvals and a checksum. Where the bytes go is the caller's choice
    /// (`ExportedSession.defaultPath` is the seeds' `Chats/<id>.json`).
    public func export(id: String) throws(SessionError) -> ExportedSession {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        let d = try h.session
        var session: JSONObject = ["id": .string(d.id), "title": .string(d.title), "agentType": .string(d.agentType),
                                   "state": .string(d.state.rawValue)]
        if let error = d.error { session["error"] = error }
        session["config"] = d.config.stored
        session["usage"] = d.usage.stored
        if let metadata = d.metadata { session["metadata"] = metadata }
        session["createdAt"] = .int(d.createdAt)
        session["updatedAt"] = .int(d.updatedAt)
        if !d.declared.isEmpty { session["declared"] = .array(d.declared.map(\.stored)) }
        var extras = d.extras
        extras.compactions = []
        if !extras.isEmpty { session["extras"] = extras.stored }

        let all = try readMessages(h, d.messages[...])
        let archived = try Archive.read(folder: h.folder)
        var messages: [JSON] = []
        messages.reserveCapacity(all.count)
        for m in all {
            guard let c = m.compaction else { messages.append(m.stored); continue }
            if c.originalsDroppedAtNanos != nil {
                messages.append(["placeOf": .string(c.id)])
                continue
            }
            guard let full = d.extras.compactions.first(where: { $0.id == c.id }) else {
                throw SessionError(.ioError, "message \(m.id) names compaction \(c.id), which the session does not have",
                                   .compaction(c.id, reason: nil))
            }
            let originals = try full.originals.map { refs throws(SessionError) in try readMessages(h, refs[...]) }
                ?? archived[c.id] ?? []
            guard originals.count == c.count else {
                throw SessionError(.ioError, "the originals of compaction \(c.id) are incomplete (\(originals.count) of \(c.count))",
                                   .compaction(c.id, reason: nil))
            }
            for o in originals {
                guard case .object(var j) = o.stored else { continue }
                j["compactedBy"] = .string(c.id)
                messages.append(.object(j))
            }
        }
        var calls: [JSON] = []
        try withJournal(h) { fd throws(SessionError) in
            for t in d.toolCalls.values.sorted(by: { $0.sequence < $1.sequence }) {
                var o: JSONObject = ["id": .string(t.id), "name": .string(t.name), "startedAt": .int(t.startedAt)]
                if let ref = t.result {
                    let r = try readRecord(h, fd, ref)
                    o["result"] = r["result"] ?? .null
                    o["isError"] = .bool(t.isError)
                    o["finishedAt"] = r["at"] ?? .int(t.startedAt)
                } else {
                    o["arguments"] = t.arguments ?? .object([:])
                }
                calls.append(.object(o))
            }
        }
        let doc: JSONObject = ["format": .string(ExportFormat.name), "version": .int(ExportFormat.version),
                               "session": .object(session), "messages": .array(messages),
                               "compactions": .array(d.extras.compactions.map { publicCompaction($0).stored }),
                               "toolCalls": .array(calls),
                               "checksum": ["algorithm": "sha256", "value": .string(ExportFormat.zeros)]]
        var bytes = JSONCodec.encode(.object(doc))
        let checksum = try Digest.sha256(bytes)
        guard let at = ExportFormat.lastRange(of: ExportFormat.zeros, in: bytes) else {
            throw SessionError(.ioError, "internal: the export's checksum placeholder is missing")
        }
        bytes.replaceSubrange(at, with: Array(checksum.utf8))
        return ExportedSession(bytes: bytes, sha256: try Digest.sha256(bytes), sessionId: d.id)
    }

    /// Creates a session from an export file's bytes: the same messages, tool results, usage,
    /// lineage, compactions and pending approvals, under the file's id, or a new id when that one
    /// is taken (also by an import of the same file running at the same time, in this process or
    /// another). The file is read as an attacker's (`ExportFile`): a file that is not JSON, not an
    /// export, of an unknown version, fails its checksum, carries an unknown state, usage that is
    /// negative, fractional, not finite or beyond `UsageCaps`, a message, compaction or tool call
    /// id twice, or does not replay is `InvalidArgument` (`data.reason`: `damaged`, `foreign`,
    /// `unsupportedVersion`), and nothing is created: the whole session is built and checked in
    /// memory first (the file's long arrays read one element at a time), then installed with one
    /// rename. Decided approvals and remembered decisions are not imported (`notImported`).
    public func importSession(_ bytes: [UInt8]) throws(SessionError) -> ImportedSession {
        let file = try ExportFile(bytes)
        var id = file.fileId
        var replaced: String?
        for _ in 0..<4 {
            if !SessionNames.isSafeName(id) || (try? handle(id)) != nil || Disk.identity(path: directory + "/" + id) != nil {
                replaced = file.fileId
                id = SessionNames.randomId("sess_")
            }
            let b = try build(file, id: id)
            if let session = try installIfFree(id, b, archive: []) {
                return ImportedSession(session: session, replacedId: replaced, notImported: file.notImported)
            }
            // Taken between the check and the rename (a concurrent import of the same file): again under a new id.
            replaced = file.fileId
            id = SessionNames.randomId("sess_")
        }
        throw SessionError(.ioError, "no free session id was found for the import")
    }

    /// The journal of an imported session under `id`, replayed as it is built.
    private func build(_ file: ExportFile, id: String) throws(SessionError) -> JournalBuild {
        // Compactions whose originals were dropped exist from the start (their place is a record);
        // the others are made (and undone) by their own records, in time order, after the messages.
        var extras = file.extras
        extras.compactions = file.compactions.filter { $0.originalsDroppedAtNanos != nil }
        var base = file.base
        base["t"] = "base"
        base["id"] = .string(id)
        base["toolSequence"] = 0
        base["extras"] = extras.isEmpty ? nil : extras.stored
        let updatedAt = file.session["updatedAt"] ?? 0
        base["at"] = updatedAt
        // The journal is about as long as the file: reserved once, never copied while it grows.
        var b = try JournalBuild(first: .object(base), reserving: file.bytes.count + file.bytes.count / 8)
        var chunk: [JSON] = []
        func flush(_ b: inout JournalBuild) throws(SessionError) {
            guard let last = chunk.last else { return }
            try b.add(["t": "msg", "m": .array(chunk), "at": last["at"] ?? 0])
            chunk = []
        }
        var seen = Set<String>()
        try file.messages { m throws(SessionError) in
            if let cid = m["placeOf"]?.stringValue {
                try flush(&b)
                try b.add(["t": "place", "cid": .string(cid), "at": updatedAt])
                return
            }
            guard case .object(var o) = m, let message = Message(stored: m) else { throw ExportFormat.damaged("a message is incomplete") }
            guard seen.insert(message.id).inserted else {
                throw ExportFormat.damaged("message id \(message.id) occurs twice", field: "messages.id", id: message.id)
            }
            o["compactedBy"] = nil
            chunk.append(.object(o))
            if chunk.count == 256 { try flush(&b) }
        }
        try flush(&b)
        var events: [(at: Int64, record: JSON)] = []
        for c in file.compactions where c.originalsDroppedAtNanos == nil {
            var r: JSONObject = ["t": "compact", "cid": .string(c.id), "first": .string(c.firstMessageId),
                                 "through": .string(c.throughMessageId), "summary": c.summary, "by": .string(c.by)]
            if c.summaryRole != .system { r["role"] = .string(c.summaryRole.rawValue) }
            r["at"] = .int(c.atNanos)
            events.append((c.atNanos, .object(r)))
            if let undone = c.undoneAtNanos { events.append((undone, ["t": "uncompact", "cid": .string(c.id), "at": .int(undone)])) }
        }
        for e in events.sorted(by: { $0.at < $1.at }) { try b.add(e.record) }
        var calls = Set<String>()
        try file.toolCalls { c throws(SessionError) in
            guard let cid = c["id"]?.stringValue, let name = c["name"]?.stringValue, let started = c["startedAt"]?.intValue else {
                throw ExportFormat.damaged("a tool call is incomplete")
            }
            guard calls.insert(cid).inserted else {
                throw ExportFormat.damaged("tool call id \(cid) occurs twice", field: "toolCalls.id", id: cid)
            }
            if let result = c["result"] {
                try b.add(["t": "begin", "call": .string(cid), "name": .string(name), "args": .object([:]), "at": .int(started)])
                try b.add(["t": "end", "call": .string(cid), "name": .string(name), "result": result,
                           "isError": c["isError"] ?? false, "at": c["finishedAt"] ?? .int(started)])
            } else {
                try b.add(["t": "begin", "call": .string(cid), "name": .string(name), "args": c["arguments"] ?? .object([:]),
                           "at": .int(started)])
            }
        }
        guard b.data.extras.compactions.count == file.compactions.count else { throw ExportFormat.damaged("compactions do not fit") }
        return b
    }
}
