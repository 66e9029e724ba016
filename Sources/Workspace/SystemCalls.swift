#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import SystemSupport

/// An owned file descriptor, closed when the value is dropped.
final class FileDescriptor: @unchecked Sendable {
    let raw: Int32
    init(_ raw: Int32) { self.raw = raw }
    deinit { close(raw) }
}

/// Small wrappers that retry on EINTR and map failures to `WorkspaceError`.
public enum Sys {
    /// Opens the regular file `name` relative to `dir` (AT_FDCWD for an absolute host path)
    /// without ever waiting on what it turns out to be: `wb_open_regular` (O_NONBLOCK |
    /// O_NOCTTY, then fstat on the descriptor). A folder is `IsADirectory`; a FIFO, socket or
    /// device is `NotARegularFile` with its type, answered at once. `path` is the name shown in
    /// errors. Relative to a workspace folder `name` is a name's text (`EscapedName`); with
    /// AT_FDCWD, a host path taken as it is. Every open of a file's bytes in the workspace (and of a host file) goes here or
    /// through `SandboxedRoot.openFile`, which uses the same routine.
    public static func openRegular(_ dir: Int32, _ name: String, flags: Int32, mode: mode_t = 0o644, path: String)
        throws(WorkspaceError) -> Int32
    {
        var type: UInt32 = 0
        let r = wb_open_regular(dir, dir == AT_FDCWD ? Array(name.utf8CString) : name.onDisk, flags, UInt32(mode), 0, &type)
        guard r < 0 else { return r }
        let e = errno
        if type != 0 { throw notRegular(type, path: path) }
        throw .errno(e, "open", path: path)
    }

    /// `open(2)` of a host file's bytes (the server's own files: settings, journals, ignore
    /// lists) with `openRegular`'s guarantee: never waits, refuses anything but a regular file.
    /// Returns the descriptor, or -1 with errno (EISDIR for a folder, ENXIO for a FIFO, socket
    /// or device), like `open` itself, so callers keep their own error types.
    public static func openRegularHost(_ path: String, flags: Int32, mode: mode_t = 0o600) -> Int32 {
        var type: UInt32 = 0
        return wb_open_regular(AT_FDCWD, path, flags, UInt32(mode), 0, &type)
    }

    /// The error for an entry of type `type` (S_IFMT bits) where a regular file was needed.
    static func notRegular(_ type: UInt32, path: String) -> WorkspaceError {
        let t = EntryType(mode: mode_t(type))
        if t == .directory {
            return WorkspaceError(.isADirectory, path.isEmpty ? "the workspace root is a folder" : "'\(path)' is a folder", path: path)
        }
        return .notARegularFile(path, type: t)
    }

    /// Writes all of `bytes` to `fd` (looping over short writes).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(WorkspaceError) {
        guard FileIO.writeAll(fd, bytes) else { throw .errno(errno, "write", path: path) }
    }

    /// Reads up to `count` bytes at `offset` (looping over short reads) into a new array.
    static func pread(_ fd: Int32, count: Int, offset: Int64, path: String) throws(WorkspaceError) -> [UInt8] {
        guard let bytes = FileIO.pread(fd, count: count, offset: offset) else { throw .errno(errno, "read", path: path) }
        return bytes
    }

    static func read(_ fd: Int32, _ buf: UnsafeMutableRawBufferPointer) -> Int {
        FileIO.read(fd, into: buf)
    }

    static func fsync(_ fd: Int32, path: String) throws(WorkspaceError) {
        while wb_full_fsync(fd) != 0 {
            if errno == EINTR { continue }
            // Some file systems (tmpfs, some FUSE) cannot sync a directory; that is not data loss.
            if errno == EINVAL || errno == EROFS { return }
            throw .errno(errno, "sync", path: path)
        }
    }

    static func lock(_ fd: Int32, exclusive: Bool = true) {
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 && errno == EINTR {}
    }

    static func unlock(_ fd: Int32) { _ = flock(fd, LOCK_UN) }

    /// `lstat` of the entry whose text is `name` (`EscapedName`) in the folder `dir`.
    static func lstat(_ dir: Int32, _ name: String) -> stat? {
        var st = stat()
        return EscapedName.withCString(name) { fstatat(dir, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0 ? st : nil
    }

    static func fstat(_ fd: Int32, path: String) throws(WorkspaceError) -> stat {
        var st = stat()
        if Glibc_fstat(fd, &st) != 0 { throw .errno(errno, "inspect", path: path) }
        return st
    }
}

@inline(__always)
private func Glibc_fstat(_ fd: Int32, _ st: inout stat) -> Int32 {
    fstat(fd, &st)
}

extension stat {
    var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
    var isRegular: Bool { (st_mode & S_IFMT) == S_IFREG }
    var isSymlink: Bool { (st_mode & S_IFMT) == S_IFLNK }
}

extension String {
    /// A string from a NUL-terminated C buffer.
    init(cChars buf: [CChar]) {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
