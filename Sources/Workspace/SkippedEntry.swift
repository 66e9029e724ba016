/// An entry a folder copy or a migration left where it was, and why: a FIFO, socket or device
/// (`NotARegularFile`: its bytes are never read), a symbolic link (`SymlinkNotFollowed`), or a
/// folder that could not be read (`PermissionDenied`, `IOError`; `TooLarge` for one nested
/// deeper than walks go), whose entries stay where they are. Operations that skip entries
/// report every one, so nothing is left behind unsaid.
public struct SkippedEntry: Sendable, Equatable {
    public var path: WorkspacePath
    public var type: EntryType
    /// The error code that reading the entry would have answered.
    public var reason: WorkspaceError.Code

    public init(path: WorkspacePath, type: EntryType) {
        self.path = path
        self.type = type
        reason = type == .symlink ? .symlinkNotFollowed : .notARegularFile
    }

    /// A folder that was not read: `PermissionDenied`, `TooLarge` (too deep) or `IOError`.
    init(unreadFolder path: WorkspacePath, reason: WorkspaceError.Code) {
        self.path = path
        type = .directory
        self.reason = reason == .permissionDenied || reason == .tooLarge ? reason : .ioError
    }
}
