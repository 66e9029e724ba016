#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import CWorkspaceShims

extension Workspace {
    /// Creates a folder and any missing parents (like `mkdir -p`); fine if it exists.
    public func createFolder(_ path: WorkspacePath) throws(WorkspaceError) -> FileStatus {
        try checkClientPath(path)
        let dir = try root.makeDirectories(path)
        return FileStatus(path: path, stat: try Sys.fstat(dir.raw, path: path.string))
    }

    /// Deletes a file, a link (the link itself, never its target) or a folder; a folder with
    /// entries needs `recursive`. The root cannot be deleted.
    public func delete(_ path: WorkspacePath, recursive: Bool, isCancelled: () -> Bool = { false }) throws(WorkspaceError) {
        try delete(path, recursive: recursive, asServer: false, isCancelled: isCancelled)
    }

    func delete(_ path: WorkspacePath, recursive: Bool, asServer: Bool, isCancelled: () -> Bool = { false }) throws(WorkspaceError) {
        if !asServer { try checkClientPath(path) }
        guard !path.isRoot else { throw WorkspaceError(.permissionDenied, "the workspace root cannot be deleted", path: "") }
        let parent = try root.openDirectory(path.parent)
        Sys.lock(parent.raw)
        defer { Sys.unlock(parent.raw) }
        guard let st = Sys.lstat(parent.raw, path.name) else { throw .errno(errno, "delete", path: path.string) }
        if st.isDirectory {
            if recursive { try removeContents(parent: parent.raw, name: path.name, path: path, isCancelled: isCancelled) }
            if unlinkat(parent.raw, path.name.onDisk, AT_REMOVEDIR) != 0 {
                if errno == ENOTEMPTY || errno == EEXIST {
                    throw WorkspaceError(.directoryNotEmpty, "'\(path)' is a folder that is not empty: pass recursive to delete it with its contents",
                                         path: path.string)
                }
                throw .errno(errno, "delete", path: path.string)
            }
        } else if unlinkat(parent.raw, path.name.onDisk, 0) != 0 {
            throw .errno(errno, "delete", path: path.string)
        }
        try Sys.fsync(parent.raw, path: path.parent.string)
    }

    private func removeContents(parent: Int32, name: String, path: WorkspacePath, isCancelled: () -> Bool) throws(WorkspaceError) {
        if isCancelled() { throw .cancelled(path) }
        let raw = openat(parent, name.onDisk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard raw >= 0 else { throw .errno(errno, "delete", path: path.string) }
        let dir = FileDescriptor(raw)
        for child in try DirectoryReader.names(dir, path: path) {
            let childPath = path.appending(child)
            guard let st = Sys.lstat(dir.raw, child) else { continue }
            if st.isDirectory {
                try removeContents(parent: dir.raw, name: child, path: childPath, isCancelled: isCancelled)
                if unlinkat(dir.raw, child.onDisk, AT_REMOVEDIR) != 0 { throw .errno(errno, "delete", path: childPath.string) }
            } else if unlinkat(dir.raw, child.onDisk, 0) != 0 {
                throw .errno(errno, "delete", path: childPath.string)
            }
        }
    }

    /// Moves (renames) a file, link or folder; the destination's missing parents are created.
    /// Without `overwrite` an existing destination is an `AlreadyExists` error, decided
    /// atomically where the file system allows it.
    public func move(from: WorkspacePath, to: WorkspacePath, overwrite: Bool) throws(WorkspaceError) -> FileStatus {
        try checkClientPath(from)
        try checkClientPath(to)
        guard !from.isRoot, !to.isRoot else {
            throw WorkspaceError(.permissionDenied, "the workspace root cannot be moved or replaced", path: from.string)
        }
        if to.isWithin(from) {
            throw WorkspaceError(.invalidArgument, "cannot move '\(from)' into itself ('\(to)')", path: to.string)
        }
        let src = try root.openDirectory(from.parent)
        let dst = try root.makeDirectories(to.parent)
        let (first, second) = Self.lockOrder(src, dst)
        Sys.lock(first.raw)
        if second !== first { Sys.lock(second.raw) }
        defer {
            if second !== first { Sys.unlock(second.raw) }
            Sys.unlock(first.raw)
        }
        guard Sys.lstat(src.raw, from.name) != nil else { throw .errno(errno, "move", path: from.string) }
        if overwrite {
            if renameat(src.raw, from.name.onDisk, dst.raw, to.name.onDisk) != 0 { throw .errno(errno, "move to", path: to.string) }
        } else if wb_renameat_noreplace(src.raw, from.name.onDisk, dst.raw, to.name.onDisk) != 0 {
            let e = errno
            if e == EEXIST { throw WorkspaceError(.alreadyExists, "'\(to)' already exists", path: to.string) }
            guard e == EINVAL || e == ENOSYS || e == ENOTSUP else { throw .errno(e, "move to", path: to.string) }
            // No atomic no-replace rename here: check under the folder locks, then rename.
            if Sys.lstat(dst.raw, to.name) != nil { throw WorkspaceError(.alreadyExists, "'\(to)' already exists", path: to.string) }
            if renameat(src.raw, from.name.onDisk, dst.raw, to.name.onDisk) != 0 { throw .errno(errno, "move to", path: to.string) }
        }
        try Sys.fsync(dst.raw, path: to.parent.string)
        if dst !== src { try Sys.fsync(src.raw, path: from.parent.string) }
        guard let st = Sys.lstat(dst.raw, to.name) else { throw .errno(errno, "move to", path: to.string) }
        return FileStatus(path: to, stat: st)
    }

    /// Locks folders in a global order (device, inode) so two processes never deadlock.
    static func lockOrder(_ a: FileDescriptor, _ b: FileDescriptor) -> (FileDescriptor, FileDescriptor) {
        var sa = stat(), sb = stat()
        fstat(a.raw, &sa)
        fstat(b.raw, &sb)
        if sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino { return (a, a) }
        return (sa.st_dev, sa.st_ino) < (sb.st_dev, sb.st_ino) ? (a, b) : (b, a)
    }
}
