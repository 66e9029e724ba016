#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import JSON
import JSONRPC
import Logging
import Storage
import Synchronization
import SystemSupport
import Workspace

/// The method table and lifecycle rules of one WorkspaceBridge connection.
///
/// `BridgeServer` is the `Router` of a `Connection`: the connection calls `route` for every
/// message in arrival order on its reader thread. It is thin by design: each method decodes
/// params, calls one core function, and encodes the result; errors are mapped in one place
/// (`ErrorMapping`).
public final class BridgeServer: Router {
    public let configuration: ServerConfiguration
    public let logSink: ClientLogSink
    let logger: Logger
    let lifecycle = Lifecycle()
    private let openStorage = Mutex<StorageService?>(nil)
    let changes: ChangeNotifier
    let agents: AgentService
    /// The connection this server answers on (for notifications that no request triggers).
    private let client = ClientRef()
    /// MCP: the session its tool calls are journaled into, and its resource subscriptions.
    let mcpSession = StringRef()
    let resourceWatch = ResourceSubscriptions()
    let mcpRoots = MCPRootScope()
    /// MCP 2026-07-28: what the first modern request set up (see `MCPModern`).
    let modern = MCPModernState()
    private let mcpRequests: [String: Method]
    /// MCP requests of both eras, dispatched per message by their `_meta` (see `MCPModern`).
    private let mcpEraRequests: [String: Method]
    private let mcpNotifications: [String: Method]

    func attach(_ connection: Connection) { client.set(connection) }
    private let requests: [String: Method]
    private let clientNotifications: [String: Method]

    /// Notifications the server sends.
    public static let serverNotifications = ["$/progress", "$/logTrace", "window/logMessage", "workspace/didChangeFiles",
                                             "session/didChangeState", "queue/ready", "settings/didChange"]

    public init(configuration: ServerConfiguration, logSink: ClientLogSink = ClientLogSink(), logger: Logger) {
        self.configuration = configuration
        self.logSink = logSink
        self.logger = logger
        self.changes = ChangeNotifier(logger: logger)
        let client = self.client
        let lifecycle = self.lifecycle
        let configDir = (try? configuration.resolvedConfigDirectory()) ?? "/tmp/workspace-bridge-\(getuid())"
        self.agents = AgentService(configDirectory: configDir, logger: logger) { method, params in
            // Session and queue notifications are this protocol's, not MCP's.
            if lifecycle.isMCP { return }
            client.get()?.notify(method, params)
        }
        var requests: [Method] = []
        var notifications: [Method] = []
        LifecycleMethods.register(requests: &requests, notifications: &notifications)
        FileMethods.register(&requests)
        StorageMethods.register(&requests)
        SessionMethods.register(&requests)
        HostMethods.register(&requests)
        SettingsMethods.register(&requests)
        if configuration.enableDebugMethods { DebugMethods.register(&requests) }
        self.requests = MethodIndex.byName(requests, table: "request")
        self.clientNotifications = MethodIndex.byName(notifications, table: "notification")
        var mcpRequests: [Method] = []
        var mcpNotifications: [Method] = []
        MCPMethods.register(requests: &mcpRequests, notifications: &mcpNotifications)
        self.mcpRequests = MethodIndex.byName(mcpRequests, table: "MCP request")
        self.mcpNotifications = MethodIndex.byName(mcpNotifications, table: "MCP notification")
        self.mcpEraRequests = MCPModern.methods(legacy: self.mcpRequests)
    }

    /// Request methods offered, sorted (what `initialize` reports in `capabilities.methods`).
    public var methodNames: [String] { requests.keys.sorted() }
    /// Notifications accepted from the client, sorted.
    public var clientNotificationNames: [String] { clientNotifications.keys.sorted() }

    public func route(method: String, isRequest: Bool) -> Routing {
        let phase = lifecycle.current
        if !isRequest, method == "exit", let m = clientNotifications[method] { return .handle(m) }
        if let routing = routeMCPEra(method: method, isRequest: isRequest, phase: phase) { return routing }
        switch phase {
        case .uninitialized:
            guard isRequest else { return .reject(.serverNotInitialized) }
            return method == "initialize" ? requests[method].map(Routing.handle) ?? .ignore : .reject(.serverNotInitialized)
        case .shutDown:
            if isRequest {
                return .reject(.invalidRequest("the server is shutting down: only 'exit' is accepted", dataCode: "ShutdownRequested"))
            }
        case .running, .initializing:
            if method == "initialize", isRequest {
                return .reject(.invalidRequest("'initialize' may only be sent once", dataCode: "AlreadyInitialized"))
            }
            if lifecycle.isMCP {
                if isRequest { return mcpRequests[method].map(Routing.handle) ?? .reject(.methodNotFound(method)) }
                return mcpNotifications[method].map(Routing.handle) ?? .ignore
            }
        }
        if isRequest {
            if let m = requests[method] {
                if method == "shutdown" { lifecycle.set(.shutDown) }
                return .handle(m)
            }
            return .reject(.methodNotFound(method))
        }
        if let m = clientNotifications[method] { return .handle(m) }
        return .ignore
    }

    /// MCP messages that may arrive without a handshake: a request named like an MCP method (its
    /// `_meta` decides the era, see `MCPModern`) before `initialize` or on an MCP connection, and
    /// the cancellation of one before any handshake. Nil: the lifecycle rules below decide.
    private func routeMCPEra(method: String, isRequest: Bool, phase: Lifecycle.Phase) -> Routing? {
        switch phase {
        case .shutDown: return nil
        // An LSP-style `initialize` (running, or still being answered) decides the table.
        case .running where !lifecycle.isMCP, .initializing where !lifecycle.isMCP: return nil
        case .uninitialized where !isRequest:
            return lifecycle.isMCP ? mcpNotifications[method].map(Routing.handle) : nil
        default:
            guard isRequest else { return nil }
            return (mcpEraRequests[method] ?? (requests[method] == nil ? MCPModernMethods.unknown(method) : nil)).map(Routing.handle)
        }
    }

    /// The storage opened by `initialize`.
    func storage() throws(RPCError) -> StorageService {
        guard let s = openStorage.withLock({ $0 }) else { throw .serverNotInitialized }
        return s
    }

    /// The active workspace (local or cloud, per the storage choice).
    func workspace() throws -> Workspace {
        try storage().manager.active()
    }

    /// Opens storage: the local root is `--local-root`, else `initializationOptions.localRoot`,
    /// else the embedded default under the user's data folder; the cloud root likewise from
    /// `--cloud-root` or `initializationOptions.cloudRoot`; a root used for the first time gets
    /// `--template`, else `initializationOptions.template`, else the default layout.
    func openStorage(initializationOptions: Params?) throws -> StorageService {
        let local = try configuration.localRoot ?? initializationOptions?.string("localRoot") ?? configuration.defaultLocalRoot()
        let cloud = try configuration.cloudRoot ?? initializationOptions?.string("cloudRoot")
        let template = try configuration.template
            ?? initializationOptions?.choice("template", WorkspaceTemplate.allCases.map(\.rawValue)).flatMap(WorkspaceTemplate.init)
            ?? .default
        let manager = try StorageManager(localRoot: local, cloudRoot: cloud,
                                         configDirectory: try configuration.resolvedConfigDirectory(), template: template)
        let service = StorageService(manager: manager, logger: logger)
        openStorage.withLock { $0 = service }
        logger.info("storage: local \(manager.localRoot), cloud \(manager.cloudRoot ?? "none"), active \(manager.location.rawValue)")
        let ws = manager.local
        // Leftovers of interrupted saves are invisible (never listed), so sweeping them can wait.
        let log = logger
        OSThread.detach {
            let n = ws.removeLeftoverTempFiles()
            if n > 0 { log.notice("removed \(n) temp files left by interrupted saves") }
        }
        return service
    }

    public func mapError(_ error: any Error) -> RPCError {
        var error = error
        // Session and queue files live under the root's private folder: their errors name the
        // path relative to the root, like every other error (the host's layout stays private).
        if let s = error as? SessionError, let root = try? workspace().rootPath { error = s.relative(to: root) }
        let e = ErrorMapping.rpcError(for: error)
        if e.code == ErrorCode.internalError { logger.error("internal error: \(error)") }
        return e
    }
}

/// The connection a server notifies, once known (set by `initialize`).
final class ClientRef: Sendable {
    private let connection = Mutex<Connection?>(nil)
    func set(_ c: Connection) { connection.withLock { $0 = c } }
    func get() -> Connection? { connection.withLock { $0 } }
}

/// A string set once and read from any thread.
final class StringRef: Sendable {
    private let value = Mutex<String?>(nil)
    func set(_ v: String) { value.withLock { $0 = v } }
    func get() -> String? { value.withLock { $0 } }
}
