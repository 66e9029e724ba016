import JSON
import JSONRPC
import Synchronization

/// MCP's 2026-07-28 era beside the 2025 handshake, on one connection (docs/mcp-2026.md).
///
/// The era is decided per message, never locked: a request whose `_meta` carries the modern
/// envelope (`MCPEnvelope`) is served statelessly from it — no handshake, nothing learned from
/// earlier requests — with the revision's result shape (`resultType`, cache hints, the server's
/// identity in `_meta`); a request without it belongs to the 2025 era and is served by the
/// handshake-era method once `initialize` ran (and answered "not initialized" before, as it
/// always was). So a failed or successful probe never stops a later `initialize`, and a modern
/// request is served on a process that did the handshake.
enum MCPModern {
    static let discover = "server/discover"
    /// Methods the revision removed: they exist only in the 2025 era.
    static let removed: Set<String> = ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]
    /// Cache hints per cacheable method (caching.mdx), chosen truthfully: the tool table and the
    /// templates are fixed for the binary's life and the same for everyone; the workspace's
    /// listing and files can change at any moment (the watcher, other processes, other devices).
    static let cacheHints: [String: (ttlMs: Int64, scope: String)] = [
        discover: (3_600_000, "private"), "tools/list": (3_600_000, "public"),
        "resources/templates/list": (3_600_000, "public"), "resources/list": (0, "private"), "resources/read": (0, "private"),
    ]

    /// What a method does in the modern era when it differs from its 2025 handler (or has none).
    typealias ModernHandler = @Sendable (RequestContext, MCPEnvelope, BridgeServer) throws -> JSON

    /// The era-dispatching methods: one per 2025 MCP request method (same scheduling), plus the
    /// modern era's own (`MCPModernMethods`).
    static func methods(legacy: [String: Method]) -> [String: Method] {
        var out: [String: Method] = [:]
        for (name, m) in legacy {
            let modern = MCPModernMethods.overriding(name, legacy: m)
            out[name] = Method(name, inline: m.inline, namedParams: m.namedParams, schedule: m.schedule) { ctx in
                try serve(ctx, name: name, legacy: m, modern: modern)
            }
        }
        for (name, m) in MCPModernMethods.own {
            out[name] = Method(name, inline: m.inline, schedule: m.schedule) { ctx in
                try serve(ctx, name: name, legacy: nil, modern: m.handler)
            }
        }
        return out
    }

    static func serve(_ ctx: RequestContext, name: String, legacy: Method?, modern: ModernHandler?) throws -> JSON {
        let server = try LifecycleMethods.server(ctx)
        guard let envelope = try MCPEnvelope.parse(ctx.params) else {
            guard let legacy else {
                throw RPCError.invalidParams(field: "_meta.\(MCPEnvelope.versionKey)",
                                             expected: "the protocol version (\(MCPVersions.modern.joined(separator: ", ")))", got: "nothing")
            }
            guard server.lifecycle.current == .running, server.lifecycle.isMCP else { throw RPCError.serverNotInitialized }
            return try legacy.handler(ctx)
        }
        if removed.contains(name) {
            let e = RPCError.methodNotFound(name)
            MCPRequestLog.record(ctx, envelope, method: name, outcome: "\(e.code) \(e.dataCode)")
            throw e
        }
        let (root, sessionID) = try server.modern.prepare(server, ctx, envelope)
        var result: JSONObject = ["resultType": "complete"]
        let body: JSON
        if name == discover {
            body = ["supportedVersions": .array(MCPVersions.all.map(JSON.string)), "capabilities": capabilities,
                    "instructions": .string(MCPMethods.instructions(root: root, sessionID: sessionID))]
        } else {
            do {
                if let modern { body = try modern(ctx, envelope, server) } else if let legacy { body = try legacy.handler(ctx) } else {
                    throw RPCError.methodNotFound(name)
                }
            } catch {
                let e = modernError(server.mapError(error), method: name, params: ctx.params)
                MCPRequestLog.record(ctx, envelope, method: name, outcome: "\(e.code) \(e.dataCode): \(e.message)")
                throw e
            }
        }
        var meta = JSONObject()
        for (k, v) in body.objectValue?.members ?? [] {
            if k == "_meta" { meta = v.objectValue ?? JSONObject() } else { result[k] = v }
        }
        MCPRequestLog.record(ctx, envelope, method: name, outcome: MCPRequestLog.outcome(of: .object(result)))
        if let hint = cacheHints[name] {
            result["ttlMs"] = .int(hint.ttlMs)
            result["cacheScope"] = .string(hint.scope)
        }
        meta[MCPEnvelope.serverInfoKey] = MCPMethods.serverInfo
        result["_meta"] = .object(meta)
        return .object(result)
    }

    /// The capabilities the modern era advertises: only what it serves. Log messages go out per
    /// request (`MCPRequestLog`); resource updates and list changes through `subscriptions/listen`
    /// (`MCPSubscriptions`); long tool calls as tasks (`MCPTasks`).
    static var capabilities: JSON {
        ["tools": ["listChanged": false], "resources": ["subscribe": true, "listChanged": true], "logging": .object(JSONObject()),
         "extensions": .object([MCPTasks.extensionID: .object(JSONObject())])]
    }

    /// An error in the revision's codes: a resource that cannot be read (missing, outside the
    /// workspace, a bad URI) is `-32602` with its `uri` (the 2025 era keeps its code); the typed
    /// `data.code` stays.
    static func modernError(_ e: RPCError, method: String, params: JSON?) -> RPCError {
        guard method == "resources/read" || method == MCPModernMethods.listen, e.code == ErrorCode.requestFailed else { return e }
        var data = e.data
        if let uri = params?["uri"] { data["uri"] = uri }
        return RPCError(code: ErrorCode.invalidParams, message: e.message, dataCode: e.dataCode, data: data)
    }
}

/// What the first modern request of a process sets up, once: storage, the session tool calls are
/// journaled into, MCP's conventions on the connection. Later requests, of either era, reuse it.
final class MCPModernState: Sendable {
    private let ready = Mutex<(root: String, sessionID: String)?>(nil)
    /// The open `subscriptions/listen` streams.
    let listeners = MCPListeners()
    /// The tasks extension's tasks.
    let tasks = MCPTaskStore()

    func prepare(_ server: BridgeServer, _ ctx: RequestContext, _ envelope: MCPEnvelope) throws -> (root: String, sessionID: String) {
        try ready.withLock { state throws -> (root: String, sessionID: String) in
            if let state { return state }
            let opened = try MCPMethods.openSession(server, clientName: envelope.clientName ?? "MCP client")
            server.lifecycle.setMCP()
            server.attach(ctx.serving)
            ctx.serving.useMCPConventions()
            state = opened
            return opened
        }
    }
}
