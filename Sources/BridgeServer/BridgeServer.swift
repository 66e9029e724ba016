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
    /// The LSP-style face's tables (its `initialize` chooses among the faces, `InitializeChoice`).
    private let requests: [String: Method]
    private let clientNotifications: [String: Method]
    /// The other faces, each with its own table and state, asked in this order.
    private let faces: [any Face]

    /// Notifications the server sends.
    public static var serverNotifications: [String] { MethodTables.serverNotifications }

    /// A server of the LSP-style face alone.
    public convenience init(configuration: ServerConfiguration, logSink: ClientLogSink = ClientLogSink(), logger: Logger) {
        self.init(configuration: configuration, logSink: logSink, logger: logger, faces: [])
    }

    /// A server of the LSP-style face and `faces` (each built for this connection, asked in this
    /// order): the executable composes them (`MCPFace`), this target knows none.
    package init(configuration: ServerConfiguration, logSink: ClientLogSink = ClientLogSink(), logger: Logger,
                 faces faceTypes: [any Face.Type]) {
        let services = Services(configuration: configuration, logSink: logSink, logger: logger)
        self.services = services
        let faces: [any Face] = faceTypes.map { $0.init(services: services) }
        for face in faces { services.moves.admitFirst(face.followers) }
        self.faces = faces
        var requests = MethodTables.index(MethodTables.requests(configuration), services: services, table: "request")
        if let lsp = requests[Initialize.method] {
            requests[Initialize.method] = InitializeChoice.method(lsp: lsp, faces: faces, services: services)
        }
        self.requests = requests
        clientNotifications = MethodTables.index(MethodTables.notifications, services: services, table: "notification")
    }

    /// Request methods offered, sorted (what `initialize` reports in `capabilities.methods`).
    public var methodNames: [String] { requests.keys.sorted() }
    /// Notifications accepted from the client, sorted.
    public var clientNotificationNames: [String] { clientNotifications.keys.sorted() }

    public func route(method: String, isRequest: Bool) -> Routing {
        let phase = lifecycle.current
        if !isRequest, method == "exit", let m = clientNotifications[method] { return .handle(m) }
        for face in faces {
            if let routing = face.routeWithoutHandshake(method: method, isRequest: isRequest, phase: phase,
                                                        coreMethod: requests[method] != nil) { return routing }
        }
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
            if let chosen = lifecycle.chosenFace, let face = faces.first(where: { type(of: $0).id == chosen }) {
                return face.route(method: method, isRequest: isRequest)
            }
        }
        if isRequest {
            if let m = requests[method] { return .handle(m) }
            return .reject(.methodNotFound(method))
        }
        if let m = clientNotifications[method] { return .handle(m) }
        return .ignore
    }

    /// Call once the connection has ended (`Connection.run()` returned `exitCode`): each face
    /// ends what it holds (the MCP session this process created, after a clean end). After a
    /// clean end nothing writes any more, so the session leases go at once, as at `shutdown`
    /// (which a server granted no lifecycle never serves: it ends at end of input).
    public func connectionEnded(exitCode: Int32) {
        for face in faces { face.connectionEnded(exitCode: exitCode) }
        if exitCode == 0 { services.agents.releaseAll() }
    }

    public func mapError(_ error: any Error) -> RPCError { services.mapError(error) }
}
