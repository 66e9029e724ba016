#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON
import JSONRPC
import Logging
import Synchronization
import SystemSupport
import Testing

/// A router over a fixed method table, for connection tests.
struct TableRouter: Router {
    var methods: [String: Method]

    func route(method: String, isRequest: Bool) -> Routing {
        if let m = methods[method] { return .handle(m) }
        return isRequest ? .reject(.methodNotFound(method)) : .ignore
    }

    func mapError(_ error: any Error) -> RPCError { .internalError("\(error)") }
}

/// Runs a `Connection` over two pipes on a background thread and speaks NDJSON to it.
final class PipeHarness: @unchecked Sendable {
    let connection: Connection
    private let toServer: Int32
    private let fromServer: Int32
    private var pending: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)
    private let exitCode = Mutex<Int32?>(nil)
    /// Whether `toServer` is closed. Descriptors are closed exactly once: a second `close`
    /// could hit a number that a test running in parallel has been handed since.
    private let inputClosed = Mutex(false)

    /// - Parameter keepDescriptors: leave the server's ends of the pipes open when `run()`
    ///   returns. Needed whenever a thread of the connection outlives `run()` (a handler abandoned
    ///   after the grace, a reader left in `poll` by `endInput`): closed, their numbers could be
    ///   handed to a test running in parallel, whose messages that thread would then steal or write to.
    init(_ methods: [Method], maxMessageBytes: Int = 1 << 20, exitGrace: Duration = .seconds(10),
         keepDescriptors: Bool = false, pool: (threads: Int, abandoned: Int, start: OSThread.Starter)? = nil) {
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        _ = pipe(&inPipe)
        _ = pipe(&outPipe)
        // Tests that spawn processes must not hand these on: an inherited write end hides EOF.
        for fd in inPipe + outPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        toServer = inPipe[1]
        fromServer = outPipe[0]
        JSONCodec.prepareForThreads()
        // As ServerMain does: a write after the test closed its end fails (EPIPE) instead of
        // killing the test process (a handler abandoned with `keepDescriptors` may write late).
        signal(SIGPIPE, SIG_IGN)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var options = Connection.Options(framing: .ndjson, maxMessageBytes: maxMessageBytes, exitGrace: exitGrace)
        if let pool {
            options.workerThreads = pool.threads
            options.maxAbandonedHandlers = pool.abandoned
            options.startThread = pool.start
        }
        connection = Connection(
            input: inPipe[0], output: outPipe[1],
            options: options,
            router: TableRouter(methods: Dictionary(uniqueKeysWithValues: (methods + Self.cancellation).map { ($0.name, $0) })),
            logger: logger)
        let serverIn = inPipe[0]
        let serverOut = outPipe[1]
        let c = connection
        let started: ()? = try? OSThread.detach { [self] in
            let code = c.run()
            exitCode.withLock { $0 = code }
            if !keepDescriptors {
                close(serverIn)
                close(serverOut)
            }
            done.signal()
        }
        precondition(started != nil, "the test cannot start the connection's thread")
    }

    /// The protocol's cancellation notifications, as the real server wires them.
    static let cancellation = [
        Method("$/cancelRequest", inline: true) { ctx in
            if let raw = ctx.params?["id"], let id = RequestID(raw) { ctx.serving.cancel(id: id) }
            return .null
        },
        Method("window/workDoneProgress/cancel", inline: true) { ctx in
            if let token = ctx.params?["token"] { ctx.serving.cancel(progressToken: token) }
            return .null
        },
    ]

    func cancel(_ id: JSON) { notify("$/cancelRequest", ["id": id]) }

    deinit {
        closeInput()
        close(fromServer)
    }

    private func closeInput() {
        inputClosed.withLock { closed in
            if !closed { close(toServer) }
            closed = true
        }
    }

    func send(_ message: JSON) {
        var bytes = JSONCodec.encode(message)
        bytes.append(10)
        send(raw: bytes)
    }

    func send(raw bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(toServer, raw.baseAddress! + off, raw.count - off)
                if n < 0 && errno == EINTR { continue }
                precondition(n > 0, "write to the server's pipe failed: errno \(errno)")
                off += n
            }
        }
    }

    func request(_ id: Int64, _ method: String, _ params: JSON = [:]) {
        send(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params])
    }

    func notify(_ method: String, _ params: JSON = [:]) {
        send(["jsonrpc": "2.0", "method": .string(method), "params": params])
    }

    /// The next message from the server, or nil after `timeout` seconds.
    func next(timeout: Double = 5) -> JSON? {
        let deadline = MonotonicClock.nanos() + UInt64(timeout * 1e9)
        while true {
            if let nl = pending.firstIndex(of: 10) {
                let line = Array(pending[..<nl])
                pending.removeSubrange(...nl)
                return try? JSONCodec.decode(line)
            }
            let now = MonotonicClock.nanos()
            guard now < deadline else { return nil }
            var pfd = pollfd(fd: fromServer, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var buf = [UInt8](repeating: 0, count: 65536)
            let n = read(fromServer, &buf, buf.count)
            if n <= 0 { return nil }
            pending += buf[0..<n]
        }
    }

    /// Collects messages until `count` responses (messages with an id) have arrived.
    func responses(_ count: Int, timeout: Double = 5) -> [JSON] {
        var out: [JSON] = []
        while out.count < count, let m = next(timeout: timeout) {
            if m["method"] == nil { out.append(m) }
        }
        return out
    }

    /// Closes the input (EOF) and waits for `run()` to return.
    func finish(timeout: Double = 5) -> Int32? {
        closeInput()
        return ended(timeout: timeout)
    }

    /// Waits for `run()` to return, leaving the input open; nil when it has not after `timeout`.
    func ended(timeout: Double = 5) -> Int32? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        done.signal()  // stays observable for a later call
        return exitCode.withLock { $0 }
    }
}


/// A handler that sleeps `ms` milliseconds in 1 ms steps, honouring cancellation, and returns
/// its label with start and finish times.
func sleeper(_ name: String, inline: Bool = false) -> Method {
    Method(name, inline: inline, schedule: { params in
        let p = try Params(params)
        guard let key = try p.string("key") else { return .free }
        return .claims([Claim("test", path: key, access: try p.choice("access", ["read", "write"]) == "read" ? .read : .write)])
    }) { ctx in
        let p = try ctx.paramsObject()
        let ms = try p.int("ms") ?? 0
        let start = MonotonicClock.nanos()
        ctx.progress?.begin(title: "sleep")
        while MonotonicClock.nanos() < start + UInt64(ms) * 1_000_000 {
            try ctx.checkCancellation()
            ctx.progress?.report(percentage: 50)
            usleep(500)
        }
        return ["label": .string(try p.string("label") ?? ""), "start": .int(Int64(start)),
                "end": .int(Int64(MonotonicClock.nanos()))]
    }
}
