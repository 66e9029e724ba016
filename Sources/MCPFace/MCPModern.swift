import BridgeServer
import JSON
import JSONRPC
import Synchronization

/// MCP's 2026-07-28 era beside the 2025 handshake, on one connection (docs/mcp-2026.md).
///
/// The era is decided per message, never locked: a request whose `_meta` carries the modern
/// envelope (`MCPEnvelope`) is served statelessly from it — no handshake, nothing learned from
/// earlier requests — with the revision's result shape (`resultType`, cache hints, the server's
/// identity in `_meta`); a request without it belongs to the 2025 era and is served by the
/// declaration's handler once `initialize` ran (and answered "not initialized" before, as it
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

    /// The modern era's own requests (no 2025 counterpart).
    static let own: [any MCPRequestDeclaration.Type] = [Discover.self, ListenSubscriptions.self, GetTask.self, CancelTask.self, UpdateTask.self]

    /// The era-dispatching methods: every MCP request of both eras (a duplicate name traps).
    static func methods(_ services: Services, _ state: MCPConnectionState) -> [String: Method] {
        MethodIndex.byName((MCPMethods.requests + own).map { $0.eraMethod(services, state) }, table: "MCP era request")
    }

    /// A request for a method no table has, where the era is not settled: a modern request (its
    /// `_meta`) is `-32601`, never the retired "not initialized"; a 2025 one keeps the 2025 answer.
    static func unknown(_ name: String, _ services: Services) -> Method {
        Method(name, inline: true, schedule: { _ in .unordered }) { ctx in
            if try MCPEnvelope.parse(ctx.params) != nil { throw RPCError.methodNotFound(name) }
            guard services.lifecycle.current == .running, services.lifecycle.speaks(MCPFace.id) else { throw RPCError.serverNotInitialized }
            throw RPCError.methodNotFound(name)
        }
    }

    static func serve<D: MCPRequestDeclaration>(_: D.Type, _ decoded: EraParams<D.Params>, _ call: Call) throws -> JSON {
        let name = D.method
        let services = call.services
        guard let envelope = try decoded.envelope.get() else {
            guard D.servedIn2025 else {
                throw RPCError.invalidParams(field: "_meta.\(MCPEnvelope.versionKey)",
                                             expected: "the protocol version (\(MCPVersions.modern.joined(separator: ", ")))", got: "nothing")
            }
            guard services.lifecycle.current == .running, services.lifecycle.speaks(MCPFace.id) else { throw RPCError.serverNotInitialized }
            return try D.handle(decoded.params.get(), call).json
        }
        if removed.contains(name) {
            let e = RPCError.methodNotFound(name)
            MCPRequestLog.record(call, envelope, method: name, outcome: "\(e.code) \(e.dataCode)")
            throw e
        }
        try call.mcp().modern.prepare(services, call, envelope)
        var result: JSONObject = ["resultType": "complete"]
        let answer: D.Result
        do {
            if let id = D.requiredExtension, !envelope.declares(extension: id) { throw RPCError.missingClientCapability(extension: id) }
            answer = try D.handleModern(decoded.params.get(), call, envelope)
        } catch {
            let e = modernError(services.mapError(error), method: name, params: call.request?.params)
            MCPRequestLog.record(call, envelope, method: name, outcome: "\(e.code) \(e.dataCode): \(e.message)")
            throw e
        }
        var meta = JSONObject()
        for (k, v) in answer.json.objectValue?.members ?? [] {
            if k == "_meta" { meta = v.objectValue ?? JSONObject() } else { result[k] = v }
        }
        MCPRequestLog.record(call, envelope, method: name, outcome: MCPRequestLog.outcome(of: answer))
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
    /// (`ListenSubscriptions`); long tool calls as tasks (`MCPTasks`).
    static var capabilities: JSON {
        ["tools": ["listChanged": false], "resources": ["subscribe": true, "listChanged": true], "logging": .object(JSONObject()),
         "extensions": .object([MCPTasks.extensionID: .object(JSONObject())])]
    }

    /// An error in the revision's codes: a resource that cannot be read (missing, outside the
    /// workspace, a bad URI) is `-32602` with its `uri` (the 2025 era keeps its code); the typed
    /// `data.code` stays.
    static func modernError(_ e: RPCError, method: String, params: JSON?) -> RPCError {
        guard method == ReadResource.method || method == ListenSubscriptions.method, e.code == ErrorCode.requestFailed else { return e }
        var data = e.data
        if let uri = params?["uri"] { data["uri"] = uri }
        return RPCError(code: ErrorCode.invalidParams, message: e.message, dataCode: e.dataCode, data: data)
    }
}

/// What the first modern request of a process sets up, once: storage, the session tool calls are
/// journaled into, MCP's conventions on the connection. Later requests, of either era, reuse it.
final class MCPModernState: Sendable {
    private let ready = Mutex(false)
    /// The open `subscriptions/listen` streams.
    let listeners = MCPListeners()
    /// The tasks extension's tasks.
    let tasks = MCPTaskStore()

    func prepare(_ services: Services, _ call: Call, _ envelope: MCPEnvelope) throws {
        try ready.withLock { ready throws in
            if ready { return }
            _ = try MCPMethods.openSession(services, try call.mcp(), clientName: envelope.clientName ?? "MCP client")
            services.lifecycle.choose(MCPFace.id)
            let connection = try call.connection()
            services.attach(connection)
            connection.use(MCPConventions.value)
            ready = true
        }
    }
}
