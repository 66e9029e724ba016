#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC

/// `initialize`: on the reading thread (`prepare`) it decides which protocol the connection
/// speaks, so the messages that follow are routed and scheduled by its rules; then, on the pool
/// as a barrier, it opens storage and answers. An `initialize` another face claims (MCP's, by its
/// `protocolVersion`) never reaches it: `InitializeChoice` gives it to that face.
enum Initialize: MethodDeclaration {
    static let method = "initialize"
    /// The handshake: it opens the roots the server was started with (or the client names) so
    /// that the calls after it, each with its own capabilities, can run; it is served once.
    static let reaches: Set<Capability> = []
    /// Sent by LSP clients and accepted; the served workspace is chosen by the server's options
    /// and `initializationOptions`, not by these.
    static let unreadParams = ["rootUri", "rootPath", "workspaceFolders", "locale"]

    struct Params: MethodParams {
        var processId: Int32?
        var trace = ClientLogSink.Trace.off
        var clientName: String?
        var clientVersion: String?
        var watchChanges = false
        /// LSP 3.18 `workspace.textDocumentContent`: the client can be asked to refresh `wsb:` documents.
        var contentRefresh = false
        var initializationOptions: ParamReader?

        init(_ p: ParamReader) throws {
            if let v = p.value("processId") {
                guard let pid = v.intValue, pid > 0, pid <= Int64(Int32.max) else {
                    throw RPCError.invalidParams(field: "processId", expected: "a positive integer or null", got: v.typeName)
                }
                processId = Int32(pid)
            }
            trace = try p.choice("trace", ["off", "messages", "verbose"]).flatMap(ClientLogSink.Trace.init) ?? .off
            if let info = try p.object("clientInfo") {
                clientName = try info.string("name") ?? "unknown"
                clientVersion = try info.string("version") ?? ""
            }
            let workspace = try p.object("capabilities")?.object("workspace")
            watchChanges = try workspace?.bool("didChangeFiles") == true
            contentRefresh = try workspace?.object("textDocumentContent") != nil
            // LSP lets initializationOptions be any value: only an object can carry ours.
            if case .object? = p.value("initializationOptions") { initializationOptions = try p.object("initializationOptions") }
        }
    }

    static func schedule(_ p: Params) -> Schedule { .barrier }
    static let prepares = true

    static func prepare(_ p: Params, _ call: Call) throws {
        call.services.lifecycle.beginInitializing(face: .lsp)
    }

    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let services = call.services
        let connection = try call.connection()
        do {
            let result = try initializeLSP(p, services, connection)
            services.lifecycle.endInitializing(succeeded: true)
            return result
        } catch {
            services.lifecycle.endInitializing(succeeded: false)
            // A face's request before it (MCP's modern era) may have set its conventions: a client
            // retrying this handshake gets the LSP-style ones, as it always did.
            connection.use(.lsp)
            throw error
        }
    }

    private static func initializeLSP(_ p: Params, _ services: Services, _ connection: Connection) throws -> Result {
        if let name = p.clientName { services.logger.info("client: \(name) \(p.clientVersion ?? "")") }
        let storage = try services.openStorage(initializationOptions: p.initializationOptions)
        if p.watchChanges { try services.changes.watch(try storage.manager.active(), glob: nil, connection: connection) }
        services.contentRefresh.clientRefreshes(p.contentRefresh)
        services.logSink.setTrace(p.trace)
        connection.setTrace(Connection.Trace(p.trace))
        services.attach(connection)
        if let parent = p.processId {
            ParentProcessWatcher.watch(pid: parent, everyMilliseconds: services.configuration.parentPollMilliseconds,
                                       logger: services.logger) {
                connection.output.flushNow()
                exit(1)
            }
        }
        let configuration = services.configuration
        let capabilities: JSONObject = [
            "methods": .array(MethodTables.requestNames(configuration).map(JSON.string)),
            "notifications": [
                "client": .array(MethodTables.notificationNames.map(JSON.string)),
                "server": .array(MethodTables.serverNotifications.map(JSON.string)),
            ],
            "framings": ["lsp", "ndjson"],
            "batches": true,
            "maxBatchMembers": .int(Int64(Connection.maxBatchMembers)),
            "maxBatchBytes": .int(Int64(Connection.maxBatchBytes)),
            "cancellation": true,
            "workDoneProgress": true,
            "maxMessageBytes": .int(Int64(configuration.transport.maxMessageBytes)),
            "workspace": ["root": .string((try? storage.manager.active().rootPath) ?? storage.manager.localRoot),
                          "didChangeFiles": true, "textDocumentContent": ["schemes": [.string(ContentDocument.scheme)]]],
            "executeCommandProvider": ["commands": .array(ExecuteCommand.commands.map(JSON.string))],
        ]
        return Result(capabilities: capabilities)
    }

    /// The server, the protocol's version and what it offers.
    struct Result: ObjectResult {
        var capabilities: JSONObject
        static let fields: [ResultField<Self>] = [.field("serverInfo", { _ in ServerInfoResult() }),
                                                   .field("protocolVersion", { _ in ServerInfo.protocolVersion }),
                                                   .field("capabilities", \.capabilities)]
    }

    struct ServerInfoResult: ObjectResult {
        static let fields: [ResultField<Self>] = [.field("name", { _ in ServerInfo.name }), .field("version", { _ in ServerInfo.version })]
    }
}
