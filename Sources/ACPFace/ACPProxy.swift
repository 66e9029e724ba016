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
import Synchronization
import SystemSupport
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
/// Threads: all state is touched on one serial queue (`loop`). The editor and the agent are
/// each a `Peer` (reading and writing independent, sending only queues): a reader hands
/// `loop` each message and waits (`sync`), and before each one waits for the outbox's journal
/// writes to catch up and for room in the output the other side's messages go to (`admit`), so
/// a side that reads nothing pauses our reading of the other side only (memory stays bounded),
/// and no pipe filling up ever stalls `loop`, the outbox or the other direction.
public final class ACPProxy: @unchecked Sendable {
    let configuration: ACPConfiguration
    let store: SessionStore
    let logger: Logger
    let editor: Peer
    let outbox: Outbox
    let inside: InsideRoot
    let loop = DispatchQueue(label: "acp.loop")
    private static let onLoopKey = DispatchSpecificKey<Bool>()
    /// The running agent's peer, for the editor reader's back-pressure (read off `loop`).
    let agentPeer = PeerSlot()
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
    /// The editor's requests forwarded to the running agent: the editor's id → ours (for `$/cancel_request`).
    var forwarded: [RequestID: RequestID] = [:]
    /// The running agent's requests passed to the editor: the agent's id → ours (for `$/cancel_request`).
    var relayed: [RequestID: RequestID] = [:]
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
    /// Tells this process's tool-call ids and request ids from every other's.
    let runId = ACPProxy.makeRunId()
    var nextCallId: Int64 = 1

    public init(configuration: ACPConfiguration, store: SessionStore, editorOutput: Int32, logger: Logger) throws {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        let agentPeer = self.agentPeer
        let outbox = Outbox(store: store, logger: logger)
        self.outbox = outbox
        editor = try Peer(output: editorOutput,
                          options: Peer.Options(maxMessageBytes: configuration.maxMessageBytes, idPrefix: "wb-\(runId)-",
                                                cancelMethod: "$/cancel_request", label: "the editor",
                                                admit: { outbox.waitForRoom(); agentPeer.current?.waitForRoom() }),
                          logger: logger)
        inside = InsideRoot(configuration.workspaceRoot)
        loop.setSpecific(key: Self.onLoopKey, value: true)
    }

    /// Serves the editor on `input` until it ends; then lets the agent answer what it was asked
    /// (within `exitGrace`), ends its input (SIGTERM if it has not exited 2 s later), and returns once every journaled record is on disk and
    /// every message is written.
    public func run(input: Int32) {
        editor.read(input, onIncoming: { m in loop.sync { self.fromEditor(m) } }, onEnd: {})
        // What the editor asked before its input ended is still answered, within the grace.
        let deadline = ContinuousClock.now + configuration.exitGrace
        while ContinuousClock.now < deadline,
              loop.sync(execute: { !((agent?.peer.pendingCount ?? 0) == 0 && waitingForAgent.isEmpty && attaching.isEmpty) }) {
            usleep(2_000)
        }
        let last = loop.sync { () -> AgentProcess? in
            defer {
                agent = nil
                agentPeer.current = nil
                generation += 1  // its exit is ours, not news
            }
            return agent
        }
        last?.stop()
        outbox.flush()
        editor.closeOutput(wait: true)
        store.close()
    }

    /// Runs `body` on `loop`: at once when already on it (a completion run by `failPending`), else
    /// waiting for it (a peer's reader thread).
    func onLoop(_ body: () -> Void) {
        if DispatchQueue.getSpecific(key: Self.onLoopKey) == true { body() } else { loop.sync(execute: body) }
    }

    /// A new id for a tool call the proxy journals itself: never the same in another process or run.
    func newCallId() -> String {
        defer { nextCallId += 1 }
        return "fs_\(runId)_\(nextCallId)"
    }

    private static func makeRunId() -> String {
        String(UInt64(getpid()), radix: 36) + "." + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    // MARK: Sending

    /// Sends to the editor after `records` are durable in `session`.
    func toEditorSide(_ message: Peer.Outgoing, session: String? = nil, records: [MessageInput] = []) {
        let editor = self.editor
        outbox.post(Outbox.Item(records: session.map { s in records.map { (s, $0) } } ?? [], send: { editor.send(message) }))
    }

    func answerEditor(_ id: RequestID, _ result: JSON, extras: JSONObject = [:]) {
        toEditorSide(editor.respond(id, result, extras: extras))
    }

    func failEditor(_ id: RequestID, _ error: RPCError) { toEditorSide(editor.fail(id, error)) }

    /// Sends to the running agent after `records` are durable in `session`.
    func toAgentSide(_ message: (Peer) -> Peer.Outgoing?, session: String? = nil, records: [MessageInput] = [],
                     unless: (@Sendable (SessionError) -> Void)? = nil) {
        guard let peer = agent?.peer, let m = message(peer) else { return }
        outbox.post(Outbox.Item(records: session.map { s in records.map { (s, $0) } } ?? [], send: { peer.send(m) },
                                unless: unless))
    }

    /// Sends a request of ours (or one we forward) to the agent; `pending` says what its answer is for.
    func requestAgent(_ method: String, _ params: JSON?, pending: PendingToAgent, session: String? = nil,
                      records: [MessageInput] = [], extra: JSONObject = [:]) {
        guard let peer = agent?.peer else { return }
        let owed = LoopBound(pending, on: loop)
        let (id, message) = peer.request(method, params, extras: extra) { reply in
            self.onLoop { self.agentAnswered(owed.value, reply) }
        }
        // An editor's request whose records cannot be journaled (a prompt in a session another
        // device holds, a full disk) is refused with the store's error, and the agent never sees it.
        var unless: (@Sendable (SessionError) -> Void)?
        if case .editor(let editorId, _, _) = pending {
            forwarded[editorId] = id
            if !records.isEmpty {
                unless = { e in
                    guard peer.abandon(id) else { return }
                    self.loop.async {
                        self.forwarded[editorId] = nil
                        self.failEditor(editorId, ACPErrors.store(e))
                    }
                }
            }
        }
        outbox.post(Outbox.Item(records: session.map { s in records.map { (s, $0) } } ?? [], send: { peer.send(message) },
                                unless: unless))
    }
}

/// A value made on `loop` and used there only (checked on each use), carried through a
/// peer's completion, which runs on the peer's reader thread and hops to `loop`.
struct LoopBound<Value>: @unchecked Sendable {
    private let held: Value
    private let loop: DispatchQueue

    init(_ value: Value, on loop: DispatchQueue) {
        dispatchPrecondition(condition: .onQueue(loop))
        held = value
        self.loop = loop
    }

    var value: Value {
        dispatchPrecondition(condition: .onQueue(loop))
        return held
    }
}

/// The running agent's peer, read by the editor's reader thread.
final class PeerSlot: Sendable {
    private let peer = Mutex<Peer?>(nil)
    var current: Peer? {
        get { peer.withLock { $0 } }
        set { peer.withLock { $0 = newValue } }
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

/// What the agent said it can do at `initialize` (what the proxy adds is not here).
struct AgentCapabilities {
    var loadSession = false
    var resume = false
    var close = false
    var delete = false
}
