import FileWatching
import JSON
import JSONRPC
import Synchronization
import Workspace

/// Workspace files as MCP resources: `file://` URIs under the active root (percent-encoded),
/// listed page by page, read as text (UTF-8) or blob (base64), and subscribable: a change made
/// by anyone is sent as `notifications/resources/updated {uri}`.
enum MCPResources {
    static let pageSize = 200

    static func uri(_ ws: Workspace, _ path: WorkspacePath) throws -> String { try ws.fileURI(path) }

    /// The workspace path of a `file://` URI; anything outside the root is refused.
    static func path(ofURI uri: String, in ws: Workspace) throws -> WorkspacePath {
        let prefix = try ws.fileURI(.root)
        guard uri == prefix || uri.hasPrefix(prefix + "/") else {
            throw WorkspaceError(.outsideWorkspace, "'\(uri)' is not a resource of this workspace (\(prefix)/…)", path: uri)
        }
        let rest = String(uri.dropFirst(prefix.count)).drop { $0 == "/" }
        guard let decoded = percentDecoded(String(rest)) else {
            throw WorkspaceError(.invalidPath, "'\(uri)' has a bad percent-encoding", path: uri)
        }
        return try WorkspacePath(decoded)
    }

    static func list(_ ctx: RequestContext) throws -> JSON {
        let server = try LifecycleMethods.server(ctx)
        let ws = try server.workspace()
        let p = try ctx.paramsObject()
        var o = Workspace.ListOptions()
        o.recursive = true
        o.limit = pageSize
        if let cursor = try p.string("cursor") {
            guard let after = ListCursor.decode(cursor) else {
                throw RPCError.invalidParams(field: "cursor", expected: "a nextCursor from resources/list", got: "unknown cursor")
            }
            o.after = after
        }
        let page = try ws.list(o, isCancelled: { ctx.isCancelled })
        var resources: [JSON] = []
        let scope = server.mcpRoots
        for e in page.entries where e.type == .file && (try? scope.check(e.path)) != nil {
            resources.append(["uri": .string(try uri(ws, e.path)), "name": .string(e.path.string), "title": .string(e.path.name),
                              "mimeType": .string(mimeType(e.path.name)), "size": .int(e.size)])
        }
        var result: JSONObject = ["resources": .array(resources)]
        if let next = page.next { result["nextCursor"] = .string(ListCursor.encode(next)) }
        return .object(result)
    }

    static func read(_ ctx: RequestContext) throws -> JSON {
        let server = try LifecycleMethods.server(ctx)
        let ws = try server.workspace()
        let raw = try ctx.paramsObject().requiredString("uri")
        let path = try path(ofURI: raw, in: ws)
        try server.mcpRoots.check(path)
        let r = try ws.read(path, maxBytes: FileMethods.maxReadBytes)
        let mime = mimeType(path.name)
        let isText = r.bytes.withUnsafeBytes { UTF8Text.validPrefixLength($0, allowTruncatedEnd: false) } != nil
            && !r.bytes.contains(0)
        let content: JSON = isText
            ? ["uri": .string(raw), "mimeType": .string(mime), "text": .string(String(decoding: r.bytes, as: UTF8.self))]
            : ["uri": .string(raw), "mimeType": .string(mime == "text/plain" ? "application/octet-stream" : mime),
               "blob": .string(Base64.encode(r.bytes))]
        return ["contents": [content]]
    }

    static func templates(_ ctx: RequestContext) throws -> JSON {
        let ws = try LifecycleMethods.server(ctx).workspace()
        return ["resourceTemplates": [[
            "uriTemplate": .string(try ws.fileURI(.root) + "/{+path}"), "name": "workspace-file", "title": "A file of the workspace",
            "description": "Any file under the workspace root, by its relative path.",
        ]]]
    }

    static func subscribe(_ ctx: RequestContext, on: Bool) throws -> JSON {
        let server = try LifecycleMethods.server(ctx)
        let ws = try server.workspace()
        let raw = try ctx.paramsObject().requiredString("uri")
        let path = try path(ofURI: raw, in: ws)
        if on {
            try server.mcpRoots.check(path)
            // The same rules as reading it: an existing file of the workspace, never through a link.
            let (status, _) = try ws.info(path)
            if status.type == .symlink {
                throw WorkspaceError(.symlinkNotFollowed, "'\(path)' is a symbolic link; links are never followed", path: path.string)
            }
        }
        if on { try server.resourceWatch.subscribe(path, uri: raw, workspace: ws, connection: ctx.serving) } else {
            server.resourceWatch.unsubscribe(path)
        }
        return .object(JSONObject())
    }

    static func mimeType(_ name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "md", "markdown": return "text/markdown"
        case "txt", "log": return "text/plain"
        case "json": return "application/json"
        case "html", "htm": return "text/html"
        case "csv": return "text/csv"
        case "swift", "py", "js", "ts", "c", "h", "rs", "go", "java", "sh": return "text/plain"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "pdf": return "application/pdf"
        default: return "text/plain"
        }
    }

    static func percentDecoded(_ s: String) -> String? {
        var out: [UInt8] = []
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%") {
                guard i + 2 < b.count, let v = UInt8(String(decoding: b[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) else { return nil }
                out.append(v)
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}

/// The resources an MCP client subscribed to, watched with one recursive watcher.
final class ResourceSubscriptions: Sendable {
    private struct State { var uris: [WorkspacePath: String] = [:]; var watcher: FileWatcher? }
    private let state = Mutex(State())

    func subscribe(_ path: WorkspacePath, uri: String, workspace: Workspace, connection: Connection) throws {
        let needsWatcher = state.withLock { s -> Bool in
            s.uris[path] = uri
            return s.watcher == nil
        }
        guard needsWatcher else { return }
        let watcher = try FileWatcher(
            root: workspace.rootPath, latencyMilliseconds: 50,
            ignore: { ChangeNotifier.ignored($0) },
            onChanges: { [weak self] changes in
                guard let self else { return }
                let subscribed = self.state.withLock { $0.uris }
                for c in changes.map(ChangeNotifier.visible) {
                    guard let p = try? WorkspacePath(c.path), let uri = subscribed[p] else { continue }
                    connection.notify("notifications/resources/updated", ["uri": .string(uri)])
                }
            },
            onOverflow: { [weak self] in
                for uri in self?.state.withLock({ Array($0.uris.values) }) ?? [] {
                    connection.notify("notifications/resources/updated", ["uri": .string(uri)])
                }
            })
        let keep = state.withLock { s -> Bool in
            if s.watcher != nil { return false }
            s.watcher = watcher
            return true
        }
        if !keep { watcher.stop() }
    }

    func unsubscribe(_ path: WorkspacePath) {
        let w = state.withLock { s -> FileWatcher? in
            s.uris[path] = nil
            guard s.uris.isEmpty else { return nil }
            defer { s.watcher = nil }
            return s.watcher
        }
        w?.stop()
    }
}
