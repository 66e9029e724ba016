import BridgeServer
import JSON
import JSONRPC

/// The Model Context Protocol face (`Face`): its tables (the requests of both eras, dispatched
/// per message by their `_meta`, see `MCPModern`; its notifications), its per-connection state
/// (`MCPConnectionState`) and its conventions (`MCPConventions`).
///
/// It claims an `initialize` whose params carry MCP's `protocolVersion`, or every one under
/// `workspace-bridge mcp`; its modern era's requests are served with no handshake at all.
package struct MCPFace: Face {
    package static let id = FaceID("mcp")
    private let services: Services
    let state: MCPConnectionState
    private let requests: [String: Method]
    private let notifications: [String: Method]

    package init(services: Services) {
        self.services = services
        let state = MCPConnectionState(services: services)
        self.state = state
        requests = MCPModern.methods(services, state)
        notifications = MethodIndex.byName(MCPMethods.notifications.map { $0.method(services, face: state) }, table: "MCP notification")
    }

    package var followers: [any FollowsWorkspace] { state.followers }
    package var conventions: Connection.Conventions { MCPConventions.value }

    package func claimsInitialize(_ params: JSON?) -> Bool {
        services.configuration.forceMCP || params?["protocolVersion"]?.stringValue != nil
    }

    package func initialize(_ params: JSON?, _ call: Call) throws -> JSON {
        let connection = try call.connection()
        services.attach(connection)
        return try MCPMethods.initialize(services, state, connection, try ParamReader(params))
    }

    package func initializeFailed(_ connection: Connection) {
        if !services.configuration.forceMCP { connection.use(.lsp) }
    }

    /// After the handshake every MCP request was routed by `routeWithoutHandshake`: what is left
    /// is a request of another face's (not found) or a notification.
    package func route(method: String, isRequest: Bool) -> Routing {
        if isRequest { return .reject(.methodNotFound(method)) }
        return notifications[method].map(Routing.handle) ?? .ignore
    }

    /// A request named like an MCP method (its `_meta` decides the era, see `MCPModern`) before
    /// `initialize` or on an MCP connection, and the cancellation of one before any handshake.
    package func routeWithoutHandshake(method: String, isRequest: Bool, phase: Lifecycle.Phase, coreMethod: Bool) -> Routing? {
        let speaksMCP = services.lifecycle.speaks(Self.id)
        switch phase {
        case .shutDown: return nil
        // Another face's `initialize` (running, or still being answered) decides the table.
        case .running where !speaksMCP, .initializing where !speaksMCP: return nil
        case .uninitialized where !isRequest:
            return speaksMCP ? notifications[method].map(Routing.handle) : nil
        default:
            guard isRequest else { return nil }
            return (requests[method] ?? (coreMethod ? nil : MCPModern.unknown(method, services))).map(Routing.handle)
        }
    }

    /// After a clean end (0), the MCP session this process created is ended (`MCPSessionEnd`).
    package func connectionEnded(exitCode: Int32) {
        guard exitCode == 0 else { return }
        MCPSessionEnd.end(state.session, logger: services.logger)
    }
}
