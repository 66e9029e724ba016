import BridgeServer
import FileWatching
import JSON
import JSONRPC
import Synchronization
import Workspace

/// MCP 2026-07-28's `subscriptions/listen` (docs/mcp-2026.md §7): one long-lived request per
/// subscription. The server first acknowledges it (`notifications/subscriptions/acknowledged`,
/// naming exactly the kinds it honours), then streams the changes opted into, each carrying the
/// subscription id (the request id, same JSON type) in `_meta`; a change made by anyone — this
/// process, another process, another device through the sync engine — is seen by the watcher.
/// `notifications/cancelled` ends the stream with no answer; end of input answers it with the
/// revision's graceful close. An open subscription holds no worker thread (`DeferredResponse`).
enum ListenSubscriptions: MCPRequestDeclaration {
    static let method = "subscriptions/listen"
    static let reaches: Set<Capability> = [.workspace]
    static let subscriptionKey = "io.modelcontextprotocol/subscriptionId"
    static let servedIn2025 = false
    /// Claims nothing: the stream stays open until cancelled, and a claim would hold back
    /// every later request that conflicts with it for as long.
    static func schedule(_ p: Params) -> Schedule { .free }

    struct Params: MethodParams {
        /// The resource URIs asked for, in order (checked against the workspace by the handler).
        var resourceURIs: [String] = []
        var listChanged = false
        init(_ p: ParamReader) throws {
            guard let wanted = try p.object("notifications") else {
                throw RPCError.invalidParams(field: "notifications", expected: "the notifications to listen for (an object)", got: "nothing")
            }
            if let raw = wanted.value("resourceSubscriptions") {
                guard case .array(let items) = raw else {
                    throw RPCError.invalidParams(field: "notifications.resourceSubscriptions", expected: "an array of resource URIs", got: raw.typeName)
                }
                resourceURIs = try items.map { item throws(RPCError) in
                    guard let uri = item.stringValue else {
                        throw RPCError.invalidParams(field: "notifications.resourceSubscriptions", expected: "resource URIs (strings)", got: item.typeName)
                    }
                    return uri
                }
            }
            listChanged = try wanted.bool("resourcesListChanged") ?? false
        }
    }

    static func handle(_ p: Params, _ call: Call) throws -> NullResult {
        guard let ctx = call.request, let id = ctx.id else { throw RPCError.invalidRequest("subscriptions/listen is a request") }
        let services = call.services
        let ws = try services.workspace()
        var uris: [WorkspacePath: String] = [:]
        var order: [String] = []
        for uri in p.resourceURIs {
            // The same rules as resources/subscribe: a file of the workspace, in scope, never through a link.
            let path = try MCPResources.path(ofURI: uri, in: ws)
            try call.mcp().roots.check(path)
            let (status, _) = try ws.info(path)
            if status.type == .symlink {
                throw WorkspaceError(.symlinkNotFollowed, "'\(path)' is a symbolic link; links are never followed", path: path.string)
            }
            if uris[path] == nil { order.append(uri) }
            uris[path] = uri
        }
        // Honoured: resource updates and list changes. The tool table never changes and there are
        // no prompts, so those kinds are left out of the acknowledgement (and never sent).
        var honoured = JSONObject()
        if !order.isEmpty { honoured["resourceSubscriptions"] = .array(order.map(JSON.string)) }
        if p.listChanged { honoured["resourcesListChanged"] = true }
        let listeners = try call.mcp().modern.listeners
        let subscription = id.json
        let response = try ctx.deferResponse(onCancel: { listeners.remove(id) }, atInputEnd: {
            listeners.remove(id)
            return ["resultType": "complete",
                    "_meta": .object([subscriptionKey: subscription, MCPEnvelope.serverInfoKey: MCPMethods.serverInfo])]
        })
        // Watching before the acknowledgement, streaming only after it: once the client has the
        // acknowledgement, every change after it is delivered, and nothing comes before it.
        let listener = MCPListener(id: id, listChanged: p.listChanged, response: response)
        do {
            try listeners.add(listener, uris: uris, root: ws.rootPath, connection: ctx.serving)
        } catch {
            listeners.remove(id)
            response.fail(services.mapError(error))
            return NullResult()
        }
        ctx.notify("notifications/subscriptions/acknowledged",
                   ["_meta": .object([subscriptionKey: subscription]), "notifications": .object(honoured)])
        listener.acknowledged.store(true, ordering: .releasing)
        return NullResult()   // ignored: the answer was deferred
    }
}

/// One open `subscriptions/listen`: whether it asked for list changes, the response that ends it,
/// and whether its acknowledgement has been sent (nothing is streamed before); the URIs of its
/// resources are kept with it in `MCPListeners` (restated when the workspace moves).
final class MCPListener: Sendable {
    let id: RequestID
    let listChanged: Bool
    let response: DeferredResponse
    let acknowledged = Atomic<Bool>(false)

    init(id: RequestID, listChanged: Bool, response: DeferredResponse) {
        self.id = id
        self.listChanged = listChanged
        self.response = response
    }
}

/// The open subscriptions of the process, fed by one recursive watcher of the workspace that
/// runs only while at least one is open (`OnDemandWatcher`). When the storage choice moves the
/// workspace, every open subscription follows it (`follow`): see `MCPWorkspaceMove`.
final class MCPListeners: FollowsWorkspace {
    /// An open listener, the connection it streams on, and the URIs its resources have now
    /// (those of the active root: restated when the workspace moves).
    private struct Open: Sendable { let listener: MCPListener; let connection: Connection; let uris: [WorkspacePath: String] }
    private let watch = OnDemandWatcher<RequestID, Open>(
        ignore: { ChangeNotifier.ignored($0) },
        deliver: { event, open in
            switch event {
            case .changes(let changes): MCPListeners.deliver(changes.map(ChangeNotifier.visible), everything: false, to: open.values)
            case .overflow: MCPListeners.deliver([], everything: true, to: open.values)
            }
        })

    /// Opens `listener`, its resources named by `uris` (workspace path → URI in `root`).
    func add(_ listener: MCPListener, uris: [WorkspacePath: String], root: String, connection: Connection) throws {
        try watch.add(listener.id, Open(listener: listener, connection: connection, uris: uris), root: root)
        // Cancelled between its acknowledgement and now: its hook found nothing to remove.
        if !listener.response.isOpen { remove(listener.id) }
    }

    func remove(_ id: RequestID) { watch.remove(id) }

    /// Moves every open subscription to `workspace`: its resources are the same relative paths
    /// there, named by their new URIs, each reported updated (its content is now the new root's),
    /// and the resource list reported changed to those that opted in. A subscription that cannot
    /// be watched there is ended with the error.
    func follow(_ workspace: Workspace) throws {
        let moved: Bool
        do {
            moved = try watch.retarget(root: workspace.rootPath) { _, o in
                Open(listener: o.listener, connection: o.connection, uris: MCPWorkspaceMove.restate(o.uris, in: workspace))
            }
        } catch {
            let e = ErrorMapping.rpcError(for: error.error)
            for o in error.dropped.values { o.listener.response.fail(e) }
            throw error.error
        }
        if moved { MCPListeners.deliver([], everything: true, to: watch.subscribers.values) }
    }

    /// Sends each listener the changes it opted into; an overflow or a move (`everything`) means
    /// anything may have changed: every subscribed resource and every list.
    private static func deliver(_ changes: [FileChange], everything: Bool, to open: some Collection<Open>) {
        let listChanged = everything || changes.contains { $0.kind != .changed }
        for o in open where o.listener.acknowledged.load(ordering: .acquiring) {
            let l = o.listener, connection = o.connection
            var sent = Set<String>()
            let tag: JSON = .object([ListenSubscriptions.subscriptionKey: l.id.json])
            let updated: [String] = everything ? Array(o.uris.values)
                : changes.compactMap { c in (try? WorkspacePath(c.path)).flatMap { o.uris[$0] } }
            for uri in updated where sent.insert(uri).inserted && l.response.isOpen {
                connection.notify("notifications/resources/updated", ["uri": .string(uri), "_meta": tag])
            }
            if l.listChanged, listChanged, l.response.isOpen {
                connection.notify("notifications/resources/list_changed", ["_meta": tag])
            }
        }
    }
}

/// What a resource subscription means after the workspace moved to another storage root: the
/// same workspace-relative path in the new root, named by its URI there.
enum MCPWorkspaceMove {
    static func restate(_ uris: [WorkspacePath: String], in workspace: Workspace) -> [WorkspacePath: String] {
        var out: [WorkspacePath: String] = [:]
        for (path, uri) in uris { out[path] = restate(path, uri, in: workspace) }
        return out
    }

    /// The URI of `path` in `workspace`; `old` when it cannot be named there.
    static func restate(_ path: WorkspacePath, _ old: String, in workspace: Workspace) -> String {
        (try? MCPResources.uri(workspace, path)) ?? old
    }
}
