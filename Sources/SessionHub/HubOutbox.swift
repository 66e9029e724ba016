#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON
import SystemSupport

/// The records durable here and not yet committed to the hub, in the order they were written: a
/// file in the config folder (never the synced root: each machine has its own), one JSON line
/// per record (`{"s": session, "o": offset, "b": base64 bytes}`), then `{"done": n}` lines as the
/// first n are committed. Emptied (cut to nothing) whenever everything is committed.
///
/// Durable: `add` returns once the lines are flushed. A torn last line (a crash mid-write) is
/// dropped when the file is read again; that record is sent again by the catch-up at connect.
/// Threads: thread-safe (one lock, held across the file I/O).
final class HubOutbox: @unchecked Sendable {  // every var under `lock`
    struct Entry: Sendable {
        var session: String
        var offset: Int64
        var bytes: [UInt8]
    }

    let path: String
    private let lock = PThreadLock()
    private let fd: Int32
    /// Lines in the file that are entries (committed ones included).
    private var written = 0
    private var pending: [Entry] = []
    private var pendingBySession: [String: Int] = [:]

    init(path: String) throws(HubError) {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw HubError("cannot open the hub outbox \(path): \(String(cString: strerror(errno)))") }
        guard let bytes = FileIO.readToEnd(fd) else { throw HubError("cannot read the hub outbox \(path)") }
        var entries: [Entry] = []
        var done = 0
        var start = 0
        var end = 0
        for (i, b) in bytes.enumerated() where b == 0x0A {
            guard let j = try? JSONCodec.decode(Array(bytes[start..<i])) else { break }
            start = i + 1
            end = start
            if let n = j["done"]?.intValue { done = max(done, Int(n)); continue }
            guard let s = j["s"]?.stringValue, let o = j["o"]?.intValue, let b = j["b"]?.stringValue.flatMap(Base64.decode) else { break }
            entries.append(Entry(session: s, offset: o, bytes: b))
        }
        if end < bytes.count { _ = ftruncate(fd, off_t(end)) }  // a torn last line
        written = entries.count
        pending = Array(entries.dropFirst(min(done, entries.count)))
        for e in pending { pendingBySession[e.session, default: 0] += 1 }
        if pending.isEmpty { cut() }
    }

    deinit { close(fd) }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return pending.count
    }

    func pendingCount(session: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return pendingBySession[session] ?? 0
    }

    /// Keeps `bytes` (whole journal lines from `offset`), one entry per record, durably.
    func add(session: String, offset: Int64, bytes: [UInt8]) throws(HubError) {
        var entries: [Entry] = []
        var start = 0
        for (i, b) in bytes.enumerated() where b == 0x0A {
            entries.append(Entry(session: session, offset: offset + Int64(start), bytes: Array(bytes[start...i])))
            start = i + 1
        }
        guard !entries.isEmpty else { return }
        var out: [UInt8] = []
        for e in entries {
            out += JSONCodec.encode(["s": .string(e.session), "o": .int(e.offset), "b": .string(Base64.encode(e.bytes))])
            out.append(0x0A)
        }
        lock.lock()
        defer { lock.unlock() }
        let end = lseek(fd, 0, SEEK_END)
        guard FileIO.writeAll(fd, out), wb_full_fsync(fd) == 0 else {
            let code = errno
            _ = ftruncate(fd, end)
            throw HubError("cannot write the hub outbox \(path): \(String(cString: strerror(code)))")
        }
        written += entries.count
        pending += entries
        for e in entries { pendingBySession[e.session, default: 0] += 1 }
    }

    /// The first `limit` entries not yet committed, oldest first.
    func next(_ limit: Int) -> [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return Array(pending.prefix(limit))
    }

    /// The first `n` entries of `next` are committed to the hub (or given up on).
    func acknowledge(_ n: Int) {
        lock.lock()
        defer { lock.unlock() }
        let n = min(n, pending.count)
        for e in pending.prefix(n) {
            pendingBySession[e.session, default: 1] -= 1
            if pendingBySession[e.session] == 0 { pendingBySession[e.session] = nil }
        }
        pending.removeFirst(n)
        if pending.isEmpty {
            cut()
            return
        }
        var line = JSONCodec.encode(["done": .int(Int64(written - pending.count))])
        line.append(0x0A)
        // Not flushed: were it lost, the entries are sent again, and the hub keeps each once.
        _ = lseek(fd, 0, SEEK_END)
        _ = FileIO.writeAll(fd, line)
    }

    /// Empties the file: everything in it is committed. Lock held (or in `init`).
    private func cut() {
        _ = ftruncate(fd, 0)
        _ = wb_full_fsync(fd)
        written = 0
    }
}
