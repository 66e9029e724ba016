#if canImport(Glibc)
import SystemSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON
import Logging
import Synchronization

/// A JSON-RPC 2.0 connection over a pair of file descriptors.
///
/// Threading and ordering guarantees:
/// - One thread at a time reads, frames, parses and routes messages in arrival order: a
///   thread `run()` starts at first; reading may pass to a pool thread when the reading thread
///   runs a request's handler itself (leader/follower, see `ReadLoop`), never to two at once.
///   Reading never waits for the file system: inline handlers never touch it (see `Method`),
///   a handler the reading thread runs itself loses reading when it runs long with input
///   waiting (`ReaderRescue`), and a hand-off always gets a thread at once, so no handler,
///   however stuck, stops the connection reading, nor `ping`, cancellation, `shutdown` or `exit`.
/// - Each request is scheduled by its method's `Schedule`: it starts only after every earlier
///   unfinished request with a conflicting claim has finished, so conflicting requests run
///   and answer in arrival order; everything else runs in parallel on a worker pool.
///   An `inline` method that can start at once runs on the reader thread.
/// - A request's `$/progress` end is written before its response; every message is written
///   whole (see `OutputChannel`). Every request is answered at most once.
/// - `$/cancelRequest` answers a queued request `-32800` at once; a running request that only
///   reads is answered `-32800` at once too and abandoned (its handler's result is discarded
///   when it returns); a running one that may write is flagged and answers its real outcome.
/// - End of input waits at most `exitGrace` for the requests in flight, then names the ones
///   still running on stderr and ends (`run()` returns 1). `endInput` (a signal) ends input
///   the same way at once: nothing read after it is admitted or answered. `exit` (`stop`)
///   ends reading after its message and keeps the same promise: every request received
///   before it is answered within `exitGrace`; `run()` then returns the status `exit` gave.
///   Once the grace is over, no handler starts any more (see `Connection+EndInput`).
public final class Connection: Sendable {
    public struct Options: Sendable {
        public var framing: FramingMode
        public var maxMessageBytes: Int
        public var readChunkBytes: Int
        /// How long one write to a client that reads nothing may block before the process
        /// ends (see `OutputChannel`); nil waits for ever.
        public var outputStallTimeout: Duration?

        /// How long the connection waits with no input and no request in flight before it
        /// calls `onIdle` (once per idle period: input re-arms it); nil never does.
        public var idleAfter: Duration?
        /// Called on the reading thread when the connection has become idle (see `idleAfter`),
        /// e.g. to give memory back; the next message is read only after it returns.
        public var onIdle: (@Sendable () -> Void)?
        /// How long the end of the connection (`exit`, end of input, `endInput`) and `drain`
        /// (for `shutdown`) wait for the requests in flight before giving up on the ones still running.
        public var exitGrace: Duration
        /// The worker pool's threads for handlers, and how many cancelled handlers stuck in
        /// system calls may be set aside beyond them (see `WorkerPool`).
        public var workerThreads = 64
        public var maxAbandonedHandlers = 64
        /// How the worker pool starts its threads (tests pass one that fails).
        public var startThread: OSThread.Starter = OSThread.start

        /// The framing, the message limit and the exit grace have no defaults here: the process's
        /// are declared once, in `BridgeServer`'s `TransportOptions`, and a test states its own.
        public init(framing: FramingMode, maxMessageBytes: Int, readChunkBytes: Int = 256 << 10,
                    outputStallTimeout: Duration? = nil, idleAfter: Duration? = nil,
                    onIdle: (@Sendable () -> Void)? = nil, exitGrace: Duration) {
            self.exitGrace = exitGrace
            self.framing = framing
            self.maxMessageBytes = maxMessageBytes
            self.readChunkBytes = readChunkBytes
            self.outputStallTimeout = outputStallTimeout
            self.idleAfter = idleAfter
            self.onIdle = onIdle
        }
    }

    struct State {
        var jobs: [Job] = []
        var byID: [RequestID: Job] = [:]
        var byToken: [String: RequestID] = [:]
        /// Set by `exit` (`stop`): the status `run()` returns once the requests received
        /// before it are answered (or the grace is over).
        var exitCode: Int32?
        /// Set when input was ended from outside (`endInput`): why, as the stuck report says it;
        /// from then on no message is admitted.
        var endedBy: String?
    }

    /// The most members of one batch the connection accepts; a larger batch is refused whole
    /// (`BatchTooLarge`). Announced in `initialize`'s capabilities.
    public static let maxBatchMembers = 1000
    /// The most bytes of one batch's text; a larger one is refused whole before it is parsed
    /// (`BatchTooLarge`): parsed, many small members cost some twenty times their text.
    public static let maxBatchBytes = 4 << 20

    public let output: OutputChannel
    let input: Int32
    let options: Options
    public let router: any Router
    let logger: Logger
    let pool: WorkerPool
    let rescue: ReaderRescue
    let inFlight = DispatchGroup()
    let state = Mutex(State())
    let stopping = Atomic<Bool>(false)
    /// Set when `run()` gave up waiting (the grace is over): no handler starts from then on.
    let givenUp = Atomic<Bool>(false)
    /// Set when `drain` (`shutdown`) gave up on requests after waiting the grace: the end of
    /// the connection does not wait for them a second time.
    let drainGaveUp = Atomic<Bool>(false)
    let conventionsBox = Mutex<Conventions>(.lsp)
    /// `Trace`'s raw value (see `Connection+Trace`).
    let traceLevel = Atomic<UInt8>(0)
    let clientRequests = ClientRequests()
    /// Requests whose answer a handler handed off (see `DeferredResponse`).
    let deferred = DeferredRegistry()
    /// Signalled when the read loop ends on a thread it was handed off to (see `ReadLoop`).
    let loopEnded = DispatchSemaphore(value: 0)

    public init(input: Int32, output: Int32, options: Options, router: any Router, logger: Logger) {
        self.input = input
        self.pool = WorkerPool(maxThreads: options.workerThreads, maxAbandoned: options.maxAbandonedHandlers,
                               startThread: options.startThread)
        self.rescue = ReaderRescue(input: input)
        self.output = OutputChannel(fd: output, framing: options.framing.fixed ?? .lsp,
                                    stallTimeout: options.outputStallTimeout)
        self.options = options
        self.router = router
        self.logger = logger
    }

    // MARK: Reading

    /// Serves until `exit`, end of input or `endInput`, then finishes the requests already
    /// received and writes their answers: returns `exit`'s status (see `stop`), else 0. When
    /// some are still running after `exitGrace`, names them on stderr, starts no handler any
    /// more and returns `exit`'s status, else 1 (their threads are abandoned).
    /// A client that closed its end of the output (EPIPE) counts as end of input: nothing more
    /// is read. The calling thread only waits: reading runs on threads of its own, so a
    /// handler stuck for ever (on whichever thread) never keeps `run()` from returning.
    public func run() -> Int32 {
        let loop = ReadLoop(options: options)
        do {
            try OSThread.detach { if self.readLoop(loop) == .ended { self.loopEnded.signal() } }
        } catch {
            // No thread to read on: this one reads (a handler stuck on it is still rescued).
            logger.warning("reading on the calling thread: \(error)")
            if readLoop(loop) == .ended { loopEnded.signal() }
        }
        loopEnded.wait()
        return finishInFlight()
    }

    /// Whether any request is admitted and not finished.
    var hasJobs: Bool { state.withLock { !$0.jobs.isEmpty } }

    /// `exit`: nothing is read after the current message (the rest of a batch it is in is
    /// handled: a batch is one message), and `run()` returns `exitCode` once the requests
    /// received before it are answered, or `exitGrace` is over. The first `exit` decides.
    public func stop(exitCode: Int32) {
        state.withLock { if $0.exitCode == nil { $0.exitCode = exitCode } }
        stopping.store(true, ordering: .releasing)
    }

    /// Handles one message body read by `loop`; a request in it (not in a batch) whose handler
    /// could start at once on the pool is left in `loop.deferred` instead (see `ReadLoop`).
    func handle(body: UnsafeRawBufferPointer, loop: ReadLoop) {
        if body.count > Self.maxBatchBytes && JSONCodec.startsArray(body) {
            output.send(OutgoingMessage.error(id: nil, .batchTooLarge(bytes: body.count, limit: Self.maxBatchBytes)))
            return
        }
        let json: JSON
        do {
            json = try JSONCodec.decode(body)
        } catch {
            output.send(OutgoingMessage.error(id: nil, .parse(error)))
            return
        }
        guard case .array(let items) = json else {
            process(IncomingMessage(json), reply: .direct, loop: loop)
            return
        }
        if items.isEmpty {
            output.send(OutgoingMessage.error(id: nil, .invalidRequest("an empty batch")))
            return
        }
        if items.count > Self.maxBatchMembers {
            output.send(OutgoingMessage.error(id: nil, .batchTooLarge(members: items.count, limit: Self.maxBatchMembers)))
            return
        }
        let messages = items.map(IncomingMessage.init)
        let answered = messages.filter {
            switch $0 {
            case .request, .invalid: true
            case .notification, .response: false
            }
        }.count
        let reply: Reply = answered > 0
            ? .batch(BatchCollector(expected: answered, output: output, budget: options.maxMessageBytes)) : .none
        for m in messages { process(m, reply: reply) }
    }

    private func process(_ message: IncomingMessage, reply: Reply, loop: ReadLoop? = nil) {
        switch message {
        case .invalid(let id, let error):
            deliver(OutgoingMessage.error(id: id, error), to: reply)
        case .response(let id, let result, let error):
            if !clientRequests.complete(id: id, result: result, error: error) {
                logger.debug("ignoring a response to \(id.map(String.init(describing:)) ?? "null"): no request of ours waits for it")
            }
        case .notification(let method, let params):
            switch router.route(method: method, isRequest: false) {
            case .handle(let m): submit(m, id: nil, params: params, reply: .none, loop: loop)
            case .reject(let e): logger.debug("dropped notification \(method): \(e.message)")
            case .ignore: logger.trace("ignored notification \(method)")
            }
        case .request(let id, let method, let params):
            switch router.route(method: method, isRequest: true) {
            case .handle(let m): submit(m, id: id, params: params, reply: reply, loop: loop)
            case .reject(let e): deliver(OutgoingMessage.error(id: id, e), to: reply)
            case .ignore: deliver(OutgoingMessage.error(id: id, .methodNotFound(method)), to: reply)
            }
        }
    }

    // MARK: Scheduling

    private func submit(_ method: Method, id: RequestID?, params: JSON?, reply: Reply, loop: ReadLoop? = nil) {
        let plan: Plan
        do {
            if method.namedParams, case .array? = params {
                throw RPCError.invalidParams(field: "", expected: "an object (named params)", got: "array")
            }
            plan = try method.plan(params)
        } catch {
            refuse(method, id: id, error, reply: reply)
            return
        }
        let schedule = plan.schedule
        var progress: ProgressReporter?
        var tokenKey: JSON?
        if id != nil, let token = conventions.progressToken(params), RequestID(token) != nil {
            tokenKey = token
            let notifier = conventions.progressNotifier()
            progress = ProgressReporter(token: token) { [weak self] value in
                if let (method, p) = notifier(value) { self?.notify(method, p) }
            }
        }
        var requestLogger = logger
        for (key, value) in plan.logMetadata { requestLogger[metadataKey: key] = value }
        let context = RequestContext(id: id, method: method.name, params: params, decoded: plan.decoded, logger: requestLogger,
                                     progress: progress, connection: self)
        if let prepare = method.prepare {
            do {
                try prepare(context)
            } catch {
                refuse(method, id: id, error, reply: reply)
                return
            }
        }
        let job = Job(method: method, schedule: schedule, context: context, reply: reply, progressKey: tokenKey,
                      traceAtAdmission: trace)
        // Counted in flight before any other thread can see (and finish) it.
        inFlight.enter()
        enum Admission: Equatable { case runNow, queued, duplicate(RequestID), inputEnded }
        let admission: Admission = state.withLock { s in
            if s.endedBy != nil { return .inputEnded }
            if let id, s.byID[id] != nil || deferred.contains(id) { return .duplicate(id) }
            for earlier in s.jobs where schedule.conflicts(withEarlier: earlier.schedule) {
                earlier.dependents.append(job)
                job.blockers += 1
            }
            s.jobs.append(job)
            if let id { s.byID[id] = job }
            if let tokenKey, let id { s.byToken[Self.tokenString(tokenKey)] = id }
            if job.blockers == 0 {
                job.status = .running
                job.startedAt = MonotonicClock.nanos()
            }
            return job.status == .running ? .runNow : .queued
        }
        switch admission {
        case .runNow, .queued: break
        case .inputEnded:
            // Input was ended (`endInput`) while this message was being read: not admitted, not answered.
            inFlight.leave()
            return
        case .duplicate(let id):
            inFlight.leave()
            deliver(OutgoingMessage.error(id: id, .duplicateRequestId(id)), to: reply)
            return
        }
        if admission == .runNow {
            if method.inline {
                execute(job)
            } else if let loop {
                loop.deferred = job
            } else {
                start(job)
            }
        }
    }

    /// Answers a request refused before it ran (bad params, a failed `prepare`); a notification
    /// has no answer, so its failure is logged, as when its handler fails.
    private func refuse(_ method: Method, id: RequestID?, _ error: any Error, reply: Reply) {
        let e = mapError(error)
        if id != nil { deliver(OutgoingMessage.error(id: id, e), to: reply) } else { logger.warning("notification \(method.name) failed: \(e)") }
    }

    /// Runs a job on the pool; a control message (`unordered`) never waits for a thread. A job
    /// the pool refuses (no thread to be had, see `WorkerPool`) is answered `ServerBusy` at
    /// once, and so are the jobs that were waiting only for it and are refused in turn (one after
    /// another here, not nested: a long chain of refusals never deepens the stack).
    func start(_ job: Job) {
        var next = [job]
        while let job = next.popLast() {
            guard let refusal = pool.submit(urgent: job.schedule == .unordered, { self.execute(job) }) else { continue }
            next += settle(job, refused: .busy(refusal))
        }
    }

    func execute(_ job: Job) {
        for r in settle(job, refused: nil) { start(r) }
    }

    /// Runs `job`'s handler (or, when `refused`, answers that error instead), answers it unless a
    /// cancel did, and takes it out of the schedule; returns the jobs that were waiting only for it.
    private func settle(_ job: Job, refused: RPCError?) -> [Job] {
        let context = job.context
        // While a client reads none of the output, a handler waits before it runs rather than
        // after, holding its answer: memory stays bounded by the answers already being written,
        // not by one answer per pool thread (quick control methods run as they come).
        if !job.method.inline && refused == nil {
            output.waitWhileStalled()
            // The exit's grace is over: a handler that has not started never will (a save is
            // not begun only to be cut off by the process ending).
            if givenUp.load(ordering: .acquiring) { return [] }
        }
        var answer: JSON?
        if let refused {
            answer = context.id.map { OutgoingMessage.error(id: $0, refused) }
            if context.id == nil { logger.warning("notification \(context.method) dropped: \(refused)") }
        } else if context.isCancelled {
            answer = context.id.map { OutgoingMessage.error(id: $0, .cancelled) }
        } else {
            do {
                let result = try job.method.handler(context)
                answer = context.id.map { OutgoingMessage.response(id: $0, result: result) }
                if deferred.tookHandOff(context) { answer = handedOff(job) }
            } catch {
                let e = mapError(error)
                if deferred.tookHandOff(context), let id = context.id {
                    answer = nil
                    deferred.take(id)?.fail(e)
                } else if let id = context.id {
                    answer = OutgoingMessage.error(id: id, e)
                } else {
                    logger.warning("notification \(context.method) failed: \(e)")
                }
            }
        }
        // A cancel that abandoned the request has answered it already: the result is discarded.
        // (`writingAnswer` first, so that `shutdown` never sees it answered before it is written.)
        job.writingAnswer.store(true, ordering: .releasing)
        if job.claimAnswer() {
            // Conventions without an answer for a cancelled request send nothing more for it.
            if !conventions.answersCancelledRequests && context.isCancelled {
                answer = nil
            } else {
                context.progress?.end()
            }
            // Forget the id before answering: a client may reuse it as soon as the answer arrives.
            forget(job)
            if let answer, case .batch(let collector) = job.reply, job.schedule.onlyReads, answer["result"] != nil {
                collector.add(answer, readOnlyID: context.id)
            } else if let answer {
                deliver(answer, to: job.reply)
            }
            job.writingAnswer.store(false, ordering: .releasing)
            traceHandled(job, answer: answer)
        } else {
            job.writingAnswer.store(false, ordering: .releasing)
            pool.abandonedReturned()
            context.logger.notice("\(context.method) (id \(context.id.map(String.init(describing:)) ?? "none")) finished after it was cancelled and answered: its result is discarded (\(answer.map(Self.describeAnswer) ?? "none"))")
        }
        // What the handler left for after its answer, before a conflicting request may start.
        context.runAfterAnswer()
        return takeOut(job, as: .done)
    }

    func forget(_ job: Job) {
        state.withLock { s in
            if let id = job.context.id, s.byID[id] === job { s.byID[id] = nil }
            if let key = job.progressKey { s.byToken[Self.tokenString(key)] = nil }
        }
    }

    /// Takes a job out of the schedule and starts the jobs that were waiting only for it.
    func finish(_ job: Job, as status: Job.Status) {
        for r in takeOut(job, as: status) { start(r) }
    }

    /// Takes a job out of the schedule; returns the jobs that were waiting only for it, now
    /// marked running, for the caller to start.
    private func takeOut(_ job: Job, as status: Job.Status) -> [Job] {
        let ready: [Job] = state.withLock { s in
            if let i = s.jobs.firstIndex(where: { $0 === job }) { s.jobs.remove(at: i) }
            if let id = job.context.id, s.byID[id] === job { s.byID[id] = nil }
            if let key = job.progressKey { s.byToken[Self.tokenString(key)] = nil }
            job.status = status
            var ready: [Job] = []
            for d in job.dependents {
                d.blockers -= 1
                if d.blockers == 0 && d.status == .queued {
                    d.status = .running
                    d.startedAt = MonotonicClock.nanos()
                    ready.append(d)
                }
            }
            job.dependents = []
            return ready
        }
        inFlight.leave()
        return ready
    }

    // MARK: Writing

    /// Sends a notification to the client.
    public func notify(_ method: String, _ params: JSON?) {
        output.send(OutgoingMessage.notification(method, params))
    }

    /// Sends a request to the client; `completion` gets its answer exactly once (see
    /// `ClientRequests`: it runs on the reader thread and must be quick).
    public func request(_ method: String, _ params: JSON?,
                        completion: @escaping @Sendable (Result<JSON, RPCError>) -> Void) {
        guard let id = clientRequests.register(completion) else { return }
        var o = JSONObject()
        o["jsonrpc"] = "2.0"
        o["id"] = id.json
        o["method"] = .string(method)
        if let params { o["params"] = params }
        output.send(.object(o))
    }

    func deliver(_ message: JSON, to reply: Reply) {
        switch reply {
        case .direct: output.send(message)
        case .batch(let collector): collector.add(message)
        case .none: break
        }
    }

    private func mapError(_ error: any Error) -> RPCError {
        if let e = error as? RPCError { return e }
        return router.mapError(error)
    }
}
