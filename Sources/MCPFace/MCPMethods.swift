import AgentSessions
import BridgeServer
import JSON
import JSONRPC
import Synchronization
import Workspace

/// The Model Context Protocol face: the same workspace and the same tool table, for MCP agents.
///
/// An `initialize` whose params carry MCP's `protocolVersion` (or `workspace-bridge mcp`) switches
/// the connection to MCP rules (`MCPConventions`); from then on these methods are served instead
/// of the LSP-style ones. Tool calls are journaled into a session, like any other agent's.
enum MCPMethods {
    /// The newest handshake version, answered when the client asks for one not supported.
    static let latestVersion = "2025-11-25"
    static let supportedVersions = ["2025-06-18", latestVersion]

    /// The MCP face's requests (both eras: `MCPModern` dispatches each message by its `_meta`).
    static let requests: [any MCPRequestDeclaration.Type] = [
        Ping.self, ListMCPTools.self, CallMCPTool.self, ListResources.self, ReadResource.self, ResourceTemplates.self,
        SubscribeResource.self, UnsubscribeResource.self, SetLogLevel.self,
    ]
    static let notifications: [any MethodDeclaration.Type] = [MCPInitialized.self, RootsListChanged.self, MCPCancelled.self]

    /// MCP's `initialize`: version negotiation, the session tool calls are journaled into,
    /// and the server's capabilities.
    static func initialize(_ services: Services, _ state: MCPConnectionState, _ connection: Connection, _ p: ParamReader) throws -> JSON {
        // An initialize in the modern envelope is a modern request, and the modern era has no handshake.
        if try MCPEnvelope.parse(p.source) != nil { throw RPCError.methodNotFound("initialize") }
        let asked = try p.string("protocolVersion")
        let version = asked.flatMap { supportedVersions.contains($0) ? $0 : nil } ?? latestVersion
        services.lifecycle.choose(MCPFace.id)
        state.roots.clientDeclaresRoots(try p.object("capabilities")?.object("roots") != nil)
        state.approvals.clientDeclaresElicitation(p.value("capabilities")?.objectValue)
        let clientName = try p.object("clientInfo")?.string("name") ?? "MCP client"
        let (root, sessionID) = try openSession(services, state, clientName: clientName)
        connection.use(MCPConventions.value)
        return [
            "protocolVersion": .string(version),
            "capabilities": capabilities,
            "serverInfo": serverInfo,
            "instructions": .string(instructions(root: root, sessionID: sessionID, folders: state.roots.configuredFolders)),
        ]
    }

    /// The server's MCP capabilities (the same in both eras).
    static var capabilities: JSON {
        ["tools": ["listChanged": false], "resources": ["subscribe": true, "listChanged": false], "logging": .object(JSONObject())]
    }

    static let serverInfo: JSON = ["name": .string(ServerInfo.name), "title": "WorkspaceBridge", "version": .string(ServerInfo.version)]

    /// `folders`: the configured bound (`mcp --root`), named so the model knows where it may work.
    static func instructions(root: String, sessionID: String, folders: [WorkspacePath]?) -> String {
        let only = folders.map { " Tools and resources reach only these folders of it: \($0.map(\.string).joined(separator: ", "))." } ?? ""
        return """
        Files of the user's workspace at \(root) (paths are relative to it; nothing outside it can be reached).\(only) \
        Tool calls are journaled in session \(sessionID).
        """
    }

    /// Opens storage (unless open) and the session MCP tool calls are journaled into (`--session`,
    /// else one created for this process; the same one for both eras once it exists).
    /// Returns the workspace root and the session id.
    static func openSession(_ services: Services, _ state: MCPConnectionState, clientName: String) throws -> (root: String, sessionID: String) {
        let storage = try (try? services.storage()) ?? services.openStorage(initializationOptions: nil)
        let ws = try storage.manager.active()
        try state.roots.configure(services.configuration.mcpRoots, workspaceRoot: ws.rootPath)
        if let id = state.session.get() { return (ws.rootPath, id) }
        let (store, _) = try services.agents.stores(for: ws)
        let session: Session
        let policy: ApprovalPolicy
        if let id = services.configuration.mcpSession {
            session = try store.get(id: id)
            policy = session.approvalPolicy
        } else {
            // `MCPSessionEnd.recordsAtOpen` counts what this journals: keep the two in step.
            session = try store.create(title: "MCP: \(clientName)", agentType: "mcp")
            _ = try store.transition(id: session.id, to: .running)
            policy = services.configuration.mcpApprovalPolicy ?? .none
            if policy != .none { _ = try store.setApprovalPolicy(id: session.id, policy) }
        }
        state.session.set(session.id, clientName: clientName, store: store, owned: services.configuration.mcpSession == nil,
                                policy: policy)
        return (ws.rootPath, session.id)
    }

    /// Sends `roots/list` when the client declared roots; its answer narrows what tools and
    /// resources reach (see `MCPRootScope`).
    static func askForRoots(_ call: Call) throws {
        let services = call.services
        let roots = try call.mcp().roots
        guard roots.clientSupportsRoots else { return }
        let root = try services.workspace().rootPath
        let logger = call.logger
        try call.connection().request("roots/list", nil) { answer in
            switch answer {
            case .success(let result):
                let refused = roots.update(fromRootsList: result, workspaceRoot: root)
                for r in refused {
                    let text = "MCP root \(r.uri) refused: \(r.reason); tools and resources stay inside \(root)"
                    logger.warning("\(text)")
                }
                let scope = roots.current.map { $0.map(\.string).joined(separator: ", ") } ?? "the whole workspace"
                logger.info("MCP roots: working in \(scope)")
            case .failure(let e):
                logger.warning("roots/list failed: \(e.message); the scope stays as it was")
            }
        }
    }
}

enum ListMCPTools: MethodDeclaration {
    static let method = "tools/list"
    static let reaches: Set<Capability> = []
    static func schedule(_ p: NoParams) -> Schedule { .free }
    static func handle(_ p: NoParams, _ call: Call) throws -> MCPToolList { MCPToolList(tools: .array(ToolTable.all.map(\.mcpJSON))) }
}

enum SetLogLevel: MethodDeclaration {
    static let method = "logging/setLevel"
    static let reaches: Set<Capability> = []
    struct Params: MethodParams {
        var level: String
        init(_ p: ParamReader) throws {
            level = try p.requiredChoice("level", ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"],
                                         expected: "an MCP log level")
        }
    }
    static func schedule(_ p: Params) -> Schedule { .unordered }
    static func handle(_ p: Params, _ call: Call) throws -> EmptyResult {
        call.services.logSink.setMCPLevel(p.level)
        return EmptyResult()
    }
}

/// Asks the client for its roots. Off the reading thread (asking for roots reads the active
/// root, which may be a cloud mount), after `initialize` (free work waits for that barrier).
protocol AsksForRoots: MethodDeclaration where Params == NoParams {}

extension AsksForRoots {
    /// Sends `roots/list` and returns: the client's answer, later, updates the scope under its
    /// own lock (`MCPRootScope`); the handler itself writes nothing.
    static func schedule(_ p: NoParams) -> Schedule { .free }
    static func handle(_ p: NoParams, _ call: Call) throws -> NullResult {
        try MCPMethods.askForRoots(call)
        return NullResult()
    }
}

enum MCPInitialized: AsksForRoots {
    static let method = "notifications/initialized"
    static let reaches: Set<Capability> = []
}

enum RootsListChanged: AsksForRoots {
    static let method = "notifications/roots/list_changed"
    static let reaches: Set<Capability> = [.workspace]
}

enum MCPCancelled: MethodDeclaration {
    static let method = "notifications/cancelled"
    static let reaches: Set<Capability> = []
    static let inline = true
    struct Params: MethodParams {
        var id: RequestID?
        init(_ p: ParamReader) throws { id = p.value("requestId").flatMap(RequestID.init) }
    }
    static func schedule(_ p: Params) -> Schedule { .unordered }
    static func handle(_ p: Params, _ call: Call) throws -> NullResult {
        if let id = p.id { try call.connection().cancel(id: id) }
        return NullResult()
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
         "outputSchema": outputSchema, "annotations": annotations]
    }
}
