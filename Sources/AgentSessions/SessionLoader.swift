#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

/// A session read from its folder.
struct LoadedSession {
    /// `nil` when the journal holds no intact first record.
    var data: SessionData?
    /// Where the intact part of the journal ends: the next append goes here.
    var validEnd: Int64
    var fault: JournalScan.Fault?
    /// The journal file as read (to notice later changes by other owners).
    var identity: FileIdentity
    var warnings: [String]
}

/// Recovery: open, scan and validate a session's journal, starting from its snapshot when the
/// snapshot matches. Never refuses a readable journal: a torn tail is ignored (and cut before
/// the next append), a damaged record ends the session's history just before it.
enum SessionLoader {
    /// `nil` when the folder has no journal (not a session, or one whose creation never finished).
    static func load(folder: String, id: String, useSnapshot: Bool = true) throws(SessionError) -> LoadedSession? {
        let path = folder + "/" + Journal.file
        let fd = Disk.openRegular(path, O_RDONLY)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .io("cannot open the journal of session \(id)", errno: errno, path: path)
        }
        defer { close(fd) }
        guard let identity = Disk.identity(fd: fd), let bytes = Disk.readAll(fd) else {
            throw .io("cannot read the journal of session \(id)", errno: errno, path: path)
        }
        var loaded = bytes.withUnsafeBytes { raw in
            replay(raw, folder: folder, useSnapshot: useSnapshot)
        }
        loaded.identity = FileIdentity(device: identity.device, inode: identity.inode, size: Int64(bytes.count),
                                       mtimeNanos: identity.mtimeNanos)
        if loaded.data == nil, case .damaged = loaded.fault {
            loaded.data = placeholder(id: id, at: identity.mtimeNanos)
        }
        loaded.data?.id = id
        return loaded
    }

    static func replay(_ raw: UnsafeRawBufferPointer, folder: String, useSnapshot: Bool) -> LoadedSession {
        let scan = JournalScan.scan(raw)
        var warnings: [String] = []
        var data: SessionData?
        var start = 0
        let snapshotPath = folder + "/" + Journal.snapshot
        if useSnapshot, let snap = Snapshot.read(snapshotPath, matching: scan), let d = SessionData(snapshot: snap) {
            data = d
            start = snap.records
        } else if useSnapshot, Disk.identity(path: snapshotPath) != nil {
            warnings.append("the snapshot does not match the journal (stale or damaged); replayed the journal from the start")
        }
        var fault = scan.fault
        var validEnd = scan.validEnd
        for i in start..<scan.entries.count {
            let e = scan.entries[i]
            let body = UnsafeRawBufferPointer(rebasing: raw[Int(e.ref.offset) + 9..<Int(e.ref.end) - 1])
            do {
                let record = try JSONCodec.decode(body)
                if var d = data {
                    data = nil  // `d` the only reference: applying changes it in place
                    defer { data = d }
                    try d.apply(record, ref: e.ref, crc: e.crc)
                } else {
                    data = try SessionData(create: record, ref: e.ref, crc: e.crc)
                }
            } catch {
                fault = .damaged(record: i, offset: e.ref.offset)
                validEnd = e.ref.offset
                break
            }
        }
        // A torn tail is reported when it is cut (it may also be a write in progress by the owner).
        if case .damaged(let record, let offset)? = fault {
            warnings.append("the journal is damaged at record \(record + 1) (byte \(offset)): the session opens with the "
                + "\(record) records before it; the damaged file is kept as journal.damaged-<n> at the next change")
        }
        return LoadedSession(data: data, validEnd: validEnd, fault: fault,
                             identity: FileIdentity(device: 0, inode: 0, size: 0, mtimeNanos: 0), warnings: warnings)
    }

    /// What a session whose very first record is damaged looks like: failed, read-only.
    private static func placeholder(id: String, at: Int64) -> SessionData {
        var d = SessionData(id: id, title: "", agentType: "", at: at)
        d.state = .failed
        d.error = ["code": "IOError", "message": "the session's journal is damaged from its first record"]
        return d
    }
}
