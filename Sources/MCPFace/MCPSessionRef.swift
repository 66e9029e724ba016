import AgentSessions
import BridgeServer
import JSONRPC
import Logging
import Synchronization
import Workspace

/// The session MCP tool calls are journaled into, and the client it was opened for; it follows
/// the workspace when the storage choice moves it (`FollowsWorkspace`).
///
/// Sessions live in their root's private folder. After a move the same session is kept when the
/// new root has it (a `migrate` copies the sessions along); otherwise a new session is opened
/// there for the same client (a `chooseStorage` switches roots without copying), so tool calls
/// keep being journaled in the active workspace and never fail for a session left behind. The new
/// session takes the old one's approval policy (read from the old root; the policy known when the
/// session was opened when that root cannot be read), so a storage switch never drops a consent
/// rule; the old session, when this process created it, is ended as at a clean exit
/// (`MCPSessionEnd`), one attached with `--session` is left as it is.
final class MCPSessionRef: FollowsWorkspace {
    private struct State {
        var id: String?
        var clientName = "MCP client"
        /// The store the session lives in, and whether this process created it.
        var store: SessionStore?
        var owned = false
        var policy = ApprovalPolicy.none
    }
    private let state = Mutex(State())
    private let agents: AgentService
    private let logger: Logger

    init(agents: AgentService, logger: Logger) {
        self.agents = agents
        self.logger = logger
    }

    /// The session id, once a session was opened.
    func get() -> String? { state.withLock { $0.id } }

    /// The session and the store it lives in, read together: a storage switch replaces both at
    /// once, so no step of a call racing the switch pairs a session id with the other root's store
    /// (each step reads the pair anew: the consent step may still record in the root left while
    /// the call itself journals in the new one).
    func current() throws -> (id: String, store: SessionStore) {
        guard let pair = state.withLock({ s in s.id.flatMap { id in s.store.map { (id, $0) } } }) else {
            throw RPCError.serverNotInitialized
        }
        return pair
    }

    /// The session and its store when this process created the session (not one attached with
    /// `--session`): the one to end at a clean exit.
    func ownedSession() -> (id: String, store: SessionStore)? {
        state.withLock { s in s.owned ? s.id.flatMap { id in s.store.map { (id, $0) } } : nil }
    }

    /// Records the session opened (`owned`: created by this process) in `store`, with `policy`.
    func set(_ id: String, clientName: String, store: SessionStore, owned: Bool, policy: ApprovalPolicy) {
        state.withLock { $0 = State(id: id, clientName: clientName, store: store, owned: owned, policy: policy) }
    }

    func follow(_ workspace: Workspace) throws {
        let old = state.withLock { $0 }
        guard let known = old.id else { return }   // no MCP session opened: nothing to follow
        let (store, _) = try agents.stores(for: workspace)
        if (try? store.get(id: known)) != nil {
            state.withLock { $0.store = store }
            return
        }
        let policy = (try? old.store?.get(id: known))?.approvalPolicy ?? old.policy
        let session = try store.create(title: "MCP: \(old.clientName)", agentType: "mcp")
        _ = try store.transition(id: session.id, to: .running)
        if policy != .none { _ = try store.setApprovalPolicy(id: session.id, policy) }
        state.withLock { $0 = State(id: session.id, clientName: old.clientName, store: store, owned: true, policy: policy) }
        if old.owned, let left = old.store { MCPSessionEnd.end(left, id: known, logger: logger) }
        logger.notice("MCP: the workspace moved to \(workspace.rootPath); tool calls are journaled in session \(session.id) there (\(known) \(old.owned ? "ended" : "left as it is") in the root left)")
    }
}
