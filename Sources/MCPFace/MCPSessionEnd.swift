import AgentSessions
import BridgeServer
import Logging

/// The end of the session an MCP connection journaled its tool calls into, when the process
/// exits cleanly (docs/decisions.md, "Tasks, traces and MCP sessions at exit").
///
/// Guarantees: only the session this process created is touched (one attached with `--session`
/// is left exactly as it was); one in which nothing was journaled since it was opened (no tool
/// call, not even a read) is deleted, so probing or listing clients leave nothing behind; any
/// other is moved to `completed` (from `running` or `backgrounded`; a session a front end moved
/// elsewhere is left to it), so retention can prune it, unless a tool call in it is unfinished
/// (a task cut off by the exit): that one is left as a crash leaves it, its call `interrupted`
/// for whoever resumes it. A process that is killed or crashes changes nothing.
enum MCPSessionEnd {
    /// What opening a session of its own journals: its creation and the move to `running`.
    static let recordsAtOpen = 2

    static func end(_ session: MCPSessionRef, logger: Logger) {
        guard let (id, store) = session.ownedSession() else { return }
        end(store, id: id, logger: logger)
    }

    /// Ends session `id` of `store` by the rules above (the caller knows this process created it).
    static func end(_ store: SessionStore, id: String, logger: Logger) {
        do {
            defer { store.release(id: id) }
            if try store.deleteUnchanged(id: id, records: recordsAtOpen) {
                logger.debug("mcp: session \(id) deleted at its end: nothing was journaled in it")
                return
            }
            let session = try store.get(id: id)
            guard session.pendingToolCalls.isEmpty else {
                logger.notice("mcp: session \(id) left \(session.state.rawValue) at its end: \(session.pendingToolCalls.count) tool call(s) unfinished")
                return
            }
            guard session.state == .running || session.state == .backgrounded else { return }
            _ = try store.transition(id: id, to: .completed)
            logger.debug("mcp: session \(id) completed at its end")
        } catch {
            logger.warning("mcp: session \(id) could not be ended: \(error)")
        }
    }
}
