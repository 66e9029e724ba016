#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import CWorkspaceShims

extension Workspace {
    public struct SaveOptions: Sendable {
        public var createParents = true
        /// Replace only if the current etag is this one (`PreconditionFailed` otherwise).
        public var ifMatch: String?
        /// Create only: fail with `AlreadyExists` if the file exists.
        public var exclusive = false
        public init(createParents: Bool = true, ifMatch: String? = nil, exclusive: Bool = false) {
            self.createParents = createParents
            self.ifMatch = ifMatch
            self.exclusive = exclusive
        }
    }

    /// Replaces (or creates) a file crash-safely: a temp file in the same folder is written,
    /// flushed to stable storage, renamed over the target, and the folder is flushed, so after
    /// a crash the file is wholly old or wholly new. The file's permission bits are kept.
    /// Writers to one folder from any process are serialised by an advisory lock on it.
    public func save(_ path: WorkspacePath, bytes: UnsafeRawBufferPointer, options: SaveOptions = SaveOptions())
        throws(WorkspaceError) -> FileStatus
    {
        try checkClientPath(path)
        guard !path.isRoot else { throw WorkspaceError(.isADirectory, "the workspace root is a folder", path: "") }
        let dir = options.createParents ? try root.makeDirectories(path.parent) : try root.openDirectory(path.parent)
        Sys.lock(dir.raw)
        defer { Sys.unlock(dir.raw) }
        return try replace(in: dir, path: path, options: options) { fd throws(WorkspaceError) in
            try Sys.writeAll(fd, bytes, path: path.string)
        }
    }

    /// `save` for an array of bytes.
    public func save(_ path: WorkspacePath, contents: [UInt8], options: SaveOptions = SaveOptions())
        throws(WorkspaceError) -> FileStatus
    {
        var result: Result<FileStatus, WorkspaceError> = .failure(WorkspaceError(.ioError, "not run"))
        contents.withUnsafeBytes { b in
            result = Result { () throws(WorkspaceError) -> FileStatus in try save(path, bytes: b, options: options) }
        }
        return try result.get()
    }

    /// `append` for an array of bytes.
    public func append(_ path: WorkspacePath, contents: [UInt8], createParents: Bool = true)
        throws(WorkspaceError) -> FileStatus
    {
        var result: Result<FileStatus, WorkspaceError> = .failure(WorkspaceError(.ioError, "not run"))
        contents.withUnsafeBytes { b in
            result = Result { () throws(WorkspaceError) -> FileStatus in try append(path, bytes: b, createParents: createParents) }
        }
        return try result.get()
    }

    /// The locked part of a crash-safe replace: checks, temp file, fill, flush, rename, flush.
    func replace(in dir: FileDescriptor, path: WorkspacePath, options: SaveOptions,
                 fill: (Int32) throws(WorkspaceError) -> Void) throws(WorkspaceError) -> FileStatus
    {
        let existing = Sys.lstat(dir.raw, path.name)
        var mode: mode_t = 0o644
        if let st = existing {
            if st.isDirectory { throw WorkspaceError(.isADirectory, "'\(path)' is a folder", path: path.string) }
            if st.isSymlink { throw .symlink(path.string) }
            // A FIFO, socket or device is some program's, not a document: never replaced.
            if !st.isRegular { throw .notARegularFile(path.string, type: EntryType(mode: st.st_mode)) }
            if options.exclusive { throw WorkspaceError(.alreadyExists, "'\(path)' already exists", path: path.string) }
            mode = st.st_mode & 0o7777
        }
        if let expected = options.ifMatch {
            let current = existing.map(FileStatus.etag)
            if current != expected {
                throw WorkspaceError(.preconditionFailed,
                                     "'\(path)' has changed since etag \(expected) was read",
                                     path: path.string,
                                     details: ["currentEtag": current.map(WorkspaceError.Detail.string) ?? .null])
            }
        }
        let temp = try LiveTempFiles.create(in: dir, for: path.name, flags: O_WRONLY | O_NOFOLLOW, mode: mode, path: path.string)
        defer { LiveTempFiles.forget(temp.token) }
        let (tmp, file) = (temp.name, temp.file)
        var committed = false
        defer { if !committed { unlinkat(dir.raw, tmp.onDisk, 0) } }
        if existing != nil { _ = fchmod(file.raw, mode) }
        try fill(file.raw)
        try Sys.fsync(file.raw, path: path.string)
        if options.exclusive {
            try renameNoReplace(dir: dir.raw, from: tmp, to: path)
        } else if renameat(dir.raw, tmp.onDisk, dir.raw, path.name.onDisk) != 0 {
            throw .errno(errno, "replace", path: path.string)
        }
        committed = true
        try Sys.fsync(dir.raw, path: path.parent.string)
        return FileStatus(path: path, stat: try Sys.fstat(file.raw, path: path.string))
    }

    /// Renames `from` to `to` in one folder only if `to` does not exist, atomically where the
    /// file system can (renameat2 / renameatx_np), else by hard link + unlink.
    func renameNoReplace(dir: Int32, from: String, to path: WorkspacePath) throws(WorkspaceError) {
        if wb_renameat_noreplace(dir, from.onDisk, dir, path.name.onDisk) == 0 { return }
        let e = errno
        if e == EEXIST { throw WorkspaceError(.alreadyExists, "'\(path)' already exists", path: path.string) }
        guard e == EINVAL || e == ENOSYS || e == ENOTSUP else { throw .errno(e, "create", path: path.string) }
        if linkat(dir, from.onDisk, dir, path.name.onDisk, 0) != 0 {
            throw errno == EEXIST ? WorkspaceError(.alreadyExists, "'\(path)' already exists", path: path.string)
                : .errno(errno, "create", path: path.string)
        }
        unlinkat(dir, from.onDisk, 0)
    }

    /// Appends atomically: under the folder's advisory lock (shared by every process using this
    /// workspace), the bytes are written with O_APPEND and flushed before returning, so two
    /// writers never interleave or lose each other's data. On failure the file is cut back.
    public func append(_ path: WorkspacePath, bytes: UnsafeRawBufferPointer, createParents: Bool = true)
        throws(WorkspaceError) -> FileStatus
    {
        try checkClientPath(path)
        guard !path.isRoot else { throw WorkspaceError(.isADirectory, "the workspace root is a folder", path: "") }
        let dir = createParents ? try root.makeDirectories(path.parent) : try root.openDirectory(path.parent)
        Sys.lock(dir.raw)
        defer { Sys.unlock(dir.raw) }
        // Never waits on a FIFO without a reader, never writes into a socket or device.
        let file = FileDescriptor(try Sys.openRegular(dir.raw, path.name, flags: O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW,
                                                      path: path.string))
        let before = try Sys.fstat(file.raw, path: path.string)
        do {
            try Sys.writeAll(file.raw, bytes, path: path.string)
            try Sys.fsync(file.raw, path: path.string)
        } catch {
            _ = ftruncate(file.raw, before.st_size)
            throw error
        }
        if before.st_size == 0 { try Sys.fsync(dir.raw, path: path.parent.string) }
        return FileStatus(path: path, stat: try Sys.fstat(file.raw, path: path.string))
    }
}
