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

    static func etag(_ st: stat) -> String {
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
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Timestamps as ISO 8601 UTC strings with milliseconds ("2026-11-22T11:20:00.123Z"), written
/// straight into 24 bytes (listings format one per entry, so this is on a hot path).
public enum Timestamp {
    public static func iso8601(nanos: Int64) -> String {
        var secs = time_t(nanos / 1_000_000_000)
        var ms = Int((nanos % 1_000_000_000) / 1_000_000)
        if ms < 0 { ms += 1000; secs -= 1 }
        var tm = tm()
        gmtime_r(&secs, &tm)
        return String(unsafeUninitializedCapacity: 24) { b in
            func put(_ v: Int, _ width: Int, at i: Int) {
                var v = v
                for k in stride(from: i + width - 1, through: i, by: -1) {
                    b[k] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(Int(tm.tm_year) + 1900, 4, at: 0); b[4] = 45
            put(Int(tm.tm_mon) + 1, 2, at: 5); b[7] = 45
            put(Int(tm.tm_mday), 2, at: 8); b[10] = 84
            put(Int(tm.tm_hour), 2, at: 11); b[13] = 58
            put(Int(tm.tm_min), 2, at: 14); b[16] = 58
            put(Int(tm.tm_sec), 2, at: 17); b[19] = 46
            put(ms, 3, at: 20); b[23] = 90
            return 24
        }
    }
}
