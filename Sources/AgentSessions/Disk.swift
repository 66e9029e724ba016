#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import SystemSupport

/// Identity of a file at one moment: a change of any field means somebody else changed it.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var mtimeNanos: Int64
}

/// The few POSIX file operations the stores need, with errors as `SessionError`.
///
/// Crash-safe replacement follows DESIGN.md: a temp file in the same folder, named
/// `.syncthing.<name>.wb-<16 hex>.tmp` (no sync engine propagates it), written, flushed
/// (`F_FULLFSYNC` on Apple), renamed over the target, then the folder flushed.
enum Disk {
    static func identity(_ st: stat) -> FileIdentity {
        FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size), mtimeNanos: st.modifiedNanos)
    }

    static func identity(path: String) -> FileIdentity? {
        var st = stat()
        return stat(path, &st) == 0 ? identity(st) : nil
    }

    /// The identity of `name` inside the open folder `folder` (a short path walk: what listing
    /// thousands of sessions spends its time on otherwise).
    static func identity(in folder: Int32, _ name: String) -> FileIdentity? {
        var st = stat()
        return fstatat(folder, name, &st, 0) == 0 ? identity(st) : nil
    }

    /// `open(2)` of a journal or snapshot that can never wait on what the path turns out to be
    /// (`wb_open_regular`, the routine the workspace uses for every file's bytes): mode 0644 for
    /// a new file; -1 with errno (ENXIO for a FIFO, socket or device, EISDIR for a folder).
    static func openRegular(_ path: String, _ flags: Int32) -> Int32 {
        var type: UInt32 = 0
        return wb_open_regular(AT_FDCWD, path, flags, 0o644, 0, &type)
    }

    static func identity(fd: Int32) -> FileIdentity? {
        var st = stat()
        return fstat(fd, &st) == 0 ? identity(st) : nil
    }

    /// The whole file, or `nil` when it does not exist.
    static func readFile(_ path: String) throws(SessionError) -> [UInt8]? {
        let fd = openRegular(path, O_RDONLY)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .io("cannot open \(path)", errno: errno, path: path)
        }
        defer { close(fd) }
        guard let bytes = readAll(fd) else { throw .io("cannot read \(path)", errno: errno, path: path) }
        return bytes
    }

    /// A small file whole (a lease, the retention policy, the pricing file), or `nil` when it
    /// does not exist; one over `cap` (never read beyond it) or not a regular file is
    /// `InvalidArgument` saying why, for the caller to ignore with a warning.
    static func readFile(_ path: String, cap: FileCap) throws(SessionError) -> [UInt8]? {
        switch BoundedFile.read(path, cap) {
        case .absent: return nil
        case .bytes(let bytes): return bytes
        case .ignored(let why): throw .invalid(why)
        case .failed(let e): throw .io("cannot read \(path)", errno: e, path: path)
        }
    }

    /// Reads from the current offset to the end of the file.
    static func readAll(_ fd: Int32) -> [UInt8]? { FileIO.readToEnd(fd) }

    /// `length` bytes at `offset`, or `nil` if the file is shorter or unreadable.
    static func pread(_ fd: Int32, offset: Int64, length: Int) -> [UInt8]? {
        guard let bytes = FileIO.pread(fd, count: length, offset: offset), bytes.count == length else { return nil }
        return bytes
    }

    /// Writes everything at `offset` (or at the current position when `nil`); `false` with errno set.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) -> Bool {
        FileIO.writeAll(fd, bytes, at: offset)
    }

    static func closeDescriptor(_ fd: Int32) { close(fd) }

    /// Flushes a file to stable storage (`F_FULLFSYNC` on Apple); `false` with errno set.
    static func flush(_ fd: Int32) -> Bool { wb_full_fsync(fd) == 0 }

    static func tempName(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // The workspace's temp-name convention: the writer's pid, then random bits, so the
        // start-up sweep only ever removes temp files of writers that are gone.
        let pid = UInt64(UInt32(truncatingIfNeeded: getpid()))
        let tag = SessionNames.hex64(pid << 32 | UInt64(UInt32.random(in: .min ... .max)))
        return dir + ".syncthing." + base + ".wb-" + tag + ".tmp"
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Replaces `path` with `bytes` so that after a crash it is wholly old or wholly new.
    static func writeAtomically(_ path: String, _ bytes: [UInt8]) throws(SessionError) {
        let tmp = tempName(for: path)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io("cannot create \(tmp)", errno: errno, path: path) }
        var ok = bytes.withUnsafeBytes { writeAll(fd, $0) }
        ok = ok && wb_full_fsync(fd) == 0
        let code = errno
        close(fd)
        guard ok else {
            unlink(tmp)
            throw .io("cannot write \(path)", errno: code, path: path)
        }
        guard rename(tmp, path) == 0 else {
            let code = errno
            unlink(tmp)
            throw .io("cannot replace \(path)", errno: code, path: path)
        }
        guard syncDirectory(parent(of: path)) else { throw .io("cannot flush the folder of \(path)", errno: errno, path: path) }
    }

    /// Flushes a folder's entries (new, renamed and removed names) to stable storage.
    @discardableResult
    static func syncDirectory(_ path: String) -> Bool { FileIO.syncFolder(path) }

    static func makeDirectories(_ path: String) throws(SessionError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .io("cannot create the folder \(prefix)", errno: errno, path: path)
            }
        }
    }

    /// The names in a folder (without `.` and `..`), or `nil` if it cannot be read.
    static func list(_ path: String) -> [String]? { FileIO.names(inFolder: path) }

    /// Removes a folder and everything in it; links are removed, never followed.
    static func removeTree(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return errno == ENOENT }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for name in list(path) ?? [] where !removeTree(path + "/" + name) { return false }
            return rmdir(path) == 0 || errno == ENOENT
        }
        return unlink(path) == 0 || errno == ENOENT
    }
}
