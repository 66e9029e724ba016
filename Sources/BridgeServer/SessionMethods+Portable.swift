import AgentSessions
import JSON
import JSONRPC
import Workspace

/// `session/export` and `session/import`: a session as one portable JSON file in the workspace
/// (issue 17). The store gives and takes bytes; the file is written and read through the
/// `Workspace` (sandboxed paths, crash-safe replacement), so the sessions module knows no files
/// but its own.
extension SessionMethods {
    /// The largest export file `session/import` reads (a session of 10,000 messages is ~2.5 MiB).
    static let maxImportBytes: Int64 = 256 << 20

    struct ExportParams { var id: String; var path: WorkspacePath? }

    static func exportParams(_ p: Params) throws -> ExportParams {
        ExportParams(id: try p.requiredString("id"), path: try p.string("path").map { try WorkspacePath($0) })
    }

    /// The session's file goes to `path` (default `Chats/<id>.json`), replaced crash-safely.
    static func exportClaims(_ p: ExportParams) -> [Claim] {
        [.read("session", p.id), .write("file", p.path?.string ?? "Chats/\(p.id).json")]
    }

    static func export(_ store: SessionStore, _ ws: Workspace, _ p: ExportParams) throws -> JSON {
        let exported = try store.export(id: p.id)
        let path = try p.path ?? WorkspacePath(exported.defaultPath)
        let status = try ws.save(path, contents: exported.bytes)
        return ["path": .string(status.path.string), "bytes": .int(Int64(exported.bytes.count)),
                "sha256": .string(exported.sha256), "id": .string(exported.sessionId)]
    }

    struct ImportParams { var path: WorkspacePath }

    static func importParams(_ p: Params) throws -> ImportParams {
        ImportParams(path: try p.path("path"))
    }

    /// A new session (its own claim would need an id not known yet; sessions are created the same way).
    static func importClaims(_ p: ImportParams) -> [Claim] { [.read("file", p.path.string)] }

    /// `{session, replacedId?}`; nothing is created unless the whole file checks and replays.
    static func importSession(_ store: SessionStore, _ ws: Workspace, _ p: ImportParams) throws -> JSON {
        let read = try ws.read(p.path, maxBytes: maxImportBytes)
        let imported = try store.importSession(read.bytes)
        var o: JSONObject = ["session": imported.session.json]
        if let replaced = imported.replacedId { o["replacedId"] = .string(replaced) }
        return .object(o)
    }

    static func registerPortable(_ methods: inout [Method]) {
        methods.append(Method("session/export", schedule: { params in .claims(exportClaims(try exportParams(try Params(params)))) }) { ctx in
            let p = try exportParams(try ctx.paramsObject())
            let server = try LifecycleMethods.server(ctx)
            let ws = try server.workspace()
            let (store, _) = try server.agents.stores(for: ws)
            defer { server.agents.logWarnings(store) }
            return try export(store, ws, p)
        })
        methods.append(Method("session/import", schedule: { params in .claims(importClaims(try importParams(try Params(params)))) }) { ctx in
            let p = try importParams(try ctx.paramsObject())
            let server = try LifecycleMethods.server(ctx)
            let ws = try server.workspace()
            let (store, _) = try server.agents.stores(for: ws)
            defer { server.agents.logWarnings(store) }
            return try importSession(store, ws, p)
        })
    }
}
