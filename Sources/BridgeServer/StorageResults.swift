import AgentSessions
import JSON
import Storage
import Workspace

/// `getStorageInfo`'s and `chooseStorage`'s result: where the workspace is, whether the cloud
/// can be used, how full things are (`chooseStorage` adds `alreadyActive`).
struct StorageInfoResult: ObjectResult {
    var info: StorageInfo
    var alreadyActive: Bool?
    /// The session hub (`--hub`), for `getStorageInfo`.
    var hub: ReplicaReport?

    static let fields: [ResultField<Self>] = [
        .field("storageType", \.info.storageType.rawValue), .field("isCloudEnabled", \.info.isCloudEnabled),
        .field("isCloudAvailable", \.info.isCloudAvailable), .field("isInitialized", \.info.isInitialized),
        .field("needsChoice", \.info.needsChoice), .nullable("cloudProvider", \.info.cloudProvider),
        .field("roots", { Roots(local: $0.info.localRoot, cloud: $0.info.cloudRoot) }),
        .field("usage", { Usage(files: $0.info.files, bytes: $0.info.bytes) }), .field("freeBytes", \.info.freeBytes),
        .nullable("pendingMigration", { $0.info.pendingMigration.map(Pending.init) }), .field("alreadyActive", \.alreadyActive),
        .field("hub", { $0.hub.map(Hub.init) }),
    ]

    struct Hub: ObjectResult {
        var r: ReplicaReport
        static let fields: [ResultField<Self>] = [
            .field("connected", \.r.connected), .field("schemaVersion", \.r.schemaVersion),
            .field("outboxRecords", \.r.outboxRecords), .field("committedRecords", \.r.committedRecords),
            .field("divergedSessions", \.r.divergedSessions), .nullable("lastError", \.r.lastError),
        ]
    }

    struct Roots: ObjectResult {
        var local: String
        var cloud: String?
        static let fields: [ResultField<Self>] = [.field("local", \.local), .nullable("cloud", \.cloud)]
    }

    struct Usage: ObjectResult {
        var files: Int
        var bytes: Int64
        static let fields: [ResultField<Self>] = [.field("files", \.files), .field("bytes", \.bytes)]
    }

    struct Pending: ObjectResult {
        var m: PendingMigration
        static let fields: [ResultField<Self>] = [
            .field("to", \.m.to.rawValue), .field("mode", \.m.mode), .field("startedAt", \.m.startedAt),
            .field("filesTotal", \.m.filesTotal), .field("filesDone", \.m.filesDone),
        ]
    }
}

/// `migrate`'s report.
struct MigrationResult: ObjectResult {
    var report: Migration.Report

    static let fields: [ResultField<Self>] = [
        .field("copied", \.report.copied), .field("skipped", \.report.skipped), .field("conflicts", \.report.conflicts),
        .field("bytes", \.report.bytes), .field("verified", \.report.verified), .field("durationMs", \.report.durationMs),
        .field("switched", \.report.switched), .field("resumed", \.report.resumed), .field("alreadyActive", \.report.alreadyActive),
        .field("notDownloaded", \.report.notDownloaded), .field("skippedEntries", { $0.report.skippedEntries.map(Skipped.init) }),
        .field("renamed", { $0.report.renamed.map { Renamed(from: $0.from, to: $0.to) } }),
    ]

    struct Renamed: ObjectResult {
        var from: String
        var to: String
        static let fields: [ResultField<Self>] = [.field("from", \.from), .field("to", \.to)]
    }
}
