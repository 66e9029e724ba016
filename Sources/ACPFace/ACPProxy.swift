#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import Dispatch
import JSON
import JSONRPC
import Logging
import Workspace

/// The ACP face: to the editor an ACP v1 agent, to the downstream agent an ACP client.
///
/// Guarantees:
/// - Transparent: whatever the face does not own goes through unchanged both ways (methods,
///   `_`-prefixed extensions, `_meta`, unknown fields); only `id`, `sessionId` (the editor sees
///   our session ids, the agent its own) and `$/cancel_request`'s `requestId` are rewritten.
/// - Ids: the editor's and the agent's request ids are separate spaces; each side only ever
///   sees ids it chose or ids we chose for it, so a collision cannot misroute an answer.
/// - Durable: every prompt, `session/update`, permission request and outcome, and stop reason
///   is journaled in the session before it is passed on (`Outbox`).
/// - The agent may die: pending requests are answered with `AgentUnavailable`, the proxy keeps
///   serving, and the next request for a session starts the agent again and reattaches it.
///
/// Threads: all state is touched on one serial queue (`loop`); the two readers hand it each
/// message and wait (`sync`), so a side that is not read from (the editor not reading our
/// output, the outbox full) stops our reading of the other side: memory stays bounded.
public final class ACPProxy: @unchecked Sendable {
    let configuration: ACPConfiguration
    let store: SessionStore
    let logger: Logger
    let editor: OutputChannel
    let outbox: Outbox
    let inside: InsideRoot
    let loop = DispatchQueue(label: "acp.loop")
    /// The most requests that may wait for an answer in each direction; past it, `ServerBusy`.
    static let pendingLimit = 10_000

    // Everything below is touched on `loop` only.
    var agent: AgentProcess?
    var agentReady = false
    var generation = 0
    var waitingForAgent: [(Result<Void, RPCError>) -> Void] = []
    /// The editor's `initialize` params (sent again to each new agent run) and what the agent can do.
    var editorInitialize: JSON?
    /// Our answer to `initialize`: the agent's, with what the face adds.
    var initializeResult: JSON = [:]
    var agentCapabilities = AgentCapabilities()
    /// The agent's name for the sessions it makes: its `agentInfo.name`, else its command's file name.
    var agentName = ""
    var nextAgentId: Int64 = 1
    var toAgent: [Int64: PendingToAgent] = [:]
    var nextEditorId: Int64 = 1
    var toEditor: [Int64: PendingToEditor] = [:]
    /// Our session id ↔ the agent's, for the sessions the running agent has.
    var attached: [String: String] = [:]
    var ours: [String: String] = [:]
    var attaching: [String: [(Result<Void, RPCError>) -> Void]] = [:]
    /// Agent sessions whose own replay (`session/load` to the agent) the editor must not see again.
    var muted: Set<String> = []
    /// Sessions started afresh on an agent that could not load them: their history goes before the next prompt.
    var handoverDue: Set<String> = []
    /// The `mcpServers` (and `additionalDirectories`) the editor last gave each session.
    var sessionSetup: [String: JSON] = [:]
    /// The agent's id of each session in this process's latest agent run that had it.
    var agentSessionIds: [String: String] = [:]
    /// Whether each session's approval policy weighs permission requests (`isGated`).
    var gated: [String: Bool] = [:]
    /// Per session: the agent's last cumulative USD cost counted (nil: look it up in the
    /// journal), and what it rose by since the last turn was recorded (`ACPProxy+Usage`).
    var costCounted: [String: Double] = [:]
    var costDue: [String: Double] = [:]
    /// The active root's files, opened on the agent's first `fs/*` request the proxy serves.
    var files: Workspace?

    public init(configuration: ACPConfiguration, store: SessionStore, editorOutput: Int32, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        editor = OutputChannel(fd: editorOutput, framing: .ndjson)
        outbox = Outbox(store: store, logger: logger, editor: editor)
        inside = InsideRoot(configuration.workspaceRoot)
    }

    /// Serves the editor on `input` until it ends; then lets the agent answer what it was asked
    /// (within `exitGrace`), ends its input (SIGTERM if it has not exited 2 s later), and returns once every journaled record is on disk and
    /// every message is written.
    public func run(input: Int32) {
        MessageStream.read(fd: input, maxMessageBytes: configuration.maxMessageBytes,
                           onMessage: { m in loop.sync { self.fromEditor(m) } },
                           onFault: { why in
                               let e = RPCError.parseError(why)
                               loop.async { self.outbox.post { self.editor.send(OutgoingMessage.error(id: nil, e)) } }
                           },
                           onEnd: {})
        // What the editor asked before its input ended is still answered, within the grace.
        let deadline = ContinuousClock.now + configuration.exitGrace
        while ContinuousClock.now < deadline, loop.sync(execute: { !(toAgent.isEmpty && waitingForAgent.isEmpty && attaching.isEmpty) }) {
            usleep(2_000)
        }
        let last = loop.sync { () -> AgentProcess? in
            defer {
                agent = nil
                generation += 1  // its exit is ours, not news
            }
            return agent
        }
        last?.stop()
        outbox.flush()
        editor.close()
        store.close()
    }

    // MARK: Sending

    /// Sends to the editor after `records` are durable in `session`.
    func toEditorSide(_ message: JSON, session: String? = nil, records: [MessageInput] = []) {
        let editor = self.editor
        outbox.post(Outbox.Item(records: session.map { s in records.map { (s, $0) } } ?? [], send: { editor.send(message) }))
    }

    func answerEditor(_ id: RequestID, _ result: JSON) { toEditorSide(OutgoingMessage.response(id: id, result: result)) }
    func failEditor(_ id: RequestID, _ error: RPCError) { toEditorSide(OutgoingMessage.error(id: id, error)) }

    /// Sends to the running agent after `records` are durable in `session`.
    func toAgentSide(_ message: JSON, session: String? = nil, records: [MessageInput] = [],
                     unless: (@Sendable (SessionError) -> Void)? = nil) {
        guard let agent else { return }
        outbox.post(Outbox.Item(records: session.map { s in records.map { (s, $0) } } ?? [], send: { agent.send(message) },
                                unless: unless))
    }

    /// Sends a request of ours (or one we forward) to the agent; `pending` says what its answer is for.
    func requestAgent(_ method: String, _ params: JSON?, pending: PendingToAgent, session: String? = nil,
                      records: [MessageInput] = [], extra: JSONObject = [:]) {
        let id = nextAgentId
        nextAgentId += 1
        toAgent[id] = pending
        var o: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { o["params"] = params }
        for (k, v) in extra.members where o[k] == nil { o[k] = v }
        // An editor's request whose records cannot be journaled (a prompt in a session another
        // device holds, a full disk) is refused with the store's error, and the agent never sees it.
        var unless: (@Sendable (SessionError) -> Void)?
        if case .editor(let editorId, _, _) = pending, !records.isEmpty {
            unless = { e in
                self.loop.async {
                    guard self.toAgent.removeValue(forKey: id) != nil else { return }
                    self.failEditor(editorId, ACPErrors.store(e))
                }
            }
        }
        toAgentSide(.object(o), session: session, records: records, unless: unless)
    }
}

/// What the proxy owes for a request it sent to the agent.
enum PendingToAgent {
    /// The editor's request `id`: the answer goes back to it (after `method`'s own handling).
    case editor(id: RequestID, method: String, session: String?)
    /// A request of the proxy's own: the agent's `result` or its `error` object.
    case proxy((Result<JSON, AgentError>) -> Void)
}

/// The agent's error answer, as it sent it (or ours, when it died first).
struct AgentError: Error {
    var json: JSON
    init(_ json: JSON) { self.json = json }
    init(_ e: RPCError) { json = e.json }
}

/// What the proxy owes for a request the agent sent to the editor.
struct PendingToEditor {
    var agentId: JSON
    var generation: Int
    var method: String
    var session: String?
    /// The request's params (kept for a permission request: its options decide the approval).
    var params: JSON?
    /// For a request of the proxy's own (not the agent's): what to do with the editor's answer.
    var then: ((_ result: JSON?, _ error: JSON?) -> Void)? = nil
}

/// What the agent said it can do at `initialize` (what the proxy adds is not here).
struct AgentCapabilities {
    var loadSession = false
    var resume = false
    var close = false
    var delete = false
}
