#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON

/// A session's archive of compacted originals: `<session>/compacted.jsonl`, in the journal's
/// line format, one `{"t": "orig", "cid", "m": [messages]}` record per compaction (or per chunk).
///
/// A journal rewrite appends the originals here and flushes them *before* the rewritten journal
/// replaces the old one, so at every moment the originals are in the journal, the archive, or
/// both. A crash between the two leaves duplicates, which reading ignores (by compaction and
/// message id). Retention rewrites the file without the compactions whose originals it drops
/// (temp, flush, rename, flush folder). The journal stays the truth about which compactions
/// exist; lines for unknown or undone compactions are ignored and dropped by the next prune.
enum Archive {
    static let file = "compacted.jsonl"

    /// Appends `records` durably (flushing the folder when the file is new).
    static func append(folder: String, _ records: [JSON]) throws(SessionError) {
        guard !records.isEmpty else { return }
        let path = folder + "/" + file
        let existed = Disk.identity(path: path) != nil
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io("cannot open the archive", errno: errno, path: path) }
        defer { close(fd) }
        // Start on a line of our own: a crashed append may have left a torn tail.
        let size = Disk.identity(fd: fd)?.size ?? 0
        var bytes: [UInt8] = []
        if size > 0, let last = Disk.pread(fd, offset: size - 1, length: 1), last != [0x0A] { bytes.append(0x0A) }
        for r in records { bytes += JournalLine.encode(r) }
        guard bytes.withUnsafeBytes({ Disk.writeAll(fd, $0, at: size) }), wb_full_fsync(fd) == 0 else {
            let code = errno
            _ = ftruncate(fd, off_t(size))
            throw .io("cannot append to the archive", errno: code, path: path)
        }
        if !existed { Disk.syncDirectory(folder) }
    }

    /// The originals of each compaction in `cids` (all when `nil`), in order, without duplicates.
    /// Damaged lines are skipped (the journal still knows the compaction; its originals show as lost).
    static func read(folder: String, cids: Set<String>? = nil) throws(SessionError) -> [String: [Message]] {
        guard let bytes = try Disk.readFile(folder + "/" + file) else { return [:] }
        var out: [String: [Message]] = [:]
        var seen: [String: Set<String>] = [:]
        for r in records(bytes) {
            guard r["t"]?.stringValue == "orig", let cid = r["cid"]?.stringValue, cids?.contains(cid) ?? true else { continue }
            for m in r["m"]?.arrayValue ?? [] {
                guard let msg = Message(stored: m), seen[cid, default: []].insert(msg.id).inserted else { continue }
                out[cid, default: []].append(msg)
            }
        }
        return out
    }

    /// Every intact record of an archive's bytes (lines failing their checksum are skipped).
    static func records(_ bytes: [UInt8]) -> [JSON] {
        var out: [JSON] = []
        bytes.withUnsafeBytes { raw in
            var start = 0
            for i in 0..<raw.count where raw[i] == 0x0A {
                if let j = JournalLine.decode(UnsafeRawBufferPointer(rebasing: raw[start..<i])) { out.append(j) }
                start = i + 1
            }
        }
        return out
    }

    /// Rewrites the archive keeping only the records of `keep`; removes it when none is left.
    static func retain(folder: String, keep: Set<String>) throws(SessionError) {
        let path = folder + "/" + file
        guard let bytes = try Disk.readFile(path) else { return }
        let kept = records(bytes).filter { $0["cid"]?.stringValue.map(keep.contains) ?? false }
        if kept.isEmpty {
            guard unlink(path) == 0 || errno == ENOENT else { throw .io("cannot remove the archive", errno: errno, path: path) }
            Disk.syncDirectory(folder)
            return
        }
        var out: [UInt8] = []
        for r in kept { out += JournalLine.encode(r) }
        if out.count != bytes.count { try Disk.writeAtomically(path, out) }
    }
}
