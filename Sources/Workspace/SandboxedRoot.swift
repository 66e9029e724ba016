#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import CWorkspaceShims

/// An open workspace root that resolves workspace paths beneath itself, with the kernel
/// enforcing containment.
///
/// Guarantees: no resolution ever leaves the root or follows a symbolic link. On Linux 5.6+
/// every path is resolved in one `openat2` call with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`;
/// elsewhere (older kernels) component by component with `O_NOFOLLOW | O_DIRECTORY` below the
/// root's descriptor; on Apple systems with `O_NOFOLLOW_ANY`. Operations on the last component
/// use `*at()` calls relative to the parent's descriptor with `AT_SYMLINK_NOFOLLOW`, so
/// swapping a path for a link between check and use yields an error, never an escape.
/// Thread-safe: the root descriptor is only read.
public final class SandboxedRoot: Sendable {
    let fd: FileDescriptor
    /// The root's absolute, symlink-free path.
    public let absolutePath: String
    private let useOpenat2: Bool

    public init(path: String, create: Bool) throws(WorkspaceError) {
        if create { try Self.makeAbsoluteDirectories(path) }
        let raw = Glibc_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard raw >= 0 else { throw .errno(errno, "open the workspace root", path: path) }
        fd = FileDescriptor(raw)
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        absolutePath = realpath(path, &buf) != nil ? String(cChars: buf) : path
        useOpenat2 = wb_have_openat2() != 0
    }

    /// A new descriptor for the directory at `path` (the root itself for the empty path).
    func openDirectory(_ path: WorkspacePath) throws(WorkspaceError) -> FileDescriptor {
        try open(path, flags: O_RDONLY | O_DIRECTORY)
    }

    /// Opens the regular file at `path` to read or write its bytes, never waiting on what the
    /// path turns out to be: `wb_open_regular` (O_NONBLOCK | O_NOCTTY, then fstat on the
    /// descriptor), resolved beneath the root like `open`. A folder is `IsADirectory`; a FIFO,
    /// socket or device `NotARegularFile` with its type, at once. The returned descriptor is
    /// blocking again and known to be a regular file.
    func openFile(_ path: WorkspacePath, flags: Int32 = O_RDONLY, mode: mode_t = 0o644) throws(WorkspaceError) -> FileDescriptor {
        try open(path, flags: flags, mode: mode, regularOnly: true)
    }

    /// Opens `path` with `flags` (O_NOFOLLOW and O_CLOEXEC are always added). Anything that
    /// reads or writes a file's bytes uses `openFile` instead.
    func open(_ path: WorkspacePath, flags: Int32, mode: mode_t = 0o644, regularOnly: Bool = false) throws(WorkspaceError) -> FileDescriptor {
        let all = flags | O_NOFOLLOW | O_CLOEXEC
        // The one place where the last component is opened: with `regularOnly`, through
        // wb_open_regular (which throws here for a non-regular entry, errno set otherwise).
        func last(_ dir: Int32, _ name: String, beneath: Bool) throws(WorkspaceError) -> Int32 {
            guard regularOnly else {
                return beneath ? wb_openat2_beneath(dir, name.onDisk, all, UInt32(mode)) : openat(dir, name.onDisk, all, mode)
            }
            var type: UInt32 = 0
            let r = wb_open_regular(dir, name.onDisk, all, UInt32(mode), beneath ? 1 : 0, &type)
            if r < 0 && type != 0 { throw Sys.notRegular(type, path: path.string) }
            return r
        }
        if path.isRoot {
            if regularOnly { throw WorkspaceError(.isADirectory, "the workspace root is a folder", path: "") }
            let r = openat(fd.raw, ".", all, mode)
            guard r >= 0 else { throw .errno(errno, "open", path: "") }
            return FileDescriptor(r)
        }
        #if canImport(Darwin)
        let r = regularOnly ? try last(fd.raw, path.string, beneath: true) : openat(fd.raw, path.string.onDisk, all | O_NOFOLLOW_ANY, mode)
        guard r >= 0 else { throw .errno(errno, "open", path: path.string) }
        return FileDescriptor(r)
        #else
        if useOpenat2 {
            for _ in 1...Self.resolveAttempts {
                let r = try last(fd.raw, path.string, beneath: true)
                if r >= 0 { return FileDescriptor(r) }
                let e = errno
                // RESOLVE_NO_SYMLINKS answers ELOOP for a link on the way; O_NOFOLLOW | O_DIRECTORY
                // answers ENOTDIR for a trailing link. Look again, holding what is there now, so a
                // folder swapped with a link and back is never called "not a folder".
                if e == ELOOP { throw .symlink(path.string) }
                guard e == ENOTDIR else { throw Self.classify(e, path: path) }
                let held = wb_hold_entry(fd.raw, path.string.onDisk, 1)
                guard held >= 0 else {
                    if errno == ELOOP { throw .symlink(path.string) }
                    throw errno == ENOSYS ? Self.classify(e, path: path) : Self.classify(errno, path: path)
                }
                if let folder = try Self.reopen(held: FileDescriptor(held), flags: all, path: path) { return folder }
                if flags & O_DIRECTORY != 0 { throw Self.classify(ENOTDIR, path: path) }
                // A folder on the way was not one at the first look and is at the second: again.
            }
            throw Self.classify(ENOTDIR, path: path)
        }
        let parent = try walk(path.parent)
        let r = try last(parent.raw, path.name, beneath: false)
        guard r >= 0 else { throw Self.classify(errno, path: path, parent: parent.raw, name: path.name) }
        return FileDescriptor(r)
        #endif
    }

    /// How many times a resolution whose path changes under it is tried.
    static let resolveAttempts = 3

    /// The fallback walk: one `openat(O_NOFOLLOW | O_DIRECTORY)` per component.
    private func walk(_ path: WorkspacePath) throws(WorkspaceError) -> FileDescriptor {
        var current = FileDescriptor(openat(fd.raw, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        guard current.raw >= 0 else { throw .errno(errno, "open", path: "") }
        var walked = WorkspacePath.root
        for c in path.components {
            walked = walked.appending(c)
            current = try Self.openFolder(c, in: current.raw, path: walked)
        }
        return current
    }

    /// The folder `name` of `parent`, never through a link. When the open is refused, the entry
    /// is held (O_PATH) to tell what it is at that moment: a link is `SymlinkNotFollowed`, a
    /// folder (one swapped with a link and back) is opened from the held descriptor.
    static func openFolder(_ name: String, in parent: Int32, path: WorkspacePath) throws(WorkspaceError) -> FileDescriptor {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        let next = openat(parent, name.onDisk, flags)
        if next >= 0 { return FileDescriptor(next) }
        let e = errno
        if e == ENOTDIR || e == ELOOP {
            let held = wb_hold_entry(parent, name.onDisk, 0)
            if held >= 0, let folder = try reopen(held: FileDescriptor(held), flags: flags, path: path) { return folder }
        }
        throw classify(e, path: path, parent: parent, name: name)
    }

    /// The folder a held entry (`wb_hold_entry`) is, opened with `flags` (the very folder that was
    /// held); nil when it is neither a folder nor a link; `SymlinkNotFollowed` for a link.
    private static func reopen(held: FileDescriptor, flags: Int32, path: WorkspacePath) throws(WorkspaceError) -> FileDescriptor? {
        let st = try Sys.fstat(held.raw, path: path.string)
        if st.isSymlink { throw .symlink(path.string) }
        guard st.isDirectory else { return nil }
        let r = openat(held.raw, ".", flags)
        guard r >= 0 else { throw .errno(errno, "open", path: path.string) }
        return FileDescriptor(r)
    }

    /// ELOOP means a link on the way (RESOLVE_NO_SYMLINKS / O_NOFOLLOW); ENOTDIR from the
    /// walk may also be a link to a folder, which lstat tells apart.
    private static func classify(_ e: Int32, path: WorkspacePath, parent: Int32? = nil, name: String? = nil) -> WorkspaceError {
        if e == ENOTDIR || e == ELOOP, let parent, let name, let st = Sys.lstat(parent, name), st.isSymlink { return .symlink(path.string) }
        return .errno(e, "open", path: path.string)
    }

    /// `mkdir -p` beneath the root: creates missing folders one by one (never through a link)
    /// and returns a descriptor for the last.
    func makeDirectories(_ path: WorkspacePath) throws(WorkspaceError) -> FileDescriptor {
        var current = try openDirectory(.root)
        var walked = WorkspacePath.root
        for c in path.components {
            walked = walked.appending(c)
            if mkdirat(current.raw, c.onDisk, 0o755) != 0 && errno != EEXIST {
                throw .errno(errno, "create the folder", path: walked.string)
            }
            current = try Self.openFolder(c, in: current.raw, path: walked)
        }
        return current
    }

    /// `mkdir -p` for the root itself (an absolute host path, trusted).
    static func makeAbsoluteDirectories(_ path: String) throws(WorkspaceError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw .errno(errno, "create the workspace root", path: path) }
        }
    }
}

@inline(__always)
private func Glibc_open(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
