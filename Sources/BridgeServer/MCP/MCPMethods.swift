import AgentSessions
import JSON
import JSONRPC
import Synchronization
import Workspace

/// The Model Context Protocol face: the same workspace and the same tool table, for MCP agents.
///
/// An `initialize` whose params carry MCP's `protocolVersion` (or `workspace-bridge mcp`) switches
/// the connection to MCP rules; from then on these methods are served instead of the LSP-style
/// ones. Tool calls are journaled into a session, like any other agent's.
enum MCPMethods {
    static let supportedVersions = ["2025-06-18", "2025-11-25"]

    static func register(requests: inout [Method], notifications: inout [Method]) {
        requests.append(Method("ping", inline: true, schedule: { _ in .unordered }) { _ in .object(JSONObject()) })
        requests.append(Method("tools/list") { ctx in
            _ = try ctx.paramsObject()
            return ["tools": .array(ToolTable.all.map(\.mcpJSON))]
        })
        requests.append(Method("tools/call", schedule: callSchedule) { ctx in try call(ctx) })
        requests.append(Method("resources/list") { ctx in try MCPResources.list(ctx) })
        requests.append(Method("resources/read") { ctx in try MCPResources.read(ctx) })
        requests.append(Method("resources/templates/list") { ctx in try MCPResources.templates(ctx) })
        requests.append(Method("resources/subscribe") { ctx in try MCPResources.subscribe(ctx, on: true) })
        requests.append(Method("resources/unsubscribe") { ctx in try MCPResources.subscribe(ctx, on: false) })
        requests.append(Method("logging/setLevel", schedule: { _ in .unordered }) { ctx in
            let levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
            guard let level = try ctx.paramsObject().choice("level", levels) else {
                throw RPCError.invalidParams(field: "level", expected: "an MCP log level", got: "nothing")
            }
            try LifecycleMethods.server(ctx).logSink.setMCPLevel(level)
            return .object(JSONObject())
        })
        // Off the reading thread (asking for roots reads the active root, which may be a cloud
        // mount), after `initialize` (free work waits for that barrier).
        notifications.append(Method("notifications/initialized") { ctx in
            try askForRoots(ctx)
            return .null
        })
        notifications.append(Method("notifications/roots/list_changed") { ctx in
            try askForRoots(ctx)
            return .null
        })
        notifications.append(Method("notifications/cancelled", inline: true, schedule: { _ in .unordered }) { ctx in
            if let raw = ctx.params?["requestId"], let id = RequestID(raw) { ctx.serving.cancel(id: id) }
            return .null
        })
    }

    /// MCP's `initialize`: version negotiation, the session tool calls are journaled into,
    /// and the server's capabilities.
    static func initialize(_ server: BridgeServer, _ ctx: RequestContext, _ p: Params) throws -> JSON {
        // An initialize in the modern envelope is a modern request, and the modern era has no handshake.
        if try MCPEnvelope.parse(ctx.params) != nil { throw RPCError.methodNotFound("initialize") }
        let asked = try p.string("protocolVersion")
        let version = asked.flatMap { supportedVersions.contains($0) ? $0 : nil } ?? supportedVersions.last!
        server.lifecycle.setMCP()
        server.mcpRoots.clientDeclaresRoots(try p.object("capabilities")?.object("roots") != nil)
        let clientName = try p.object("clientInfo")?.string("name") ?? "MCP client"
        let (root, sessionID) = try openSession(server, clientName: clientName)
        ctx.serving.useMCPConventions()
        return [
            "protocolVersion": .string(version),
            "capabilities": capabilities,
            "serverInfo": serverInfo,
            "instructions": .string(instructions(root: root, sessionID: sessionID)),
        ]
    }

    /// The server's MCP capabilities (the same in both eras).
    static var capabilities: JSON {
        ["tools": ["listChanged": false], "resources": ["subscribe": true, "listChanged": false], "logging": .object(JSONObject())]
    }

    static let serverInfo: JSON = ["name": .string(ServerInfo.name), "title": "WorkspaceBridge", "version": .string(ServerInfo.version)]

    static func instructions(root: String, sessionID: String) -> String {
        """
        Files of the user's workspace at \(root) (paths are relative to it; nothing outside it can be reached). \
        Tool calls are journaled in session \(sessionID).
        """
    }

    /// Opens storage (unless open) and the session MCP tool calls are journaled into (`--session`,
    /// else one created for this process; the same one for both eras once it exists).
    /// Returns the workspace root and the session id.
    static func openSession(_ server: BridgeServer, clientName: String) throws -> (root: String, sessionID: String) {
        let storage = try (try? server.storage()) ?? server.openStorage(initializationOptions: nil)
        let ws = try storage.manager.active()
        try server.mcpRoots.configure(server.configuration.mcpRoots, workspaceRoot: ws.rootPath)
        if let id = server.mcpSession.get() { return (ws.rootPath, id) }
        let (store, _) = try server.agents.stores(for: ws)
        let session: Session
        if let id = server.configuration.mcpSession {
            session = try store.get(id: id)
        } else {
            session = try store.create(title: "MCP: \(clientName)", agentType: "mcp")
            _ = try store.transition(id: session.id, to: .running)
        }
        server.mcpSession.set(session.id)
        return (ws.rootPath, session.id)
    }

    /// Sends `roots/list` when the client declared roots; its answer narrows what tools and
    /// resources reach (see `MCPRootScope`).
    static func askForRoots(_ ctx: RequestContext) throws {
        let server = try LifecycleMethods.server(ctx)
        guard server.mcpRoots.clientSupportsRoots else { return }
        let root = try server.workspace().rootPath
        let logger = ctx.logger
        ctx.serving.request("roots/list", nil) { answer in
            switch answer {
            case .success(let result):
                let refused = server.mcpRoots.update(fromRootsList: result, workspaceRoot: root)
                for r in refused {
                    let text = "MCP root \(r.uri) refused: \(r.reason); tools and resources stay inside \(root)"
                    logger.warning("\(text)")
                }
                let scope = server.mcpRoots.current.map { $0.map(\.string).joined(separator: ", ") } ?? "the whole workspace"
                logger.info("MCP roots: working in \(scope)")
            case .failure(let e):
                logger.warning("roots/list failed: \(e.message); the scope stays as it was")
            }
        }
    }

    static let callSchedule: Method.Scheduler = { params in
        let p = try Params(params)
        return .claims(SessionMethods.toolClaims(session: "mcp", name: try p.requiredString("name"), arguments: p["arguments"]))
    }

    /// The tail of MCP tool call ids: a counter from a random start (one `getrandom` per process, not
    /// per call), so ids differ within a process and, as before, almost surely across processes
    /// journaling into the same session.
    private static let callSerial = Atomic<UInt64>(UInt64.random(in: 0 ... .max) % 1_000_000_000)

    private static func nextCallSerial() -> UInt64 {
        callSerial.add(1, ordering: .relaxed).newValue % 1_000_000_000
    }

    /// `tools/call`: validated, journaled into the connection's session, run once.
    static func call(_ ctx: RequestContext) throws -> JSON {
        let server = try LifecycleMethods.server(ctx)
        let p = try ctx.paramsObject()
        let name = try p.requiredString("name")
        guard let tool = ToolTable.byName[name] else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from tools/list", got: "\"\(name)\"")
        }
        guard let sessionID = server.mcpSession.get() else { throw RPCError.serverNotInitialized }
        let (store, _) = try server.agents.stores(for: try server.workspace())
        let toolCallId = "mcp-\(ctx.id.map(String.init(describing:)) ?? "?")-\(nextCallSerial())"
        let arguments = p["arguments"] ?? .object(JSONObject())
        if tool.readOnly {
            // Reads change nothing: run, then journal intent and result together without an fsync
            // (a cancelled or failed read is journaled with its error).
            let result: ToolResult
            do {
                result = try ToolTable.call(name, arguments: arguments, server: server, request: ctx, scope: server.mcpRoots)
            } catch {
                let e = server.mapError(error)
                try? store.recordReadOnlyToolCall(id: sessionID, toolCallId: toolCallId, name: name, arguments: arguments,
                                                  result: ToolResult.failure(e.message, code: e.dataCode).json, isError: true)
                throw error
            }
            try store.recordReadOnlyToolCall(id: sessionID, toolCallId: toolCallId, name: name, arguments: arguments,
                                             result: result.journalJSON, isError: result.isError)
            return result.mcpJSON
        }
        _ = try store.beginToolCall(id: sessionID, toolCallId: toolCallId, name: name, arguments: arguments)
        let result: ToolResult
        do {
            result = try ToolTable.call(name, arguments: arguments, server: server, request: ctx, scope: server.mcpRoots)
        } catch {
            let e = server.mapError(error)
            try? store.finishToolCall(id: sessionID, toolCallId: toolCallId, result: ToolResult.failure(e.message, code: e.dataCode).json,
                                      isError: true)
            throw error
        }
        try store.finishToolCall(id: sessionID, toolCallId: toolCallId, result: result.json, isError: result.isError)
        return result.mcpJSON
    }
}

extension ToolResult {
    /// What the journal keeps of a read-only call: its outcome and metadata (path, size, etag…),
    /// with the text content and any long string (the bytes read) left out. The bytes are in the
    /// workspace, and a read can always be run again; journaling them would double every read.
    var journalJSON: JSON {
        var o: JSONObject = ["isError": .bool(isError)]
        if case .object(let s)? = structuredContent {
            var kept = JSONObject()
            for (k, v) in s.members {
                if case .string(let text) = v, text.utf8.count > 256 {
                    kept[k] = ["omittedBytes": .int(Int64(text.utf8.count))]
                } else {
                    kept[k] = v
                }
            }
            o["structuredContent"] = .object(kept)
        } else if let structuredContent {
            o["structuredContent"] = structuredContent
        }
        return .object(o)
    }

    /// MCP's shape (the same as `session/callTool`'s: a failed call keeps `{error, code}` as
    /// structured content, so an agent can branch on the code; MCP clients validate structured
    /// content against the output schema only for successful calls).
    var mcpJSON: JSON { json }
}

extension Tool {
    /// The tool as MCP's `tools/list` describes it.
    var mcpJSON: JSON {
        ["name": .string(name), "title": .string(title), "description": .string(description), "inputSchema": inputSchema,
         "outputSchema": outputSchema,
         "annotations": ["title": .string(title), "readOnlyHint": .bool(readOnly), "destructiveHint": .bool(destructive),
                         "idempotentHint": .bool(idempotent), "openWorldHint": false]]
    }
}
