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

/// The method tables and lifecycle rules of one WorkspaceBridge connection.
///
/// `BridgeServer` is the `Router` of a `Connection`: the connection calls `route` for every
/// message in arrival order on its reader thread. It only routes: each method is a
/// `MethodDeclaration` (see `MethodTables`) whose handler gets the `Services` it uses; errors are
/// mapped in one place (`Services.mapError`, `ErrorMapping`).
public final class BridgeServer: Router {
    public var configuration: ServerConfiguration { services.configuration }
    public var logSink: ClientLogSink { services.logSink }
    let services: Services
    var lifecycle: Lifecycle { services.lifecycle }
    private let requests: [String: Method]
    private let clientNotifications: [String: Method]
    private let mcpRequests: [String: Method]
    /// MCP requests of both eras, dispatched per message by their `_meta` (see `MCPModern`).
    private let mcpEraRequests: [String: Method]
    private let mcpNotifications: [String: Method]

    /// Notifications the server sends.
    public static var serverNotifications: [String] { MethodTables.serverNotifications }

    public init(configuration: ServerConfiguration, logSink: ClientLogSink = ClientLogSink(), logger: Logger) {
        let services = Services(configuration: configuration, logSink: logSink, logger: logger)
        self.services = services
        requests = MethodTables.index(MethodTables.requests(configuration), services: services, table: "request")
        clientNotifications = MethodTables.index(MethodTables.notifications, services: services, table: "notification")
        mcpRequests = MethodTables.index(MCPMethods.requests.map { $0 }, services: services, table: "MCP request")
        mcpNotifications = MethodTables.index(MCPMethods.notifications, services: services, table: "MCP notification")
        mcpEraRequests = MCPModern.methods(services)
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
            return (mcpEraRequests[method] ?? (requests[method] == nil ? MCPModern.unknown(method, services) : nil)).map(Routing.handle)
        }
    }

    public func mapError(_ error: any Error) -> RPCError { services.mapError(error) }
}
