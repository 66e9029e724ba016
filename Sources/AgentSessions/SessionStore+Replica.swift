#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

extension SessionStore {
    /// The largest record the hub may hand back, and the largest journal: what an import accepts.
    static let replicaRecordLimit = 64 << 20
    static let replicaJournalLimit: Int64 = 1 << 30

    /// Hands records to the replica once they are durable here; records committed without a
    /// flush wait for the next flushed ones (a crash may still take them back). Lock held.
    func replicate(_ h: SessionHandle, offset: Int64, _ bytes: [UInt8], durable: Bool = true) {
        guard let replica, !bytes.isEmpty else { return }
        var from = offset
        var all = bytes
        if let p = h.unreplicated, p.offset + Int64(p.bytes.count) == offset {
            from = p.offset
            all = p.bytes + bytes
        }
        guard durable else {
            h.unreplicated = (from, all)
            return
        }
        h.unreplicated = nil
        replica.recordsDurable(session: h.id, offset: from, bytes: all)
    }

    /// Session `id` fetched from the replica when this machine holds no such session: every
    /// record checked as an import's are (`checkedJournal`), then kept here as a local session.
    /// `nil`: the replica has none (or there is no replica). A hub that cannot be reached is
    /// `NotFound` saying so; records that fail a check are refused with `IOError` and reported.
    func fetchFromReplica(_ id: String) throws(SessionError) -> SessionHandle? {
        guard let replica else { return nil }
        let rows: [ReplicaRecord]
        do { rows = try replica.records(session: id) } catch {
            throw SessionError(.notFound, "no session with id \(id) here, and the hub, which may hold it, cannot be read: \(error.message)",
                               .id(id))
        }
        guard !rows.isEmpty else { return nil }
        let checked: (bytes: [UInt8], data: SessionData)
        do { checked = try Self.checkedJournal(id, rows) } catch {
            warn(id, error.message)
            throw error
        }
        _ = try installIfFree(id, JournalBuild(replayed: checked.bytes, data: checked.data), archive: [], replicate: false)
        return handles.withLock { $0[id] }
    }

    /// The journal the hub's records of session `id` make, refused unless each record is whole
    /// and where it should be: offsets contiguous from 0, each one line ending in its newline,
    /// the checksum its line states right and equal to the one the hub states, within the
    /// bounds, every record replaying (the first a creation of session `id`).
    static func checkedJournal(_ id: String, _ rows: [ReplicaRecord]) throws(SessionError) -> (bytes: [UInt8], data: SessionData) {
        func refuse(_ i: Int, _ why: String) -> SessionError {
            SessionError(.ioError, "the hub's record \(i + 1) of session \(id) is refused (damaged or forged): \(why)", .id(id))
        }
        var bytes: [UInt8] = []
        for (i, r) in rows.enumerated() {
            guard r.offset == Int64(bytes.count) else {
                throw refuse(i, "it starts at byte \(r.offset), not at byte \(bytes.count) where the records before it end")
            }
            guard r.bytes.count <= replicaRecordLimit, Int64(bytes.count + r.bytes.count) <= replicaJournalLimit else {
                throw refuse(i, "it is larger than a journal record may be")
            }
            guard r.bytes.last == 0x0A, r.bytes.firstIndex(of: 0x0A) == r.bytes.count - 1 else {
                throw refuse(i, "it is not one journal line")
            }
            let crc = r.bytes.withUnsafeBytes { JournalLine.verify(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
            guard let crc else { throw refuse(i, "its checksum does not match its bytes") }
            guard Int64(crc) == r.crc else { throw refuse(i, "the hub states another checksum than the record's") }
            bytes += r.bytes
        }
        let loaded = bytes.withUnsafeBytes { SessionLoader.replay($0, folder: "", useSnapshot: false) }
        if case .damaged(let record, _)? = loaded.fault { throw refuse(record, "it does not fit the session's records before it") }
        guard let data = loaded.data, data.id == id else {
            throw refuse(0, "it does not create session \(id)")
        }
        return (bytes, data)
    }

    /// Hands the replica every record of a local session beyond where the replica's copy ends
    /// (`ends`, by session id): sessions written before the hub was configured, and a record
    /// whose outbox line a crash took between the journal's flush and the outbox's. The part
    /// handed over must be whole records from a record boundary, else nothing is (a session the
    /// hub holds differently: its records then show `diverged`). Returns how many sessions had
    /// records to hand over.
    @discardableResult
    public func catchUpReplica(ends: [String: Int64]) -> Int {
        guard let replica else { return 0 }
        var handed = 0
        for h in allHandles() {
            h.lock.lock()
            defer { h.lock.unlock() }
            guard (try? current(h)) != nil, h.data != nil else { continue }
            let from = ends[h.id] ?? 0
            let upTo = h.validEnd
            guard from < upTo else { continue }
            let bytes = try? withJournal(h) { fd throws(SessionError) in Disk.pread(fd, offset: from, length: Int(upTo - from)) }
            guard let bytes, Int64(bytes.count) == upTo - from else { continue }
            let scan = bytes.withUnsafeBytes { JournalScan.scan($0) }
            guard scan.fault == nil, scan.validEnd == Int64(bytes.count) else { continue }
            replica.recordsDurable(session: h.id, offset: from, bytes: bytes)
            handed += 1
        }
        return handed
    }

    /// Fetches the replica's sessions that this machine does not hold (for `list`); a session the
    /// hub holds damaged is left out and reported (`drainWarnings`), a hub that cannot be
    /// reached leaves the local sessions only.
    func fetchMissingFromReplica() {
        guard let replica else { return }
        let remote: [ReplicaSession]
        do { remote = try replica.sessions() } catch {
            warn(nil, "the hub's sessions are not listed: \(error.message)")
            return
        }
        for r in remote where SessionNames.isSafeName(r.id) && handles.withLock({ $0[r.id] }) == nil
            && Disk.identity(path: directory + "/" + r.id + "/" + Journal.file) == nil {
            do { _ = try fetchFromReplica(r.id) } catch {
                if error.kind != .ioError { warn(r.id, "not fetched from the hub: \(error.message)") }
            }
        }
    }
}
