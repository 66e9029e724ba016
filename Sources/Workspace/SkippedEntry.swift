/// An entry a folder copy or a migration left where it was, and why: a FIFO, socket or device
/// (`NotARegularFile`: its bytes are never read), a symbolic link (`SymlinkNotFollowed`), or a
/// folder that could not be read (`PermissionDenied`, `IOError`; `TooLarge` for one nested
/// deeper than walks go), whose entries stay where they are, or an entry only spelled like a
/// reserved folder (`PermissionDenied`). Operations that skip entries
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

    /// An entry that was not read: `PermissionDenied` (unreadable, or a reserved name in another
    /// spelling), `TooLarge` (a folder too deep) or `IOError` (any other failure).
    init(path: WorkspacePath, type: EntryType, reason: WorkspaceError.Code) {
        self.path = path
        self.type = type
        self.reason = reason == .permissionDenied || reason == .tooLarge ? reason : .ioError
    }
}
