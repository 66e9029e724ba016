import JSON
import Logging
import Synchronization

/// One side of a symmetric JSON-RPC 2.0 connection over NDJSON: it answers and it calls.
///
/// Guarantees, once for everything built on it:
/// - Reading and writing are independent: a reader thread reads `input`, a writer thread
///   (`PeerWriter`) writes `output`; sending only queues, so no pipe filling up stalls the
///   thread that sends, and a side that writes while it reads nothing never deadlocks us.
///   Memory stays bounded by back-pressure on the reader only: before each message it runs
///   `Options.admit` (the owner's, e.g. waiting for room in the output the message goes to),
///   which pauses reading this input, never the other direction.
/// - Our requests get ids `"<idPrefix><n>"`, unique for the peer's life (the prefix tells
///   runs apart); each completion runs exactly once: with the answer, with `MessageTooLarge`
///   when the answer was dropped for its size (logged), or with the owner's error (`failPending`).
/// - Incoming: a request whose id is still in flight (not yet answered by the owner) is
///   refused `DuplicateRequestId` and not delivered; a line over `maxMessageBytes` is answered
///   `MessageTooLarge` (typed, with `data.limit`), text that is not JSON `ParseError`, and an
///   invalid message `InvalidRequest`: each with `id: null` unless its id could be read and it
///   is not one in flight. `cancelMethod` with the `requestId` of a request in flight is
///   delivered as `.cancelled`; others are dropped.
/// - Every message the owner sends is built here (`request`, `notify`, `respond`, `fail`,
///   `cancel`); members beyond JSON-RPC's (`extras`) travel both ways unchanged.
/// - Callbacks (`onIncoming`, completions of answers) run on the reader thread, in arrival order.
public final class Peer: Sendable {
    public struct Options: Sendable {
        public var maxMessageBytes: Int
        /// What our request ids start with: distinct per run where ids must never repeat.
        public var idPrefix: String
        /// The notification that cancels a request (`$/cancel_request` in ACP, `$/cancelRequest` in LSP).
        public var cancelMethod: String
        /// The output queue's bound in bytes (see `PeerWriter.waitForRoom`): what may be sent ahead of
        /// what the other side has read, beyond what its pipe holds (by default a pipe's worth, 64 KiB:
        /// what is queued is journaled yet unseen, and a proxy killed then replays it next time).
        public var queueLimitBytes: Int
        /// Names the other side in log lines.
        public var label: String
        /// Runs on the reader thread before each message is handled (back-pressure).
        public var admit: @Sendable () -> Void

        public init(maxMessageBytes: Int, idPrefix: String, cancelMethod: String, label: String,
                    queueLimitBytes: Int = 64 << 10, admit: @escaping @Sendable () -> Void = {}) {
            self.maxMessageBytes = maxMessageBytes
            self.idPrefix = idPrefix
            self.cancelMethod = cancelMethod
            self.label = label
            self.queueLimitBytes = queueLimitBytes
            self.admit = admit
        }
    }

    /// What the other side sent us.
    public enum Incoming: Sendable {
        /// Answer it with `respond` or `fail` (until then its id is in flight).
        case request(id: RequestID, method: String, params: JSON?, extras: JSONObject)
        case notification(method: String, params: JSON?, extras: JSONObject)
        /// The other side cancelled its request `id`, still in flight (the notification's own params).
        case cancelled(id: RequestID, params: JSON?)
    }

    /// The other side's answer to one of our requests: `result` or `error` (as sent), and its extras.
    public struct Reply: Sendable {
        public var result: JSON?
        public var error: JSON?
        public var extras: JSONObject

        public init(result: JSON?, error: JSON?, extras: JSONObject = [:]) {
            self.result = result
            self.error = error
            self.extras = extras
        }

        init(_ e: RPCError) { self.init(result: nil, error: e.json) }
    }

    /// Runs on the reader thread (or the thread calling `failPending`): the owner hops to its own queue.
    public typealias Completion = @Sendable (Reply) -> Void

    struct Pending: Sendable {
        var method: String
        var seq: Int64
        var then: Completion
    }

    struct State {
        var next: Int64 = 1
        var pending: [RequestID: Pending] = [:]
        var inFlight: Set<RequestID> = []
    }

    let options: Options
    let logger: Logger
    let writer: PeerWriter
    let state = Mutex(State())

    /// Starts the writer on `output`; reading starts with `start(input:)`. `onOutputDone` runs
    /// once `closeOutput` has written everything (e.g. to close the descriptor).
    public init(output: Int32, options: Options, logger: Logger, onOutputDone: @escaping @Sendable () -> Void = {}) throws {
        self.options = options
        self.logger = logger
        writer = try PeerWriter(fd: output, limit: options.queueLimitBytes, onDone: onOutputDone)
    }

    // MARK: Sending

    /// A request of ours; `then` gets its answer. Returns its id and the message to `send`.
    public func request(_ method: String, _ params: JSON?, extras: JSONObject = [:], then: @escaping Completion) -> (RequestID, Outgoing) {
        let id = state.withLock { s -> RequestID in
            let id = RequestID.string(options.idPrefix + String(s.next))
            s.pending[id] = Pending(method: method, seq: s.next, then: then)
            s.next += 1
            return id
        }
        var o = Self.envelope(extras)
        o["id"] = id.json
        o["method"] = .string(method)
        if let params { o["params"] = params }
        return (id, Outgoing(json: .object(o)))
    }

    public func notification(_ method: String, _ params: JSON?, extras: JSONObject = [:]) -> Outgoing {
        var o = Self.envelope(extras)
        o["method"] = .string(method)
        if let params { o["params"] = params }
        return Outgoing(json: .object(o))
    }

    /// The answer to the other side's request `id` (which is then no longer in flight).
    public func respond(_ id: RequestID, _ result: JSON, extras: JSONObject = [:]) -> Outgoing {
        answered(id)
        var o = Self.envelope(extras)
        o["id"] = id.json
        o["result"] = result
        return Outgoing(json: .object(o))
    }

    /// An error answer to request `id`: ours, or one the other side of a proxy sent as it is (`error`).
    public func fail(_ id: RequestID, _ error: RPCError, extras: JSONObject = [:]) -> Outgoing {
        fail(id, error: error.json, extras: extras)
    }

    public func fail(_ id: RequestID, error: JSON, extras: JSONObject = [:]) -> Outgoing {
        answered(id)
        var o = Self.envelope(extras)
        o["id"] = id.json
        o["error"] = error
        return Outgoing(json: .object(o))
    }

    /// Cancels our request `id` (`cancelMethod`), when it still waits for its answer.
    public func cancel(_ id: RequestID) -> Outgoing? {
        guard state.withLock({ $0.pending[id] != nil }) else { return nil }
        return notification(options.cancelMethod, ["requestId": id.json])
    }

    /// Queues a message built above for writing (never waits for the other side).
    public func send(_ message: Outgoing) { writer.enqueue(message.json) }

    /// Forgets our request `id` without an answer (it was never sent); returns whether it waited.
    @discardableResult
    public func abandon(_ id: RequestID) -> Bool { state.withLock { $0.pending.removeValue(forKey: id) != nil } }

    /// How many of our requests wait for an answer.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The method of our request `id`, while it waits.
    public func pendingMethod(_ id: RequestID) -> String? { state.withLock { $0.pending[id]?.method } }

    /// Runs every waiting completion with `error(method)`, in the order the requests were made,
    /// on the calling thread (the other side is gone: no answer will come).
    public func failPending(_ error: (String) -> RPCError) {
        let owed = state.withLock { s -> [(RequestID, Pending)] in
            defer { s.pending = [:] }
            return s.pending.sorted { $0.value.seq < $1.value.seq }
        }
        for (_, p) in owed { p.then(Reply(error(p.method))) }
    }

    /// Waits while this peer's output queue is over its bound (for an `admit` of another peer).
    public func waitForRoom() { writer.waitForRoom() }

    /// Writes everything queued, then ends the output; with `wait`, returns once it is written
    /// (or the other side is gone).
    public func closeOutput(wait: Bool) { writer.close(wait: wait) }

    private func answered(_ id: RequestID) { _ = state.withLock { $0.inFlight.remove(id) } }

    static func envelope(_ extras: JSONObject) -> JSONObject {
        var o = JSONObject()
        o["jsonrpc"] = "2.0"
        for (k, v) in extras.members where !jsonrpcMembers.contains(k) { o[k] = v }
        return o
    }

    static let jsonrpcMembers: Set<String> = ["jsonrpc", "id", "method", "params", "result", "error"]

    /// A message built by a peer, ready for `send`.
    public struct Outgoing: Sendable {
        let json: JSON
    }
}
