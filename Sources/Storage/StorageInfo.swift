/// What `getStorageInfo` reports: where the workspace is, whether the cloud can be used, and
/// how full things are. The first four fields mirror the seeds' JavaScript API.
public struct StorageInfo: Sendable, Equatable {
    public var storageType: StorageLocation
    public var isCloudEnabled: Bool
    public var isCloudAvailable: Bool
    /// True once the user has made the first-run choice (`decideLater` does not count).
    public var isInitialized: Bool
    public var needsChoice: Bool
    public var cloudProvider: String?
    public var localRoot: String
    public var cloudRoot: String?
    public var files: Int
    public var bytes: Int64
    public var freeBytes: Int64
    /// The unfinished migration, if a previous one was interrupted.
    public var pendingMigration: PendingMigration?
}

/// A migration that started and has not finished (the process was killed, or it failed).
public struct PendingMigration: Sendable, Equatable {
    public var to: StorageLocation
    public var mode: String
    public var startedAt: String
    public var filesTotal: Int
    public var filesDone: Int
}
