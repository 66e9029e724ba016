import AgentSessions
import JSON
import JSONRPC
import Workspace

/// `session/export` and `session/import`: a session as one portable JSON file in the workspace
/// (issue 17). The store gives and takes bytes; the file is written and read through the
/// `Workspace` (sandboxed paths, crash-safe replacement), so the sessions module knows no files
/// but its own.
enum ExportSession: MethodDeclaration {
    static let method = "session/export"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var id: String
        var path: WorkspacePath?
        var overwrite: Bool
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            path = try p.string("path").map { try WorkspacePath($0) }
            overwrite = try p.bool("overwrite") ?? false
        }
    }

    /// The session's file goes to `path` (default `Chats/<id>.json`): created, or with
    /// `overwrite` replaced crash-safely; an existing file without it is `AlreadyExists`,
    /// decided atomically with the write (the save's exclusive create).
    static func schedule(_ p: Params) -> Schedule {
        .claims([.read("session", p.id), .write("file", p.path?.string ?? "Chats/\(p.id).json")])
    }

    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let ws = try call.services.workspace()
        return try SessionMethods.onStore(call) { store in
            let exported = try store.export(id: p.id)
            let path = try p.path ?? WorkspacePath(exported.defaultPath)
            let status = try ws.save(path, contents: exported.bytes, options: Workspace.SaveOptions(exclusive: !p.overwrite))
            return Result(path: status.path, bytes: exported.bytes.count, sha256: exported.sha256, id: exported.sessionId)
        }
    }

    struct Result: ObjectResult {
        var path: WorkspacePath
        var bytes: Int
        var sha256: String
        var id: String
        static let fields: [ResultField<Self>] = [.field("path", \.path), .field("bytes", \.bytes), .field("sha256", \.sha256),
                                                   .field("id", \.id)]
    }
}

/// A session from an exported file: `{session, replacedId?, notImported?}` (a new id when the
/// file's is taken; the consent the file carried and the import dropped); nothing is created
/// unless the whole file checks and replays.
enum ImportSession: MethodDeclaration {
    static let method = "session/import"
    static let reaches: Set<Capability> = [.workspace]
    /// The largest export file read (a session of 10,000 messages is ~2.5 MiB).
    static let maxImportBytes: Int64 = 256 << 20
    struct Params: MethodParams {
        var path: WorkspacePath
        init(_ p: ParamReader) throws { path = try p.path("path") }
    }

    /// A new session (its own claim would need an id not known yet; sessions are created the same way).
    static func schedule(_ p: Params) -> Schedule { .claims([.read("file", p.path.string)]) }

    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let ws = try call.services.workspace()
        return try SessionMethods.onStore(call) { store in
            let read = try ws.read(p.path, maxBytes: maxImportBytes)
            return Result(imported: try store.importSession(read.bytes))
        }
    }

    struct Result: ObjectResult {
        var imported: ImportedSession
        static let fields: [ResultField<Self>] = [.field("session", { SessionObject(session: $0.imported.session) }), .field("replacedId", \.imported.replacedId),
                                                   .field("notImported", { $0.imported.notImported.isEmpty ? nil : $0.imported.notImported })]
    }
}
