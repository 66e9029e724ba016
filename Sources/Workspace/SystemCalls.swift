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
enum Sys {
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

    static func lstat(_ dir: Int32, _ name: String) -> stat? {
        var st = stat()
        return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st : nil
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

    var modifiedNanos: Int64 {
        #if canImport(Darwin)
        Int64(st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st_mtimespec.tv_nsec)
        #else
        Int64(st_mtim.tv_sec) * 1_000_000_000 + Int64(st_mtim.tv_nsec)
        #endif
    }

    var createdNanos: Int64? {
        #if canImport(Darwin)
        Int64(st_birthtimespec.tv_sec) * 1_000_000_000 + Int64(st_birthtimespec.tv_nsec)
        #else
        nil
        #endif
    }
}

extension String {
    /// A string from a NUL-terminated C buffer.
    init(cChars buf: [CChar]) {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
