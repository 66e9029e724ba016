#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

/// What a workspace entry is. FIFOs, sockets and devices are named: the server never reads
/// or writes their bytes (`NotARegularFile`), but listings show them for what they are.
public enum EntryType: String, Sendable, CaseIterable {
    case file, directory, symlink, fifo, socket, charDevice, blockDevice, other

    /// The type of an entry with these `st_mode` bits.
    public init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .file
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symlink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .charDevice
        case S_IFBLK: self = .blockDevice
        default: self = .other
        }
    }

    /// Whether bytes of such an entry are never read or written: FIFOs, sockets, devices.
    public var isSpecial: Bool { self != .file && self != .directory && self != .symlink }
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
        type = EntryType(mode: st.st_mode)
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
