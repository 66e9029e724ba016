import BridgeServer
import FileWatching
import JSON
import JSONRPC
import SystemSupport
import Workspace

/// Workspace files as MCP resources: `file://` URIs under the active root (percent-encoded),
/// listed page by page, read as text (UTF-8) or blob (base64), and subscribable: a change made
/// by anyone is sent as `notifications/resources/updated {uri}`.
enum MCPResources {
    static let pageSize = 200
    /// `_meta` keys of ours (MCP has no etag of its own): a resource's etag in `resources/list`
    /// and on each content of `resources/read`; the etag a client holds, on a `resources/read`
    /// request; and the answer that it is still current (`contents` empty, nothing read).
    static let etagKey = "workspace-bridge/etag"
    /// The `_meta` naming a file's etag, on a listed resource and on a read content.
    static func etagMeta(_ etag: String) -> JSON { [etagKey: .string(etag)] }
    static let ifNoneMatchKey = "workspace-bridge/ifNoneMatch"
    static let unchangedKey = "workspace-bridge/unchanged"

    static func uri(_ ws: Workspace, _ path: WorkspacePath) throws -> String { try ws.fileURI(path) }

    /// The workspace path of a `file://` URI; anything outside the root is refused.
    static func path(ofURI uri: String, in ws: Workspace) throws -> WorkspacePath {
        let prefix = try ws.fileURI(.root)
        guard uri == prefix || uri.hasPrefix(prefix + "/") else {
            throw WorkspaceError(.outsideWorkspace, "'\(uri)' is not a resource of this workspace (\(prefix)/…)", path: uri)
        }
        let rest = String(uri.dropFirst(prefix.count)).drop { $0 == "/" }
        guard let decoded = URIText.percentDecoded(String(rest)) else {
            throw WorkspaceError(.invalidPath, "'\(uri)' has a bad percent-encoding", path: uri)
        }
        return try WorkspacePath(decoded)
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
}

/// The resources an MCP client subscribed to, watched with one recursive watcher that runs
/// only while at least one is subscribed (`OnDemandWatcher`). A subscription is to a
/// workspace-relative path: when the storage choice moves the workspace it follows to the same
/// path in the new root (`follow`), is reported updated under its URI there, and can still be
/// ended with the URI it was made with.
final class ResourceSubscriptions: FollowsWorkspace {
    /// `uri` names the resource in the active root; `asked` is the URI the client subscribed with.
    private struct Subscribed: Sendable { let uri: String; let asked: String; let connection: Connection }
    private let watch = OnDemandWatcher<WorkspacePath, Subscribed>(
        ignore: { ChangeNotifier.ignored($0) },
        deliver: { event, subscribed in
            let updated: [Subscribed]
            switch event {
            case .changes(let changes):
                updated = changes.map(ChangeNotifier.visible).compactMap { c in (try? WorkspacePath(c.path)).flatMap { subscribed[$0] } }
            case .overflow:
                updated = Array(subscribed.values)
            }
            ResourceSubscriptions.notify(updated)
        })

    func subscribe(_ path: WorkspacePath, uri: String, workspace: Workspace, connection: Connection) throws {
        try watch.add(path, Subscribed(uri: uri, asked: uri, connection: connection), root: workspace.rootPath)
    }

    /// Ends the subscription `uri` names: a resource of `workspace`, or a URI subscribed to
    /// before the workspace moved. Nothing when there is none; a URI that is neither is refused.
    func unsubscribe(uri: String, workspace: Workspace) throws {
        if let (path, _) = watch.subscribers.first(where: { $0.value.asked == uri || $0.value.uri == uri }) {
            watch.remove(path)
            return
        }
        watch.remove(try MCPResources.path(ofURI: uri, in: workspace))
    }

    /// Moves every subscription to the same path in `workspace` and reports each updated under
    /// its new URI (its content is now the new root's). Subscriptions that cannot be watched
    /// there are dropped (the 2025 era has no way to end one from the server) and the error thrown.
    func follow(_ workspace: Workspace) throws {
        let moved: Bool
        do {
            moved = try watch.retarget(root: workspace.rootPath) { path, s in
                Subscribed(uri: MCPWorkspaceMove.restate(path, s.uri, in: workspace), asked: s.asked, connection: s.connection)
            }
        } catch {
            throw error.error
        }
        if moved { Self.notify(Array(watch.subscribers.values)) }
    }

    private static func notify(_ updated: [Subscribed]) {
        var sent = Set<String>()
        for s in updated where sent.insert(s.uri).inserted {
            s.connection.notify("notifications/resources/updated", ["uri": .string(s.uri)])
        }
    }
}

/// A resource request naming one `uri`.
struct ResourceURI: MethodParams {
    var uri: String
    init(_ p: ParamReader) throws { uri = try p.requiredString("uri") }
}

enum ListResources: MethodDeclaration {
    static let method = "resources/list"
    static let reaches: Set<Capability> = [.workspace]
    /// Reads the workspace's listing (waits for earlier writes, like `listFiles` of the root).
    static func schedule(_ p: Params) -> Schedule { .claims([.read("file", "")]) }
    struct Params: MethodParams {
        var cursor: String?
        init(_ p: ParamReader) throws { cursor = try p.string("cursor") }
    }
    static func handle(_ p: Params, _ call: Call) throws -> MCPResourceList {
        let ws = try call.services.workspace()
        var o = Workspace.ListOptions()
        o.recursive = true
        o.limit = MCPResources.pageSize
        if let cursor = p.cursor {
            guard let after = ListCursor.decode(cursor) else {
                throw RPCError.invalidParams(field: "cursor", expected: "a nextCursor from resources/list", got: "unknown cursor")
            }
            o.after = after
        }
        let page = try ws.list(o, isCancelled: { call.isCancelled })
        var resources: [MCPResource] = []
        let scope = try call.mcp().roots
        for e in page.entries where e.type == .file && (try? scope.check(e.path)) != nil {
            resources.append(MCPResource(uri: try MCPResources.uri(ws, e.path), path: e.path, size: e.size, etag: e.etag))
        }
        return MCPResourceList(resources: resources, nextCursor: page.next.map(ListCursor.encode))
    }
}

enum ReadResource: MethodDeclaration {
    static let method = "resources/read"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var uri: String
        /// The etag the client holds (`_meta["workspace-bridge/ifNoneMatch"]`).
        var ifNoneMatch: String?
        init(_ p: ParamReader) throws {
            uri = try p.requiredString("uri")
            ifNoneMatch = try p.object("_meta")?.string(MCPResources.ifNoneMatchKey)
        }
    }
    /// Reads one file, named by a URI resolved against the workspace root only when it runs:
    /// claims a read of the whole workspace (earlier writes land first, like `loadFile`).
    static func schedule(_ p: Params) -> Schedule { .claims([.read("file", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> MCPResourceContents {
        let ws = try call.services.workspace()
        let path = try MCPResources.path(ofURI: p.uri, in: ws)
        try call.mcp().roots.check(path)
        if let known = p.ifNoneMatch, let status = try ws.unchanged(path, since: known) {
            return MCPResourceContents(contents: [], meta: [MCPResources.unchangedKey: true, MCPResources.etagKey: .string(status.etag)])
        }
        let r = try ws.read(path, maxBytes: FileMethods.maxReadBytes)
        let mime = MCPResources.mimeType(path.name)
        let isText = r.bytes.withUnsafeBytes { UTF8Text.validPrefixLength($0, allowTruncatedEnd: false) } != nil
            && !r.bytes.contains(0)
        let content = isText
            ? MCPResourceContent(uri: p.uri, mimeType: mime, text: String(decoding: r.bytes, as: UTF8.self), etag: r.status.etag)
            : MCPResourceContent(uri: p.uri, mimeType: mime == "text/plain" ? "application/octet-stream" : mime,
                                 blob: Base64.encode(r.bytes), etag: r.status.etag)
        return MCPResourceContents(contents: [content])
    }
}

enum ResourceTemplates: MethodDeclaration {
    static let method = "resources/templates/list"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: NoParams) -> Schedule { .free }
    static func handle(_ p: NoParams, _ call: Call) throws -> MCPResourceTemplates {
        MCPResourceTemplates(rootURI: try call.services.workspace().fileURI(.root))
    }
}

enum SubscribeResource: MethodDeclaration {
    static let method = "resources/subscribe"
    static let reaches: Set<Capability> = [.workspace]
    /// Writes the resource watch (ordered with `resources/unsubscribe`).
    static func schedule(_ p: ResourceURI) -> Schedule { .claims([.write("watch", "resources")]) }
    static func handle(_ p: ResourceURI, _ call: Call) throws -> EmptyResult {
        let services = call.services
        let ws = try services.workspace()
        let path = try MCPResources.path(ofURI: p.uri, in: ws)
        try call.mcp().roots.check(path)
        // The same rules as reading it: an existing file of the workspace, never through a link.
        let (status, _) = try ws.info(path)
        if status.type == .symlink {
            throw WorkspaceError(.symlinkNotFollowed, "'\(path)' is a symbolic link; links are never followed", path: path.string)
        }
        try call.mcp().resourceWatch.subscribe(path, uri: p.uri, workspace: ws, connection: try call.connection())
        return EmptyResult()
    }
}

enum UnsubscribeResource: MethodDeclaration {
    static let method = "resources/unsubscribe"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: ResourceURI) -> Schedule { .claims([.write("watch", "resources")]) }
    static func handle(_ p: ResourceURI, _ call: Call) throws -> EmptyResult {
        try call.mcp().resourceWatch.unsubscribe(uri: p.uri, workspace: try call.services.workspace())
        return EmptyResult()
    }
}
