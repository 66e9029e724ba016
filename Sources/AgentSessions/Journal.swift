#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON

/// Where one record sits in a journal file: the whole line, checksum and newline included.
struct RecordRef: Sendable, Equatable {
    var offset: Int64
    var length: Int32
    var end: Int64 { offset + Int64(length) }
}

/// The journal's line format: `<crc32c of the JSON, 8 lowercase hex> <compact JSON>\n`.
///
/// jansson escapes control characters, so a record never holds a raw newline: a line is a record.
enum JournalLine {
    static func encode(_ record: JSON) -> [UInt8] { encodeWithChecksum(record).line }

    /// The line of `record` (`<crc32c hex> <json>\n`) and its checksum, computed once.
    static func encodeWithChecksum(_ record: JSON) -> (line: [UInt8], crc: UInt32) {
        let json = JSONCodec.encode(record)
        let crc = CRC32C.checksum(json)
        var line = [UInt8]()
        line.reserveCapacity(json.count + 10)
        appendHex(crc, to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: json)
        line.append(UInt8(ascii: "\n"))
        return (line, crc)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func appendHex(_ v: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 28, through: 0, by: -4) { out.append(digits[Int((v >> UInt32(shift)) & 0xF)]) }
    }

    /// The checksum of a line (without its newline) if the line is intact, else `nil`.
    static func verify(_ line: UnsafeRawBufferPointer) -> UInt32? {
        guard line.count >= 11, line[8] == UInt8(ascii: " ") else { return nil }
        var stated: UInt32 = 0
        for i in 0..<8 {
            let c = line[i]
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            default: return nil
            }
            stated = stated << 4 | UInt32(v)
        }
        let body = UnsafeRawBufferPointer(rebasing: line[9...])
        return CRC32C.checksum(body) == stated ? stated : nil
    }

    /// Decodes the JSON of an intact line (without its newline).
    static func decode(_ line: UnsafeRawBufferPointer) -> JSON? {
        guard verify(line) != nil else { return nil }
        return try? JSONCodec.decode(UnsafeRawBufferPointer(rebasing: line[9...]))
    }
}

/// The result of reading a journal from the start: every intact record up to the first fault.
struct JournalScan: Sendable {
    struct Entry: Sendable {
        var ref: RecordRef
        var crc: UInt32
    }
    enum Fault: Sendable, Equatable {
        /// The last write was cut off (no final newline, or a zero-filled tail): `bytes` after
        /// `validEnd` are dropped before the next append.
        case tornTail(bytes: Int64)
        /// Record number `record` (0-based) at `offset` fails its checksum while more follows,
        /// or cannot be understood: the journal counts only up to it.
        case damaged(record: Int, offset: Int64)
    }

    var entries: [Entry] = []
    var validEnd: Int64 = 0
    var fileSize: Int64 = 0
    var fault: Fault?

    static func scan(_ bytes: UnsafeRawBufferPointer) -> JournalScan {
        var s = JournalScan()
        s.fileSize = Int64(bytes.count)
        guard let base = bytes.baseAddress else { return s }
        var at = 0
        let n = bytes.count
        while at < n {
            guard let nl = memchr(base + at, 0x0A, n - at) else {
                s.fault = .tornTail(bytes: Int64(n - at))
                break
            }
            let lineEnd = base.distance(to: UnsafeRawPointer(nl))
            let line = UnsafeRawBufferPointer(start: base + at, count: lineEnd - at)
            if let crc = JournalLine.verify(line) {
                s.entries.append(Entry(ref: RecordRef(offset: Int64(at), length: Int32(lineEnd + 1 - at)), crc: crc))
                at = lineEnd + 1
                continue
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[at...])
            if rest.allSatisfy({ $0 == 0 || $0 == 0x0A }) {
                s.fault = .tornTail(bytes: Int64(n - at))  // a zero-filled tail after a power cut
            } else {
                s.fault = .damaged(record: s.entries.count, offset: Int64(at))
            }
            break
        }
        s.validEnd = s.entries.last?.ref.end ?? 0
        return s
    }
}

/// An open journal being appended to. Not thread-safe: its owner serialises access.
///
/// Durability: `append` writes at the known end with `pwrite` and, on any failure, cuts the
/// file back to that end, so a failed append leaves nothing behind; `sync` flushes to stable
/// storage and must return before the append is acknowledged.
struct JournalWriter {
    let path: String
    let fd: Int32
    private(set) var end: Int64

    /// Wraps a descriptor already open for writing, whose intact part ends at `end`.
    init(path: String, fd: Int32, end: Int64) {
        self.path = path
        self.fd = fd
        self.end = end
    }

    /// Opens `path` for appending after `validEnd`, creating it if needed. Bytes after
    /// `validEnd` (a torn tail) are cut off and the cut is flushed.
    static func openForAppend(_ path: String, validEnd: Int64) throws(SessionError) -> JournalWriter {
        let fd = Disk.openRegular(path, O_RDWR | O_CREAT)
        guard fd >= 0 else { throw .io("cannot open the journal \(path)", errno: errno, path: path) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            close(fd)
            throw .io("cannot stat the journal \(path)", errno: code, path: path)
        }
        if Int64(st.st_size) != validEnd {
            guard ftruncate(fd, off_t(validEnd)) == 0, wb_full_fsync(fd) == 0 else {
                let code = errno
                close(fd)
                throw .io("cannot cut the torn tail of \(path)", errno: code, path: path)
            }
        }
        return JournalWriter(path: path, fd: fd, end: validEnd)
    }

    /// Writes `bytes` (whole lines) at the end. Not durable until `sync()`.
    mutating func append(_ bytes: [UInt8]) throws(SessionError) {
        let ok = bytes.withUnsafeBytes { Disk.writeAll(fd, $0, at: end) }
        guard ok else {
            let code = errno
            _ = ftruncate(fd, off_t(end))
            throw .io("cannot append to \(path)", errno: code, path: path)
        }
        end += Int64(bytes.count)
    }

    /// Cuts the file back to `offset` (after a failed flush), so nothing unacknowledged stays.
    mutating func rollBack(to offset: Int64) {
        _ = ftruncate(fd, off_t(offset))
        end = offset
    }

    func sync() throws(SessionError) {
        guard wb_full_fsync(fd) == 0 else { throw .io("cannot flush \(path)", errno: errno, path: path) }
    }

    func closeFile() { close(fd) }
}

extension Journal {
    /// Keeps a damaged journal aside as `journal.damaged-<n>` (the first free `n`) and replaces
    /// the journal with its intact prefix (`validEnd` bytes), crash-safely. Returns the name kept.
    static func setAside(_ path: String, validEnd: Int64) throws(SessionError) -> String {
        guard let bytes = try Disk.readFile(path) else { throw .io("the journal vanished", errno: ENOENT, path: path) }
        let dir = Disk.parent(of: path)
        var n = 1
        while Disk.identity(path: dir + "/journal.damaged-\(n)") != nil { n += 1 }
        let kept = dir + "/journal.damaged-\(n)"
        if link(path, kept) != 0 {
            // No hard links here (some synced file systems): copy instead.
            try Disk.writeAtomically(kept, bytes)
        }
        try Disk.writeAtomically(path, Array(bytes[0..<Int(min(validEnd, Int64(bytes.count)))]))
        return "journal.damaged-\(n)"
    }
}

/// Names of the files in a session's folder.
enum Journal {
    static let file = "journal.jsonl"
    static let snapshot = "snapshot.json"
    static let lease = "lease.json"
}
