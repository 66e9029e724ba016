import Workspace

/// The storage choice persisted for one local root, read without opening the roots (nothing is
/// created): what `workspace-bridge doctor` reports before any server ran.
public struct SavedChoice: Sendable, Equatable {
    public var location: StorageLocation
    public var needsChoice: Bool
    /// Whether a migration was started and not finished (the server resumes it).
    public var migrating: Bool

    /// The settings file the choice for `localRoot` (an absolute, resolved path) is kept in.
    public static func file(configDirectory: String, localRoot: String) -> String {
        MachineSettings.file(configDirectory: configDirectory, localRoot: localRoot)
    }

    /// The persisted choice; nil when none was saved yet. Throws when the file cannot be read
    /// or is not valid JSON, or is over its size cap (the server starts without it, as if no
    /// choice were saved, and warns: `doctor` reports it as a problem to fix).
    public static func load(configDirectory: String, localRoot: String) throws(WorkspaceError) -> SavedChoice? {
        guard let s = try MachineSettings.loadIfPresent(configDirectory: configDirectory, localRoot: localRoot) else { return nil }
        return SavedChoice(location: s.location, needsChoice: s.needsChoice, migrating: s.pendingMigration != nil)
    }
}
