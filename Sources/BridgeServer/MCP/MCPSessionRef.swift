import AgentSessions
import Logging
import Synchronization
import Workspace

/// The session MCP tool calls are journaled into, and the client it was opened for; it follows
/// the workspace when the storage choice moves it (`FollowsWorkspace`).
///
/// Sessions live in their root's private folder. After a move the same session is kept when the
/// new root has it (a `migrate` copies the sessions along); otherwise a new session is opened
/// there for the same client (a `chooseStorage` switches roots without copying), so tool calls
/// keep being journaled in the active workspace and never fail for a session left behind.
final class MCPSessionRef: FollowsWorkspace {
    private struct State { var id: String?; var clientName = "MCP client" }
    private let state = Mutex(State())
    private let agents: AgentService
    private let logger: Logger

    init(agents: AgentService, logger: Logger) {
        self.agents = agents
        self.logger = logger
    }

    /// The session id, once a session was opened.
    func get() -> String? { state.withLock { $0.id } }

    func set(_ id: String, clientName: String) { state.withLock { $0 = State(id: id, clientName: clientName) } }

    func follow(_ workspace: Workspace) throws {
        let (known, clientName) = state.withLock { ($0.id, $0.clientName) }
        guard let known else { return }   // no MCP session opened: nothing to follow
        let (store, _) = try agents.stores(for: workspace)
        if (try? store.get(id: known)) != nil { return }
        let session = try store.create(title: "MCP: \(clientName)", agentType: "mcp")
        _ = try store.transition(id: session.id, to: .running)
        state.withLock { $0.id = session.id }
        logger.notice("MCP: the workspace moved to \(workspace.rootPath); tool calls are journaled in session \(session.id) there (\(known) stays in the root left)")
    }
}
