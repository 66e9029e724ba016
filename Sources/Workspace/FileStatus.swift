#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a workspace entry is.
public enum EntryType: String, Sendable {
    case file, directory, symlink, other
}

/// What the workspace knows of one entry, without following symbolic links.
///
/// `etag` changes whenever the content may have changed: it is derived from the device, inode,
/// size and modification time in nanoseconds, and crash-safe saves always make a new inode.
public struct FileStatus: Sendable, Equatable {
    public var path: WorkspacePath
    public var type: EntryType
    public var size: Int64
    public var modifiedNanos: Int64
    public var createdNanos: Int64?
    public var mode: UInt32
    public var etag: String
    /// `current` here; the storage layer adds `notDownloaded` and `conflicted`.
    public var state: String = "current"

    init(path: WorkspacePath, stat st: stat) {
        self.path = path
        switch st.st_mode & S_IFMT {
        case S_IFREG: type = .file
        case S_IFDIR: type = .directory
        case S_IFLNK: type = .symlink
        default: type = .other
        }
        // Never reveal anything about a link's target: only the link's own facts.
        size = type == .directory ? 0 : Int64(st.st_size)
        modifiedNanos = st.modifiedNanos
        createdNanos = st.createdNanos
        mode = UInt32(st.st_mode & 0o7777)
        etag = Self.etag(st)
    }

    public var modified: String { Timestamp.iso8601(nanos: modifiedNanos) }
    public var created: String? { createdNanos.map { Timestamp.iso8601(nanos: $0) } }
    /// The permission bits as four octal digits, like `stat -c %04a`.
    public var modeString: String {
        let s = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// The etag of an entry: a hash of its `stat` as sixteen lowercase hex digits.
    static func etag(_ st: stat) -> String {
        var v = etagHash(st)
        return String(unsafeUninitializedCapacity: 16) { b in
            for i in stride(from: 15, through: 0, by: -1) {
                let d = UInt8(v & 0xf)
                b[i] = d < 10 ? 48 + d : 87 + d
                v >>= 4
            }
            return 16
        }
    }

    /// The hash behind an etag.
    private static func etagHash(_ st: stat) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ v: UInt64) {
            var x = v
            for _ in 0..<8 {
                h ^= x & 0xff
                h = h &* 0x0000_0100_0000_01b3
                x >>= 8
            }
        }
        mix(UInt64(truncatingIfNeeded: st.st_dev))
        mix(UInt64(truncatingIfNeeded: st.st_ino))
        mix(UInt64(truncatingIfNeeded: st.st_size))
        mix(UInt64(bitPattern: st.modifiedNanos))
        return h
    }
}

/// Timestamps as ISO 8601 UTC strings with milliseconds ("2026-11-22T11:20:00.123Z"), built in
/// place (listings format one per entry, so this is on a hot path).
public enum Timestamp {
    public static func iso8601(nanos: Int64) -> String {
        String(unsafeUninitializedCapacity: 24) { b in
            write(nanos: nanos, into: b.baseAddress!)
            return 24
        }
    }

    /// Writes the 24 bytes of `iso8601(nanos:)` at `b`.
    private static func write(nanos: Int64, into b: UnsafeMutablePointer<UInt8>) {
        // Floor division: times before 1970 count back from the earlier second.
        var secs = nanos / 1_000_000_000
        var sub = nanos % 1_000_000_000
        if sub < 0 { sub += 1_000_000_000; secs -= 1 }
        let ms = Int(sub / 1_000_000)
        // The civil date from the day number (Howard Hinnant's `civil_from_days`): pure
        // integer arithmetic, thread-safe, and far cheaper than `gmtime_r` per entry.
        var days = Int(secs) / 86_400
        var rem = Int(secs) % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func put(_ v: Int, _ width: Int, at i: Int) {
            var v = v
            for k in stride(from: i + width - 1, through: i, by: -1) {
                b[k] = UInt8(48 + v % 10)
                v /= 10
            }
        }
        put(year, 4, at: 0); b[4] = 45
        put(month, 2, at: 5); b[7] = 45
        put(day, 2, at: 8); b[10] = 84
        put(rem / 3600, 2, at: 11); b[13] = 58
        put(rem / 60 % 60, 2, at: 14); b[16] = 58
        put(rem % 60, 2, at: 17); b[19] = 46
        put(ms, 3, at: 20); b[23] = 90
    }
}
