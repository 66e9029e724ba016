import JSON
import JSONRPC
import Workspace

/// Change watching, and the methods that cross the workspace's edge on the host's side
/// (a file URI; import from and export to absolute host paths). Not offered to agents.
enum WatchFiles: MethodDeclaration {
    static let method = "watchFiles"
    static let reaches: Set<Capability> = [.workspace]
    /// Writes the connection's watch (ordered with `unwatchFiles`: the later one wins).
    static func schedule(_ p: Params) -> Schedule { .claims([.write("watch", "files")]) }
    struct Params: MethodParams {
        var glob: Glob?
        init(_ p: ParamReader) throws { glob = try p.glob() }
    }
    static func handle(_ p: Params, _ call: Call) throws -> Watching {
        try call.services.changes.watch(try call.services.workspace(), glob: p.glob, connection: try call.connection())
        return Watching(watching: true)
    }
}

enum UnwatchFiles: MethodDeclaration {
    static let method = "unwatchFiles"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: NoParams) -> Schedule { .claims([.write("watch", "files")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> Watching {
        call.services.changes.unwatch()
        return Watching(watching: false)
    }
}

/// A method on one workspace path.
struct PathParams: MethodParams {
    var path: WorkspacePath
    init(_ p: ParamReader) throws { path = try p.path("path") }
}

enum GetFileUri: MethodDeclaration {
    static let method = "getFileUri"
    static let reaches: Set<Capability> = [.workspace, .hostPaths]
    static func schedule(_ p: PathParams) -> Schedule { .claims([]) }
    static func handle(_ p: PathParams, _ call: Call) throws -> FileURI {
        FileURI(uri: try call.services.workspace().fileURI(p.path))
    }
}

enum ImportFile: MethodDeclaration {
    static let method = "importFile"
    static let reaches: Set<Capability> = [.workspace, .hostPaths]
    struct Params: MethodParams {
        var source: String
        var path: WorkspacePath
        var overwrite: Bool
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            source = try p.requiredString("source")
            overwrite = try p.bool("overwrite") ?? false
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> WriteResult {
        WriteResult(try call.services.workspace().importFile(source: p.source, to: p.path, overwrite: p.overwrite,
                                                             isCancelled: { call.isCancelled }))
    }
}

enum ExportFile: MethodDeclaration {
    static let method = "exportFile"
    static let reaches: Set<Capability> = [.workspace, .hostPaths]
    struct Params: MethodParams {
        var path: WorkspacePath
        var destination: String
        var overwrite: Bool
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            destination = try p.requiredString("destination")
            overwrite = try p.bool("overwrite") ?? false
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> Exported {
        let size = try call.services.workspace().exportFile(p.path, destination: p.destination, overwrite: p.overwrite,
                                                            isCancelled: { call.isCancelled })
        return Exported(path: p.path, destination: p.destination, size: size)
    }
}
