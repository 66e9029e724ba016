import BridgeServer
import JSONRPC

/// What the MCP face keeps per connection, in the face and not in `Services`: the session its
/// tool calls are journaled into, its resource subscriptions, the client's roots, the approval
/// step of `tools/call` (its signing key, the 2025 client's elicitation) and what the modern era
/// set up (`MCPModernState`: its listens and its tasks). Every member is safe from any thread.
final class MCPConnectionState: Sendable {
    let session: MCPSessionRef
    let resourceWatch = ResourceSubscriptions()
    let roots = MCPRootScope()
    let approvals = MCPApprovals()
    let modern = MCPModernState()

    init(services: Services) {
        session = MCPSessionRef(agents: services.agents, logger: services.logger)
    }

    /// What follows the active root, in this order: the session first (the move's notifications
    /// may prompt tool calls at once), then the subscriptions and the listens.
    var followers: [any FollowsWorkspace] { [session, resourceWatch, modern.listeners] }
}

extension Call {
    /// The MCP face's state of the connection this call came on.
    func mcp() throws(RPCError) -> MCPConnectionState { try faceState(MCPConnectionState.self) }
}
