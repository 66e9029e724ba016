/// An entry a folder copy or a migration left where it was, and why: a FIFO, socket or device
/// (`NotARegularFile`: its bytes are never read) or a symbolic link (`SymlinkNotFollowed`).
/// Operations that skip entries report every one, so nothing is left behind unsaid.
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
}
