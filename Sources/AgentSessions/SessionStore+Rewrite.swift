#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON

/// The steps of a journal rewrite, in order (see `SessionStore.rewrite(id:)`).
enum RewriteStep: String, Sendable, CaseIterable {
    /// Compacted originals appended to the archive and flushed.
    case archived
    /// The new journal written to its temp file (not flushed).
    case tempWritten
    /// The temp file flushed.
    case tempFlushed
    /// The temp file renamed over `journal.jsonl` (the folder not flushed yet).
    case renamed
    /// The folder flushed: the rewrite is complete.
    case folderFlushed
}

extension SessionStore {
    /// Rewrites the session's journal to what its state needs: one `base` record with every
    /// fact, the messages in order (compacted runs as their place only, their originals moved to
    /// the archive), the finished tool calls' results (copied byte for byte), the unfinished
    /// calls, and the last checkpoint. State changes, usage records, earlier checkpoints and
    /// read-only tool records (`read`) are folded into `base` or dropped.
    ///
    /// Crash safety: originals are appended to the archive and flushed first; the new journal is
    /// written to a temp file, flushed, renamed over the journal, and the folder flushed. After a
    /// crash at any moment the journal is the old one or the new one, whole, and every original is
    /// in the journal or the archive. Returns the journal's size before and after.
    @discardableResult
    public func rewrite(id: String) throws(SessionError) -> (before: Int64, after: Int64) {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        return try rewriteLocked(h)
    }

    /// Lock held, `prepareWrite(h)` done.
    func rewriteLocked(_ h: SessionHandle) throws(SessionError) -> (before: Int64, after: Int64) {
        let d = try h.session
        let before = h.writer?.end ?? d.end
        let at = now()
        var extras = d.extras
        var archive: [JSON] = []
        for k in extras.compactions.indices {
            if extras.compactions[k].isActive, extras.compactions[k].originalsDroppedAtNanos == nil,
               let refs = extras.compactions[k].originals {
                let msgs = try readMessages(h, refs[...])
                archive.append(["t": "orig", "cid": .string(extras.compactions[k].id), "m": .array(msgs.map(\.stored)),
                                "at": .int(at)])
            }
            extras.compactions[k].originals = nil
        }
        var base = d
        base.extras = extras
        base.toolSequence = d.toolSequence - d.toolCalls.count
        var b = try JournalBuild(first: base.baseRecord(at: at))
        var chunk: [MessageRef] = []
        for (k, m) in d.messages.enumerated() {
            if !m.isPlaceholder { chunk.append(m) }
            let last = k == d.messages.count - 1
            if !chunk.isEmpty && (m.isPlaceholder || chunk.count == 256 || last) {
                try b.add(messages: try readMessages(h, chunk[...]))
                chunk = []
            }
            if m.isPlaceholder {
                let made = d.extras.compactions.first { $0.id == m.id }?.atNanos ?? d.updatedAt
                try b.add(["t": "place", "cid": .string(m.id), "at": .int(made)])
            }
        }
        let calls = d.toolCalls.values.sorted { $0.sequence < $1.sequence }
        try withJournal(h) { fd throws(SessionError) in
            for t in calls {
                if let ref = t.result {
                    guard let line = Disk.pread(fd, offset: ref.offset, length: Int(ref.length)), line.last == 0x0A,
                          let crc = line.withUnsafeBytes({ JournalLine.verify(UnsafeRawBufferPointer(rebasing: $0.dropLast())) })
                    else { throw .io("a tool result of session \(h.id) cannot be read", errno: EIO, path: h.journalPath) }
                    try b.copyResultLine(line, crc: crc, call: t)
                } else {
                    try b.add(["t": "begin", "call": .string(t.id), "name": .string(t.name), "args": t.arguments ?? .object([:]),
                               "at": .int(t.startedAt)])
                }
            }
        }
        if let c = d.checkpoint {
            if let p = c.partial {
                let r = try readRecord(h, p)
                try b.add(["t": "ckpt", "cid": r["cid"] ?? .string(c.id), "partial": r["partial"] ?? .null,
                           "at": r["at"] ?? .int(c.at)])
            }
            if c.partial != c.record { try b.add(["t": "ckpt", "cid": .string(c.id), "at": .int(c.at)]) }
        }
        try Archive.append(folder: h.folder, archive)
        if stopped(at: .archived, h) { throw injectedStop(.archived) }
        try replaceJournal(h, b.bytes)
        h.closeWriter()
        var next = b.data
        h.compactedIds = nil
        next.sinceSnapshot = 0  // a rewritten journal is as short as a snapshot would make recovery
        h.data = next
        h.validEnd = next.end
        h.fault = nil
        h.identity = Disk.identity(path: h.journalPath)
        // Keep the journal open for appending, as `prepareWrite` left it (the lease is still ours).
        let writer = try JournalWriter.openForAppend(h.journalPath, validEnd: next.end)
        h.writer = writer
        h.identity = Disk.identity(fd: writer.fd)
        return (before, next.end)
    }

    func stopped(at step: RewriteStep, _ h: SessionHandle) -> Bool {
        guard let stop = rewriteStop.withLock({ $0 }), stop(step) else { return false }
        h.closeWriter()
        h.loaded = false  // read everything again from disk, as a restarted server would
        return true
    }

    func injectedStop(_ step: RewriteStep) -> SessionError {
        SessionError(.ioError, "test: stopped at \(step.rawValue)")
    }

    /// Replaces the journal with `bytes`: temp file, flush, rename, flush the folder. The old
    /// snapshot is removed first (it describes the old file). Lock held.
    func replaceJournal(_ h: SessionHandle, _ bytes: [UInt8]) throws(SessionError) {
        let prefix = ".syncthing." + Journal.file + ".wb-"
        for name in Disk.list(h.folder) ?? [] where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(h.folder + "/" + name)  // a rewrite cut off by a crash; we hold the lease and the lock
        }
        let tmp = Disk.tempName(for: h.journalPath)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io("cannot create \(tmp)", errno: errno, path: h.journalPath) }
        var ok = bytes.withUnsafeBytes { Disk.writeAll(fd, $0) }
        if ok, stopped(at: .tempWritten, h) { Disk.closeDescriptor(fd); throw injectedStop(.tempWritten) }
        ok = ok && wb_full_fsync(fd) == 0
        let code = errno
        Disk.closeDescriptor(fd)
        guard ok else {
            unlink(tmp)
            throw .io("cannot write the rewritten journal", errno: code, path: h.journalPath)
        }
        if stopped(at: .tempFlushed, h) { throw injectedStop(.tempFlushed) }
        unlink(h.folder + "/" + Journal.snapshot)
        guard rename(tmp, h.journalPath) == 0 else {
            let code = errno
            unlink(tmp)
            throw .io("cannot replace the journal", errno: code, path: h.journalPath)
        }
        if stopped(at: .renamed, h) { throw injectedStop(.renamed) }
        guard Disk.syncDirectory(h.folder) else {
            let code = errno
            h.closeWriter()
            h.loaded = false  // the new journal is in place: read it again
            throw .io("cannot flush the session folder", errno: code, path: h.folder)
        }
        if stopped(at: .folderFlushed, h) { throw injectedStop(.folderFlushed) }
    }
}
