#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON

extension SessionStore {
    /// A new session holding session `id`'s history up to and including message `atMessageId`
    /// (all of it when `nil`; a compaction's id cuts just after its summary), with the parent and
    /// the cut in its lineage. Carried over: the messages (compacted runs with their summaries and
    /// originals), the results of tool calls finished before the cut (so replaying one of those
    /// calls in the fork returns its result), the config, agent type, metadata and approval
    /// policy; `metadata` (an object) is merged over the copied metadata key by key (a `null`
    /// value removes the key). Not carried over: usage (the fork's budget starts fresh), state (`idle`), tool
    /// calls unfinished or finished after the cut, checkpoints and partial results, pending
    /// approvals and deferred calls. Parent and fork go on independently.
    ///
    /// The new journal is built in memory (message records before the cut copied byte for byte
    /// when the parent has no compactions), written to a hidden folder with one write and one
    /// flush, and renamed into place: after a crash the fork exists whole or not at all.
    public func fork(id: String, atMessageId: String? = nil, title: String? = nil,
                     metadata: JSONObject? = nil) throws(SessionError) -> Session {
        if let metadata { try SessionError.checkMetadataSize(.object(metadata), "the fork's") }
        let parent = try handle(id)
        parent.lock.lock()
        let build: JournalBuild
        let archive: [JSON]
        let newId = SessionNames.randomId("sess_")
        do {
            defer { parent.lock.unlock() }
            try current(parent)
            (build, archive) = try forkJournal(parent, newId: newId, atMessageId: atMessageId, title: title,
                                               metadata: metadata)
        }
        return try install(newId, build, archive: archive)
    }

    /// Lock held on `h`.
    private func forkJournal(_ h: SessionHandle, newId: String, atMessageId: String?, title: String?,
                             metadata: JSONObject?) throws(SessionError) -> (JournalBuild, [JSON]) {
        let d = try h.session
        var k = d.messages.count - 1
        if let atMessageId {
            guard let i = d.messageIndex[atMessageId] else {
                throw SessionError(.invalidArgument, "session \(h.id) has no message \(atMessageId)",
                                   .message(param: "atMessageId", id: atMessageId))
            }
            k = i
        }
        let at = now()
        let kept = k >= 0 ? Array(d.messages[0...k]) : []
        let keptCompactions = Set(kept.filter(\.isPlaceholder).map(\.id))
        var base = d
        base.title = title ?? d.title
        if let metadata {
            base.metadata = SessionData.merged(d.metadata, metadata)
            try SessionError.checkMetadataSize(base.metadata, "the fork's")
        }
        base.state = .idle
        base.error = nil
        base.usage = Usage()
        base.createdAt = at
        base.updatedAt = at
        base.declared = []
        base.toolSequence = 0
        var extras = SessionExtras()
        extras.lineage = Lineage(parentId: d.id, messageId: k >= 0 ? d.messages[k].id : nil, atNanos: at)
        extras.approvalPolicy = d.extras.approvalPolicy
        extras.remembered = d.extras.remembered
        extras.compactions = d.extras.compactions.filter { keptCompactions.contains($0.id) }.map { c in
            var c = c
            c.originals = nil
            return c
        }
        base.extras = extras
        var b = try JournalBuild(first: base.baseRecord(id: newId, at: at))
        // The originals of the compactions carried over go to the fork's own archive.
        var archive: [JSON] = []
        for c in d.extras.compactions where keptCompactions.contains(c.id) && c.originalsDroppedAtNanos == nil {
            archive.append(["t": "orig", "cid": .string(c.id), "m": .array(try originals(h, c).map(\.stored)), "at": .int(at)])
        }
        guard let bytes = try Disk.readFile(h.journalPath) else { throw .notFound("session", h.id) }
        let cutEnd = kept.last(where: { !$0.isPlaceholder })?.record.end ?? 0
        // A record that held a message deleted since would bring it back if copied as it is.
        let verbatim = d.extras.compactions.isEmpty && !d.hasDeletions
        do {
            func line(_ ref: RecordRef) throws(SessionError) -> (ArraySlice<UInt8>, UInt32) {
                guard ref.end <= Int64(bytes.count) else { throw .io("session \(h.id) changed during the fork", errno: EIO, path: h.journalPath) }
                let l = bytes[Int(ref.offset)..<Int(ref.end)]
                guard let crc = l.withUnsafeBytes({ JournalLine.verify(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }) else {
                    throw .io("a record of session \(h.id) at byte \(ref.offset) is damaged", errno: EIO, path: h.journalPath)
                }
                return (l, crc)
            }
            var g = 0
            while g < kept.count {
                let m = kept[g]
                if m.isPlaceholder {
                    try b.add(["t": "place", "cid": .string(m.id), "at": .int(at)])
                    g += 1
                    continue
                }
                var e = g
                while e + 1 < kept.count && kept[e + 1].record == m.record { e += 1 }
                let group = kept[g...e]
                // Whole record (the cut is not inside it): copy the line as it is.
                let cutInside = e == k && k + 1 < d.messages.count && d.messages[k + 1].record == m.record
                if verbatim && !cutInside {
                    let (l, crc) = try line(m.record)
                    b.copyMessageLine(l, crc: crc, at: d.updatedAt, messages: group.map { ($0.id, $0.position) })
                } else {
                    try b.add(messages: try readMessages(h, group))
                }
                g = e + 1
            }
            for t in d.toolCalls.values.sorted(by: { $0.sequence < $1.sequence }) {
                guard let ref = t.result, ref.offset < cutEnd else { continue }
                let (l, crc) = try line(ref)
                try b.copyResultLine(Array(l), crc: crc, call: t)
            }
        }
        return (b, archive)
    }

    /// Writes a new session's folder under a hidden name (journal in one write and one flush,
    /// the archive, this store's lease), renames it into place and flushes the sessions folder.
    /// A crash leaves the session whole or absent (a hidden `.new-…` folder at most).
    func install(_ id: String, _ b: JournalBuild, archive: [JSON]) throws(SessionError) -> Session {
        guard let s = try installIfFree(id, b, archive: archive) else {
            throw .io("cannot create session \(id)", errno: EEXIST, path: directory + "/" + id)
        }
        return s
    }

    /// `install`, nil (and nothing left behind) when a folder named `id` appeared meanwhile (a
    /// concurrent import of the same file, in this process or another): it is never replaced.
    /// `replicate`: hand the journal to the replica (false for a session fetched from it).
    func installIfFree(_ id: String, _ b: JournalBuild, archive: [JSON], replicate: Bool = true) throws(SessionError) -> Session? {
        try Disk.makeDirectories(directory)
        let hidden = directory + "/" + SessionNames.randomId(".new-")
        let folder = directory + "/" + id
        try Disk.makeDirectories(hidden)
        var lease = LeaseView()
        do throws(SessionError) {
            try Archive.append(folder: hidden, archive)
            _ = try LeaseFile.acquire(hidden, owner: owner, now: now(), term: leaseTerm, view: &lease)
            let path = hidden + "/" + Journal.file
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .io("cannot create the journal", errno: errno, path: path) }
            let ok = b.bytes.withUnsafeBytes { Disk.writeAll(fd, $0) } && Disk.flush(fd)
            let code = errno
            Disk.closeDescriptor(fd)
            guard ok else { throw .io("cannot write the journal", errno: code, path: path) }
            Disk.syncDirectory(hidden)
            if wb_renameat_noreplace(AT_FDCWD, hidden, AT_FDCWD, folder) != 0 {
                // No atomic no-replace on this file system: a plain rename, which refuses a folder
                // that holds anything (an installed session always holds its journal).
                guard errno == ENOSYS || errno == EINVAL, rename(hidden, folder) == 0 else {
                    guard errno == EEXIST || errno == ENOTEMPTY else { throw .io("cannot create session \(id)", errno: errno, path: folder) }
                    _ = Disk.removeTree(hidden)
                    return nil
                }
            }
        } catch {
            _ = Disk.removeTree(hidden)
            throw error
        }
        Disk.syncDirectory(directory)
        let h = SessionHandle(id: id, folder: folder)
        h.lock.lock()
        defer { h.lock.unlock() }
        lease.file = Disk.identity(path: folder + "/" + Journal.lease)
        h.leaseView = lease
        h.data = b.data
        h.loaded = true
        h.validEnd = b.data.end
        h.identity = Disk.identity(path: h.journalPath)
        handles.withLock { $0[id] = h }
        saveListing(h)
        if replicate { self.replicate(h, offset: 0, b.bytes) }
        return try view(h)
    }
}
