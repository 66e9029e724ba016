#if canImport(Glibc)
import SystemSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

extension SessionStore {
    static let retentionFile = "retention.json"

    /// The workspace's retention policy (empty when none was set).
    public func retentionPolicy() throws(SessionError) -> RetentionPolicy {
        if let p = retentionCache.withLock({ $0 }) { return p }
        var policy = RetentionPolicy()
        do {
            if let bytes = try Disk.readFile(directory + "/" + Self.retentionFile, cap: .retentionPolicy) {
                guard let read = RetentionPolicy(stored: try JSONCodec.decode(bytes)), read.isValid else {
                    throw SessionError.invalid("it is not a retention policy (an object of limits, each an integer at least its minimum)")
                }
                policy = read
            }
        } catch {
            warn(nil, "the retention policy file cannot be read (\(error)); nothing is pruned until it is set again")
        }
        retentionCache.withLock { $0 = policy }
        return policy
    }

    /// Stores the policy durably (crash-safely replaced) and returns it. Applied by the next
    /// `prune()` and after every append that takes a session over `maxBytesPerSession`.
    @discardableResult
    public func setRetentionPolicy(_ policy: RetentionPolicy) throws(SessionError) -> RetentionPolicy {
        try Disk.makeDirectories(directory)
        try Disk.writeAtomically(directory + "/" + Self.retentionFile, JSONCodec.encode(policy.stored))
        retentionCache.withLock { $0 = policy }
        return policy
    }

    /// Bytes the session holds on disk: every file in its folder.
    public func bytesOnDisk(id: String) throws(SessionError) -> Int64 {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        return folderBytes(h.folder)
    }

    /// The listing index is left out: a cache of a few hundred bytes, written when a list finds it
    /// stale, it would make the figure change with listing rather than with the session.
    func folderBytes(_ folder: String) -> Int64 {
        (Disk.list(folder) ?? []).filter { $0 != ListingIndex.file }
            .reduce(Int64(0)) { $0 + (Disk.identity(path: folder + "/" + $1)?.size ?? 0) }
    }

    /// Applies the retention policy to every session this store can change (sessions another
    /// owner holds are left alone): drops compacted originals past their time, brings sessions
    /// under `maxBytesPerSession`, and deletes ended sessions beyond `keepEndedSessions`.
    public func prune() throws(SessionError) -> PruneReport {
        let policy = try retentionPolicy()
        var report = PruneReport()
        var ended: [(id: String, updated: Int64)] = []
        for h in allHandles() {
            h.lock.lock()
            defer { h.lock.unlock() }
            guard (try? current(h)) != nil, let d = h.data else { continue }
            if d.state.isFinal { ended.append((d.id, d.updatedAt)) }
            do {
                if let p = try pruneLocked(h, policy) { report.sessions.append(p) }
            } catch {
                if error.kind != .sessionLocked { warn(h.id, "not pruned: \(error.message)") }
            }
        }
        if let keep = policy.keepEndedSessions, ended.count > keep {
            ended.sort { ($0.updated, $0.id) > ($1.updated, $1.id) }
            for e in ended[keep...] {
                do {
                    try delete(id: e.id)
                    report.deletedSessions.append(e.id)
                } catch {
                    if error.kind != .sessionLocked { warn(e.id, "not deleted by retention: \(error.message)") }
                }
            }
        }
        report.sessions.sort { $0.id < $1.id }
        sweepLeftovers()
        return report
    }

    /// Removes what crashed operations left in the sessions folder: hidden `.new-…` folders of
    /// forks and imports that never got their name, `.deleted-…` folders of deletions cut off
    /// half-way. Only those untouched for an hour (another server may be writing a new one now).
    func sweepLeftovers() {
        let hour: Int64 = 3600 * 1_000_000_000
        for name in Disk.list(directory) ?? [] where name.hasPrefix(".new-") || name.hasPrefix(".deleted-") {
            let path = directory + "/" + name
            guard let id = Disk.identity(path: path), WallClock.nanos() - id.mtimeNanos > hour else { continue }
            if !Disk.removeTree(path) { warn(nil, "cannot remove the leftover \(name)") }
        }
    }

    /// Prunes one session. Lock held, `current(h)` done. `nil` when nothing changed.
    func pruneLocked(_ h: SessionHandle, _ policy: RetentionPolicy) throws(SessionError) -> PrunedSession? {
        let before = folderBytes(h.folder)
        var dropped: [String] = []
        var droppedMessages = 0
        let t = now()
        var expired: [String] = []
        if let keep = policy.keepCompactedOriginalsSeconds {
            expired = try h.session.extras.compactions.filter {
                $0.isActive && $0.originalsDroppedAtNanos == nil && t - $0.atNanos >= keep * 1_000_000_000
            }.map(\.id)
        }
        let over = policy.maxBytesPerSession.map { before > $0 } ?? false
        guard over || !expired.isEmpty else { return nil }
        try prepareWrite(h)
        if !expired.isEmpty {
            try dropOriginals(h, expired)
            dropped += expired
        }
        if let max = policy.maxBytesPerSession, folderBytes(h.folder) > max {
            _ = try rewriteLocked(h)
            // Compacted originals go first, oldest compaction first.
            while folderBytes(h.folder) > max,
                  let c = try h.session.extras.compactions.first(where: { $0.isActive && $0.originalsDroppedAtNanos == nil }) {
                try dropOriginals(h, [c.id])
                dropped.append(c.id)
            }
            // Then the oldest messages, folded into one compaction whose originals are dropped.
            if folderBytes(h.folder) > max {
                let n = try foldOldest(h, max: max)
                droppedMessages += n
            }
        }
        let after = folderBytes(h.folder)
        return PrunedSession(id: h.id, bytesBefore: before, bytesAfter: after, droppedOriginals: dropped,
                             droppedMessages: droppedMessages)
    }

    /// Records that the originals of `cids` are dropped (durable first), then removes them from
    /// the journal (a rewrite) and the archive. A crash in between leaves originals on disk that
    /// nothing shows; the next prune removes them. Lock held, `prepareWrite(h)` done.
    func dropOriginals(_ h: SessionHandle, _ cids: [String]) throws(SessionError) {
        try commit(h, [["t": "drop", "cids": .array(cids.map(JSON.string)), "at": .int(now())]])
        if try h.session.extras.compactions.contains(where: { cids.contains($0.id) && $0.originals != nil }) {
            _ = try rewriteLocked(h)
            try prepareWrite(h)
        }
        let keep = Set(try h.session.extras.compactions.filter { $0.isActive && $0.originalsDroppedAtNanos == nil }.map(\.id))
        try Archive.retain(folder: h.folder, keep: keep)
    }

    /// Folds the oldest messages (those before the last compaction's place count as already
    /// folded) into a `retention` compaction until the journal would fit in 3/4 of `max`, drops
    /// its originals, and rewrites. Returns how many messages were folded. Lock held.
    func foldOldest(_ h: SessionHandle, max: Int64) throws(SessionError) -> Int {
        let d = try h.session
        let target = max * 3 / 4
        var excess = folderBytes(h.folder) - target
        // The first run of plain messages, from the start (skipping compaction places).
        var i = 0
        while i < d.messages.count && d.messages[i].isPlaceholder { i += 1 }
        guard i < d.messages.count else { return 0 }
        // A message's share of the bytes: its record's length over the messages the record holds.
        var perRecord: [Int64: Int] = [:]
        for m in d.messages where !m.isPlaceholder { perRecord[m.record.offset, default: 0] += 1 }
        func share(_ m: MessageRef) -> Int64 { Int64(m.record.length) / Int64(Swift.max(1, perRecord[m.record.offset] ?? 1)) }
        var j = i
        excess -= share(d.messages[i])
        while j < d.messages.count - 1 && !d.messages[j + 1].isPlaceholder && excess > 0 {
            j += 1
            excess -= share(d.messages[j])
        }
        // Keep at least the last message of the session readable.
        if j == d.messages.count - 1 && j > i { j -= 1 }
        let count = j - i + 1
        let summary: JSON = ["type": "text", "text": .string("\(count) earlier messages were removed by the workspace's retention policy.")]
        let cid = SessionNames.randomId("cmp_")
        try commit(h, [["t": "compact", "cid": .string(cid), "first": .string(d.messages[i].id),
                        "through": .string(d.messages[j].id), "summary": summary, "by": "retention", "at": .int(now())]])
        try commit(h, [["t": "drop", "cids": [.string(cid)], "at": .int(now())]])
        _ = try rewriteLocked(h)
        try prepareWrite(h)
        return count
    }

    /// After a durable append: prunes the session when it went over the policy's size and grew by
    /// a quarter of the limit since the last prune (a prune brings it to 3/4 of the limit, so the
    /// rewrites cost amortized constant work per appended byte). Lock held.
    func pruneIfOver(_ h: SessionHandle) {
        guard let policy = try? retentionPolicy(), let max = policy.maxBytesPerSession, let d = h.data,
              d.end > max, d.end - h.prunedAt >= max / 4 else { return }
        do {
            _ = try pruneLocked(h, policy)
            h.prunedAt = h.data?.end ?? 0
        } catch {
            h.prunedAt = d.end
            warn(h.id, "the retention policy could not be applied: \(error.message)")
        }
    }
}
