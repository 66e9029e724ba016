import JSON
import JSONRPC
import Storage
import Workspace

/// `getStorageInfo`, `chooseStorage` and `migrate`: the seeds' storage screen.
enum StorageMethods {
    static let all: [any MethodDeclaration.Type] = [
        GetStorageInfo.self, ChooseStorage.self, Migrate.self, ListConflicts.self, ResolveConflict.self, DownloadFile.self,
    ]
}

/// Read-only and cheap: answered even while a migration runs (to show where it is).
enum GetStorageInfo: MethodDeclaration {
    static let method = "getStorageInfo"
    static let reaches: Set<Capability> = [.storage]
    static func schedule(_ p: NoParams) -> Schedule { .unordered }
    static func handle(_ p: NoParams, _ call: Call) throws -> StorageInfoResult {
        StorageInfoResult(info: try call.services.storage().info(), hub: call.services.agents.hub?.report)
    }
}

/// Switching roots must not interleave with file operations: a barrier.
enum ChooseStorage: MethodDeclaration {
    static let method = "chooseStorage"
    static let reaches: Set<Capability> = [.storage]
    struct Params: MethodParams {
        var location: StorageChoice
        init(_ p: ParamReader) throws {
            location = try p.requiredChoice("location", as: StorageChoice.self, expected: "\"local\", \"cloud\" or \"decideLater\"")
        }
    }
    static func schedule(_ p: Params) -> Schedule { .barrier }
    static func handle(_ p: Params, _ call: Call) throws -> StorageInfoResult {
        let storage = try call.services.storage()
        let before = try? storage.manager.active()
        let (info, alreadyActive) = try storage.choose(p.location)
        let after = try storage.manager.active()
        if before !== after { try call.services.moves.announce(after) }
        return StorageInfoResult(info: info, alreadyActive: alreadyActive)
    }
}

/// A migration reads and writes the whole workspace: a barrier, like chooseStorage.
enum Migrate: MethodDeclaration {
    static let method = "migrate"
    static let reaches: Set<Capability> = [.storage]
    struct Params: MethodParams {
        var options: Migration.Options
        init(_ p: ParamReader) throws {
            options = Migration.Options(to: try p.requiredChoice("to", as: StorageLocation.self, expected: "\"local\" or \"cloud\""))
            if let m = try p.choice("mode", as: Migration.Mode.self) { options.mode = m }
            if let c = try p.choice("onConflict", as: Migration.OnConflict.self) { options.onConflict = c }
            options.dryRun = try p.bool("dryRun") ?? false
        }
    }
    static func schedule(_ p: Params) -> Schedule { .barrier }
    static func handle(_ p: Params, _ call: Call) throws -> MigrationResult {
        let options = p.options
        let storage = try call.services.storage()
        defer { storage.logWarnings() }
        let before = try? storage.manager.active()
        call.progress?.begin(title: "Moving the workspace to \(options.to.rawValue) storage", percentage: 0)
        let report = try Migration(manager: storage.manager, options: options).run(isCancelled: { call.isCancelled }) { p in
            let pct = p.bytesTotal > 0 ? Int(p.bytesDone * 100 / p.bytesTotal) : Int(p.filesDone * 100 / max(1, p.filesTotal))
            call.progress?.report(message: "\(p.filesDone)/\(p.filesTotal) files: \(p.currentPath)", percentage: pct)
        }
        call.progress?.end(message: report.switched ? "done" : "dry run")
        if let after = try? storage.manager.active(), before !== after {
            try call.services.moves.announce(after)
        }
        return MigrationResult(report: report)
    }
}
