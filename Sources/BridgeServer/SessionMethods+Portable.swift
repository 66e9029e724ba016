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
    static let result = ResultShape.object(["path", "bytes", "sha256", "id"])
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

    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let ws = try call.services.workspace()
        return try SessionMethods.onStore(call) { store in
            let exported = try store.export(id: p.id)
            let path = try p.path ?? WorkspacePath(exported.defaultPath)
            let status = try ws.save(path, contents: exported.bytes, options: Workspace.SaveOptions(exclusive: !p.overwrite))
            return ["path": .string(status.path.string), "bytes": .int(Int64(exported.bytes.count)),
                    "sha256": .string(exported.sha256), "id": .string(exported.sessionId)]
        }
    }
}

/// A session from an exported file: `{session, replacedId?, notImported?}` (a new id when the
/// file's is taken; the consent the file carried and the import dropped); nothing is created
/// unless the whole file checks and replays.
enum ImportSession: MethodDeclaration {
    static let method = "session/import"
    static let result = ResultShape.object(["session", "replacedId", "notImported"])
    /// The largest export file read (a session of 10,000 messages is ~2.5 MiB).
    static let maxImportBytes: Int64 = 256 << 20
    struct Params: MethodParams {
        var path: WorkspacePath
        init(_ p: ParamReader) throws { path = try p.path("path") }
    }

    /// A new session (its own claim would need an id not known yet; sessions are created the same way).
    static func schedule(_ p: Params) -> Schedule { .claims([.read("file", p.path.string)]) }

    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let ws = try call.services.workspace()
        return try SessionMethods.onStore(call) { store in
            let read = try ws.read(p.path, maxBytes: maxImportBytes)
            let imported = try store.importSession(read.bytes)
            var o: JSONObject = ["session": imported.session.json]
            if let replaced = imported.replacedId { o["replacedId"] = .string(replaced) }
            if !imported.notImported.isEmpty { o["notImported"] = imported.notImported.json }
            return .object(o)
        }
    }
}
