#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    /// A byte range of a file and the file's status at the time of the read.
    public struct ReadResult: Sendable {
        public var status: FileStatus
        public var bytes: [UInt8]
        public var offset: Int64
        /// True when the range reached the end of the file.
        public var eof: Bool
    }

    /// Reads `length` bytes (to the end when nil) from `offset`. Refuses folders, links, and
    /// FIFOs, sockets and devices (`NotARegularFile`, at once: the open never waits).
    /// Reads more than `maxBytes` at once are refused with `TooLarge` (page with ranges).
    /// With `refuseBinary`, a binary file (`isBinary`) is refused with `NotText` (`data.reason`
    /// "binary"), whatever range was asked: its bytes are never handed out as text.
    public func read(_ path: WorkspacePath, offset: Int64 = 0, length: Int64? = nil, maxBytes: Int64,
                     refuseBinary: Bool = false) throws(WorkspaceError) -> ReadResult
    {
        let (file, st) = try openForReading(path, refuseBinary: refuseBinary)
        let size = Int64(st.st_size)
        let start = min(max(0, offset), size)
        let wanted = length.map { max(0, min($0, size - start)) } ?? (size - start)
        if wanted > maxBytes {
            throw WorkspaceError(.tooLarge,
                                 "'\(path)' has \(wanted) bytes to read, more than \(maxBytes) in one call: read it in ranges with offset and length",
                                 path: path.string, details: ["size": .int(size), "limit": .int(maxBytes)])
        }
        let bytes = try Sys.pread(file.raw, count: Int(wanted), offset: start, path: path.string)
        let after = try Sys.fstat(file.raw, path: path.string)
        return ReadResult(status: FileStatus(path: path, stat: after), bytes: bytes, offset: start,
                          eof: start + Int64(bytes.count) >= Int64(after.st_size))
    }

    /// Opens a regular file of the workspace for reading (a missing placeholder's file is
    /// `NotDownloaded`); with `refuseBinary`, a binary one is `NotText`.
    func openForReading(_ path: WorkspacePath, refuseBinary: Bool) throws(WorkspaceError) -> (FileDescriptor, stat) {
        try checkClientPath(path)
        let file: FileDescriptor
        do {
            file = try root.openFile(path)
        } catch {
            if error.code == .notFound, placeholderName(for: path) != nil { throw Self.notDownloaded(path) }
            throw error
        }
        let st = try Sys.fstat(file.raw, path: path.string)  // a regular file: openFile checked
        if refuseBinary, Self.isBinary(try Sys.pread(file.raw, count: Self.binaryProbe, offset: 0, path: path.string)) {
            throw WorkspaceError(.notText,
                                 "'\(path)' is a binary file (\(st.st_size) bytes; a NUL byte in its first 8 KiB): it is not shown as text; read it with encoding \"base64\"",
                                 path: path.string, details: ["reason": .string("binary"), "size": .int(Int64(st.st_size))])
        }
        return (file, st)
    }

    /// How much of a file's start `isBinary` looks at.
    public static let binaryProbe = 8192

    /// Whether bytes from a file's start say it is binary: a NUL byte in the first 8 KiB (the
    /// rule of git, grep and ripgrep). Searches skip such files; text reads refuse them.
    public static func isBinary(_ start: [UInt8]) -> Bool {
        let probe = min(start.count, binaryProbe)
        return start.withUnsafeBytes { b in
            guard let base = b.baseAddress, probe > 0 else { return false }  // nothing to look at
            return memchr(base, 0, probe) != nil
        }
    }

    /// The status of an entry (never following a link) and, when asked, its SHA-256.
    public func info(_ path: WorkspacePath, sha256: Bool = false, isCancelled: () -> Bool = { false })
        throws(WorkspaceError) -> (FileStatus, String?)
    {
        if !path.isRoot { try checkClientPath(path) }
        var status = try status(path)
        // The conflict state costs a scan of the folder's names: only here, not in every status.
        if status.state == "current", !path.isRoot, let parent = try? root.openDirectory(path.parent),
            hasConflictCopies(path.name, in: parent, at: path.parent)
        {
            status.state = "conflicted"
        }
        guard sha256 else { return (status, nil) }
        switch status.type {
        case .file: break
        case .symlink: throw .symlink(path.string)
        case .directory: throw WorkspaceError(.isADirectory, "only files have a SHA-256; '\(path)' is a folder", path: path.string)
        default: throw .notARegularFile(path.string, type: status.type)
        }
        let file = try root.openFile(path)
        let digest = try Self.sha256(of: file.raw, path: path, isCancelled: isCancelled)
        var hashed = FileStatus(path: path, stat: try Sys.fstat(file.raw, path: path.string))
        hashed.state = status.state
        return (hashed, digest)
    }

    /// The SHA-256 of everything in the open file `fd`, read from its start (its offset is left
    /// where it was).
    static func sha256(of fd: Int32, path: WorkspacePath, isCancelled: () -> Bool = { false }) throws(WorkspaceError) -> String {
        var hasher = try SHA256.started()
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            if isCancelled() { throw .cancelled(path) }
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if n < 0 { if errno == EINTR { continue }; throw .errno(errno, "read", path: path.string) }
            if n == 0 { break }
            buf.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += Int64(n)
        }
        return hasher.finalize()
    }
}
