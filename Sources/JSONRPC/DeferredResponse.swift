import JSON
import Synchronization

/// A request answered later, by whoever holds this value, instead of by its handler's return:
/// a long-lived request (a stream of notifications that ends with one response) that holds no
/// worker thread while it is open.
///
/// Guarantees: the request is answered at most once — by `complete`/`fail`, by the connection
/// when its input ends (`atInputEnd`'s result), or not at all after a cancellation under the
/// connection's no-answer-after-cancel rule (otherwise `-32800`). `onCancel` runs exactly once if
/// the client cancels the request while it is open, on the reading thread (it must be quick),
/// and never after the request was answered. While open, its id counts as in flight: a new
/// request reusing it is refused as a duplicate.
public final class DeferredResponse: Sendable {
    public let id: RequestID
    let reply: DeferredRegistry.Sink
    private let onCancel: @Sendable () -> Void
    private let atInputEnd: @Sendable () -> JSON
    private let registry: DeferredRegistry
    private let answered = Atomic<Bool>(false)

    init(id: RequestID, registry: DeferredRegistry, reply: @escaping DeferredRegistry.Sink,
         onCancel: @escaping @Sendable () -> Void, atInputEnd: @escaping @Sendable () -> JSON) {
        self.id = id
        self.registry = registry
        self.reply = reply
        self.onCancel = onCancel
        self.atInputEnd = atInputEnd
    }

    /// Whether it can still be answered (not answered, not cancelled).
    public var isOpen: Bool { !answered.load(ordering: .acquiring) }

    /// Answers with `result`; false when it was already answered or cancelled.
    @discardableResult
    public func complete(_ result: JSON) -> Bool {
        answer(OutgoingMessage.response(id: id, result: result))
    }

    /// Answers with `error`; false when it was already answered or cancelled.
    @discardableResult
    public func fail(_ error: RPCError) -> Bool {
        answer(OutgoingMessage.error(id: id, error))
    }

    private func claim() -> Bool {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        registry.remove(self)
        return true
    }

    private func answer(_ message: JSON) -> Bool {
        guard claim() else { return false }
        reply(message)
        return true
    }

    /// The client cancelled it: `onCancel`, then the answer the connection's rules give (nil: none).
    func cancelled(answer: JSON?) {
        guard claim() else { return }
        onCancel()
        if let answer { reply(answer) }
    }

    /// End of input: answered with `atInputEnd`'s result.
    func inputEnded() {
        guard claim() else { return }
        reply(OutgoingMessage.response(id: id, result: atInputEnd()))
    }
}

/// The open deferred responses of one connection, and the handlers that handed their answer off.
final class DeferredRegistry: Sendable {
    typealias Sink = @Sendable (JSON) -> Void
    private struct State { var open: [RequestID: DeferredResponse] = [:]; var handedOff: Set<ObjectIdentifier> = [] }
    private let state = Mutex(State())

    func add(_ d: DeferredResponse, from context: RequestContext) {
        state.withLock { s in
            s.open[d.id] = d
            s.handedOff.insert(ObjectIdentifier(context))
        }
    }

    func remove(_ d: DeferredResponse) {
        state.withLock { s in if s.open[d.id] === d { s.open[d.id] = nil } }
    }

    func contains(_ id: RequestID) -> Bool { state.withLock { $0.open[id] != nil } }

    func take(_ id: RequestID) -> DeferredResponse? { state.withLock { $0.open[id] } }

    /// Whether the handler of `context` deferred its answer (asked once, when it returns).
    func tookHandOff(_ context: RequestContext) -> Bool {
        state.withLock { $0.handedOff.remove(ObjectIdentifier(context)) != nil }
    }

    func all() -> [DeferredResponse] { state.withLock { Array($0.open.values) } }
}

extension RequestContext {
    /// Leaves this request's answer to the returned value: whatever the handler returns is then
    /// ignored (an error it throws answers the request, if still open). A notification has no
    /// answer to defer (`-32600`); a request already cancelled is `-32800`.
    public func deferResponse(onCancel: @escaping @Sendable () -> Void = {},
                              atInputEnd: @escaping @Sendable () -> JSON) throws(RPCError) -> DeferredResponse {
        guard let id else { throw RPCError.invalidRequest("a notification cannot be answered later") }
        try checkCancellation()
        let output = connection.output
        let d = DeferredResponse(id: id, registry: connection.deferred, reply: { output.send($0) },
                                 onCancel: onCancel, atInputEnd: atInputEnd)
        connection.deferred.add(d, from: self)
        return d
    }
}

extension Connection {
    /// Cancels an open deferred response (`cancel(id:)`); false when `id` names none.
    func cancelDeferred(id: RequestID) -> Bool {
        guard let d = deferred.take(id) else { return false }
        if conventions.answersCancelledRequests { d.cancelled(answer: OutgoingMessage.error(id: id, .cancelled)) } else { d.cancelled(answer: Optional<JSON>.none) }
        return true
    }

    /// Answers every open deferred response (end of input).
    func endDeferred() {
        for d in deferred.all() { d.inputEnded() }
    }
}

extension Connection {
    /// What the job of a handler that deferred its answer delivers now: nothing, except in a
    /// batch, whose response cannot wait for a stream: there the request is refused (and its
    /// deferred response withdrawn, through its cancellation hook).
    func handedOff(_ job: Job) -> JSON? {
        guard case .batch = job.reply, let id = job.context.id else { return nil }
        deferred.take(id)?.cancelled(answer: Optional<JSON>.none)
        return OutgoingMessage.error(id: id, .invalidRequest("'\(job.context.method)' answers later and cannot be part of a batch"))
    }
}
