#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

extension SessionStore {
    /// Creates a session in state `idle`, durable before it returns, with this store holding its lease.
    /// `approvalPolicy` is part of the creation record (a session never exists without it).
    /// With `parentId` (a session that must exist) the new session is that session's child (a
    /// stream of its own under it, e.g. a subagent's transcript: lineage kind `child`).
    public func create(title: String? = nil, agentType: String? = nil, config: SessionConfig = SessionConfig(),
                       metadata: JSON? = nil, approvalPolicy: ApprovalPolicy = .none,
                       parentId: String? = nil) throws(SessionError) -> Session {
        try SessionError.checkMetadataSize(metadata, "the session's")
        if let parentId { _ = try get(id: parentId) }
        let id = SessionNames.randomId("sess_")
        let folder = directory + "/" + id
        try Disk.makeDirectories(folder)
        let h = SessionHandle(id: id, folder: folder)
        h.lock.lock()
        defer { h.lock.unlock() }
        var record: JSONObject = ["t": "create", "id": .string(id), "title": .string(title ?? "Untitled"),
                                  "agentType": .string(agentType ?? "default"), "config": config.stored]
        if let metadata { record["metadata"] = metadata }
        if approvalPolicy != .none { record["approvalPolicy"] = approvalPolicy.storedJSON }
        let at = now()
        if let parentId { record["lineage"] = Lineage(parentId: parentId, messageId: nil, atNanos: at, kind: .child).stored }
        record["at"] = .int(at)
        let (line, crc) = JournalLine.encodeWithChecksum(.object(record))
        var writer: JournalWriter
        do throws(SessionError) {
            var lease = LeaseView()
            _ = try LeaseFile.acquire(folder, owner: owner, now: now(), term: leaseTerm, view: &lease)
            h.leaseView = lease
            writer = try JournalWriter.openForAppend(h.journalPath, validEnd: 0)
            do throws(SessionError) {
                try writer.append(line)
                try writer.sync()
            } catch {
                writer.closeFile()
                throw error
            }
        } catch {
            _ = Disk.removeTree(folder)
            throw error
        }
        Disk.syncDirectory(folder)
        Disk.syncDirectory(directory)
        h.data = try? SessionData(create: .object(record), ref: RecordRef(offset: 0, length: Int32(line.count)), crc: crc)
        h.loaded = true
        h.writer = writer
        h.validEnd = writer.end
        h.identity = Disk.identity(fd: writer.fd)
        handles.withLock { $0[id] = h }
        saveListing(h)
        replicate(h, offset: 0, line)
        return try view(h)
    }

    /// The session's facts; with `withBytesOnDisk`, also what its folder holds on disk.
    public func get(id: String, withBytesOnDisk: Bool = false) throws(SessionError) -> Session {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        var s = try view(h)
        if withBytesOnDisk { s.bytesOnDisk = folderBytes(h.folder) }
        return s
    }

    /// Removes the session and its folder (needs the lease).
    public func delete(id: String) throws(SessionError) {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        try remove(h)
    }

    /// Removes the session only while its journal still holds exactly `records` records: the
    /// caller knows what those were (e.g. its creation and one state move) and that nothing has
    /// been journaled since, by anyone (decided under the lease, on the newest journal). Returns
    /// whether it removed it.
    public func deleteUnchanged(id: String, records: Int) throws(SessionError) -> Bool {
        let h = try locked(id, forWriting: true)
        defer { h.lock.unlock() }
        guard h.data?.records == records else { return false }
        try remove(h)
        return true
    }

    /// Lock held, lease held.
    private func remove(_ h: SessionHandle) throws(SessionError) {
        let id = h.id
        h.closeWriter()
        let grave = directory + "/" + SessionNames.randomId(".deleted-")
        guard rename(h.folder, grave) == 0 else { throw .io("cannot delete session \(id)", errno: errno, path: h.folder) }
        Disk.syncDirectory(directory)
        if !Disk.removeTree(grave) { warn(id, "the deleted session's files could not all be removed from \(grave)") }
        h.deleted = true
        h.data = nil
        handles.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Gives up this store's lease on the session (another owner may then change it).
    public func release(id: String) {
        guard let h = try? handle(id) else { return }
        h.lock.lock()
        defer { h.lock.unlock() }
        h.closeWriter()
        LeaseFile.release(h.folder, owner: owner, view: &h.leaseView)
    }

    /// Releases every lease this store holds and closes its files. The store stays usable.
    public func close() {
        for h in handles.withLock({ Array($0.values) }) {
            h.lock.lock()
            if h.writer != nil || h.loaded {
                if !h.deleted { saveListing(h) }
                h.closeWriter()
                if !h.deleted { LeaseFile.release(h.folder, owner: owner, view: &h.leaseView) }
            }
            h.lock.unlock()
        }
    }
}
