#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import CWorkspaceShims

extension Workspace {
    /// The folder at the root where incoming copies are staged: hidden, closed to clients, and
    /// named so engines skip it (`.nosync` for iCloud; the storage layer adds engine ignore rules).
    public static let stagingFolder = ".wb-staging.nosync"

    /// What `receive` did with one file.
    public struct Received: Sendable, Equatable {
        public var sha256: String
        public var bytes: Int64
    }

    /// Copies `path` of `source` into this workspace at `destination`, verified and durable:
    /// the bytes go to a staging file (hashed on the way), are flushed, read back and compared
    /// with the source (or, if it changed meanwhile, hashed again and compared with what was
    /// read), and only a matching copy is renamed into place (never replacing an existing file
    /// unless `overwrite`), after which the folder is flushed. A failed or cancelled copy leaves
    /// nothing visible.
    public func receive(_ path: WorkspacePath, from source: Workspace, to destination: WorkspacePath, overwrite: Bool,
                        isCancelled: () -> Bool) throws(WorkspaceError) -> Received
    {
        let input = try source.root.openFile(path)
        let sourceStat = try Sys.fstat(input.raw, path: path.string)
        guard sourceStat.isRegular else {
            throw WorkspaceError(.invalidArgument, "'\(path)' is not a regular file", path: path.string)
        }
        let sourceSize = Int64(sourceStat.st_size)
        let staging = try root.makeDirectories(WorkspacePath(components: [Self.stagingFolder] + destination.parent.components))
        let tmp = destination.name
        // The staging name may already exist (a run that was killed): never wait on what it is.
        let out = FileDescriptor(try Sys.openRegular(staging.raw, tmp, flags: O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW,
                                                     path: destination.string))
        var placed = false
        defer { if !placed { unlinkat(staging.raw, tmp.onDisk, 0) } }

        var hasher = try SHA256.started()
        var total: Int64 = 0
        let chunk = Int(min(Int64(1 << 20), max(Int64(4096), sourceSize + 1)))
        var buf = [UInt8](repeating: 0, count: chunk)
        while true {
            if isCancelled() { throw .cancelled(path) }
            let n = buf.withUnsafeMutableBytes { Sys.read(input.raw, $0) }
            if n < 0 { if errno == EINTR { continue }; throw .errno(errno, "read", path: path.string) }
            if n == 0 { break }
            var failure: WorkspaceError?
            buf.withUnsafeBytes { b in
                let chunk = UnsafeRawBufferPointer(rebasing: b[0..<n])
                hasher.update(chunk)
                do throws(WorkspaceError) { try Sys.writeAll(out.raw, chunk, path: destination.string) } catch { failure = error }
            }
            if let failure { throw failure }
            total += Int64(n)
        }
        let expected = hasher.finalize()
        try Sys.fsync(out.raw, path: destination.string)

        // Read the staged copy back and compare it with the source, byte for byte: several times
        // cheaper than hashing the copy again. Only when they differ (the source may have changed
        // since it was read) is the copy hashed and compared with what was read.
        if try !Self.sameBytes(out.raw, input.raw, count: total, buffer: &buf, path: destination, isCancelled: isCancelled),
            try Self.sha256(of: out.raw, path: destination, isCancelled: isCancelled) != expected
        {
            throw WorkspaceError(.ioError, "the copy of '\(path)' does not match its source after writing", path: destination.string)
        }

        let dir = try root.makeDirectories(destination.parent)
        Sys.lock(dir.raw)
        defer { Sys.unlock(dir.raw) }
        if overwrite {
            if let st = Sys.lstat(dir.raw, destination.name), st.isDirectory {
                throw WorkspaceError(.isADirectory, "'\(destination)' is a folder", path: destination.string)
            }
            if renameat(staging.raw, tmp.onDisk, dir.raw, destination.name.onDisk) != 0 { throw .errno(errno, "place", path: destination.string) }
        } else if wb_renameat_noreplace(staging.raw, tmp.onDisk, dir.raw, destination.name.onDisk) != 0 {
            let e = errno
            if e == EEXIST { throw WorkspaceError(.alreadyExists, "'\(destination)' already exists", path: destination.string) }
            guard e == EINVAL || e == ENOSYS || e == ENOTSUP, Sys.lstat(dir.raw, destination.name) == nil,
                renameat(staging.raw, tmp.onDisk, dir.raw, destination.name.onDisk) == 0
            else { throw .errno(e, "place", path: destination.string) }
        }
        placed = true
        try Sys.fsync(dir.raw, path: destination.parent.string)
        return Received(sha256: expected, bytes: total)
    }

    /// Whether the first `count` bytes of `copy` equal those of `source` (and `source` has no
    /// more), read a buffer's length at a time from each.
    private static func sameBytes(_ copy: Int32, _ source: Int32, count: Int64, buffer: inout [UInt8], path: WorkspacePath,
                                  isCancelled: () -> Bool) throws(WorkspaceError) -> Bool {
        var offset: Int64 = 0
        let step = buffer.count
        while offset < count {
            if isCancelled() { throw .cancelled(path) }
            let n = Int(min(Int64(step), count - offset))
            let theirs = try Sys.pread(source, count: n, offset: offset, path: path.string)
            guard theirs.count == n else { return false }
            var failure: WorkspaceError?
            let same = buffer.withUnsafeMutableBytes { mine -> Bool in
                guard let got = FileIO.pread(copy, into: UnsafeMutableRawBufferPointer(rebasing: mine[..<n]), offset: offset) else {
                    failure = .errno(errno, "verify", path: path.string)
                    return false
                }
                return got == n && theirs.withUnsafeBytes { t in
                    guard let a = mine.baseAddress, let b = t.baseAddress else { return true }  // n == 0: nothing differs
                    return memcmp(a, b, n) == 0
                }
            }
            if let failure { throw failure }
            if !same { return false }
            offset += Int64(n)
        }
        // A source that grew since it was read is not the copy.
        var probe: UInt8 = 0
        return pread(source, &probe, 1, off_t(count)) == 0
    }

    /// The SHA-256 of a file (for verifying a migration that is resumed).
    public func sha256(_ path: WorkspacePath) throws(WorkspaceError) -> String {
        let file = try root.openFile(path)
        return try withExtendedLifetime(file) { () throws(WorkspaceError) in try Self.sha256(of: file.raw, path: path) }
    }

    /// Removes the staging folder (after a migration finished or was abandoned).
    public func removeStaging() {
        try? delete(WorkspacePath(components: [Self.stagingFolder]), recursive: true, asServer: true)
    }
}
