/// One change to one entry (file, folder or symbolic link) of a watched tree.
///
/// Values are plain data: they compare and hash by `path` and `kind`, and are safe to send
/// between threads.
public struct FileChange: Sendable, Equatable, Hashable {
    /// What happened to the entry, as LSP's `FileChangeType` sees it.
    public enum Kind: String, Sendable {
        case created, changed, deleted
    }

    /// Workspace-relative, `/`-separated, never with a leading `/` (the root itself is never reported).
    public var path: String
    public var kind: Kind

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }
}

/// Why a `FileWatcher` could not start. Carries the `errno` value where the system gave one.
public enum FileWatcherError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The root does not exist, is not a directory, or cannot be opened.
    case cannotOpenRoot(path: String, errno: Int32)
    /// The kernel refused a new watch instance (inotify: `EMFILE` when `max_user_instances`
    /// is reached).
    case cannotCreateWatcher(errno: Int32)
    /// The watcher's thread could not be started (a task limit: `EAGAIN`).
    case cannotStartThread(errno: Int32)
    /// The root directory itself could not be watched (`ENOSPC`: no inotify watches left).
    case cannotWatchRoot(path: String, errno: Int32)
    /// This platform has neither inotify nor FSEvents.
    case unsupportedPlatform

    public var description: String {
        switch self {
        case .cannotOpenRoot(let path, let e): "cannot open watch root '\(path)' (errno \(e))"
        case .cannotCreateWatcher(let e): "cannot create a file watcher (errno \(e))"
        case .cannotStartThread(let e): "cannot start the file watcher's thread (errno \(e))"
        case .cannotWatchRoot(let path, let e): "cannot watch '\(path)' (errno \(e))"
        case .unsupportedPlatform: "file watching is not supported on this platform"
        }
    }
}
