#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import SystemSupport

/// The single writer of protocol bytes.
///
/// Every message is framed and written whole, under one lock, so messages never interleave.
/// While the reader is working through one read's worth of input it "corks" the channel:
/// replies are gathered and written with one system call when it uncorks, which is what
/// makes pipelined requests cheap.
///
/// Back-pressure, with bounded memory: at most `corkLimit` bytes are gathered while corked
/// (past that, they are written at once). A write blocks while the client is not reading, and
/// it blocks under the lock, so every other sender waits behind it; the reader never waits
/// for a write that is merely under way (it corks only when the lock is free), but before each
/// read it waits for a write that has made no progress for 1 ms (`waitWhileStalled`): the
/// server stops reading requests while its output is blocked. What is held meanwhile is the
/// gathered output (at most `corkLimit` plus one message), one response per handler that was
/// already running, and the requests read before the block.
///
/// When `stallTimeout` is set and one write makes no progress for that long (the client has
/// stopped reading but keeps the pipe open), the channel writes one line to stderr naming the
/// stall and ends the process with status 1 (`exitOnStall`): every acknowledged operation is
/// already durable, and nothing else could ever reach that client. After the client has
/// gone (EPIPE, or its end of a pipe or socket closed), output is discarded and `isBroken` is true.
public final class OutputChannel: Sendable {
    /// The most output gathered while corked before it is written anyway.
    public static let corkLimit = 1 << 20
    /// The most bytes handed to one `write`, so a stall is seen within `stallTimeout`.
    static let writeChunk = 256 << 10

    private struct State {
        var framing: Framing
        var pending: [UInt8] = []
        var corked = false
        var broken = false
        /// Set by `close`: nothing more is written.
        var closed = false
    }

    private let fd: Int32
    private let state: Mutex<State>
    /// Monotonic nanoseconds at which the write in progress started; 0 when none is.
    private let writeStarted = Atomic<UInt64>(0)
    /// The stall watchdog's parking place (nil without a stall timeout).
    private let watchdog: WatchdogPark?
    /// Bytes of the flush in progress not yet written (for the stall message).
    private let unwritten = Atomic<Int>(0)

    /// - Parameter stallTimeout: how long one write may make no progress before the process
    ///   ends (see the type's documentation); nil waits for ever.
    public init(fd: Int32, framing: Framing, stallTimeout: Duration? = nil) {
        self.fd = fd
        self.state = Mutex(State(framing: framing))
        if let stallTimeout, stallTimeout > .zero {
            let park = WatchdogPark()
            watchdog = park
            Self.startWatchdog(self, park: park, timeout: stallTimeout)
        } else {
            watchdog = nil
        }
    }

    deinit { watchdog?.release() }

    /// Sets the framing once the client's first byte has decided it.
    public func setFraming(_ framing: Framing) {
        state.withLock { $0.framing = framing }
    }

    /// Mirrors `State.broken` so the reader can check it without waiting for a write.
    private let brokenFlag = Atomic<Bool>(false)

    public var isBroken: Bool { brokenFlag.load(ordering: .acquiring) }

    /// Encodes and sends one message.
    public func send(_ message: JSON) {
        send(encoded: JSONCodec.encode(message))
    }

    /// Sends one message already encoded (`JSONCodec`'s compact text).
    func send(encoded body: [UInt8]) {
        state.withLock { s in
            s.framing.frame(body, into: &s.pending)
            if !s.corked || s.pending.count >= Self.corkLimit { flushLocked(&s) }
        }
    }

    /// Writes anything gathered so far, even while corked (for exits outside the read loop).
    public func flushNow() {
        state.withLock { flushLocked(&$0) }
    }

    /// Writes anything gathered so far, then writes nothing more: every later message is
    /// discarded. Returns once no write is under way, so a process that exits right after never
    /// cuts a message short (a handler abandoned after the exit grace that finishes at that
    /// moment cannot start one).
    public func close() {
        state.withLock { s in
            flushLocked(&s)
            s.closed = true
        }
    }

    /// Like `close`, for an exit that must not wait on the client: gathered output is dropped,
    /// and when a write stays under way (a client that reads nothing) for `patience`
    /// milliseconds, gives up and returns false.
    public func closeNow(patienceMs: Int) -> Bool {
        for _ in 0...max(0, patienceMs) {
            if state.withLockIfAvailable({ $0.closed = true }) != nil { return true }
            usleep(1_000)
        }
        return false
    }

    /// Gathers replies until `uncork`, unless a write is under way right now: then the reader
    /// does not wait for it (the writer may have been preempted just after waking the client,
    /// which is about to send the next request) and its replies are written one by one, in
    /// turn behind that write. Returns whether it corked; only then must `uncork` follow.
    package func cork() -> Bool {
        state.withLockIfAvailable { $0.corked = true } != nil
    }

    /// Before the reader reads more input: when one write has made no progress for a while
    /// (the client is not reading), waits until it ends, so that the server stops reading
    /// requests while its output is blocked. A write merely in progress is not waited for.
    func waitWhileStalled() {
        let started = writeStarted.load(ordering: .acquiring)
        guard started != 0, MonotonicClock.nanos() &- started > Self.stallBeforeWaiting else { return }
        state.withLock { _ in }
    }

    /// How long one write may be under way before the reader waits for it (`waitWhileStalled`).
    static let stallBeforeWaiting: UInt64 = 1_000_000  // 1 ms

    package func uncork() {
        state.withLock { s in
            s.corked = false
            flushLocked(&s)
        }
    }

    private func flushLocked(_ s: inout State) {
        defer { s.pending.removeAll(keepingCapacity: s.pending.capacity <= Self.corkLimit) }
        guard !s.broken, !s.closed, !s.pending.isEmpty else { return }
        let ok = s.pending.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }  // nothing pending: nothing to write
            var off = 0
            while off < raw.count {
                unwritten.store(raw.count - off, ordering: .relaxed)
                writeStarted.store(MonotonicClock.nanos(), ordering: .sequentiallyConsistent)
                watchdog?.writeStarted()
                let n = write(fd, base + off, min(raw.count - off, Self.writeChunk))
                writeStarted.store(0, ordering: .releasing)
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return false
                }
                off += n
            }
            return true
        }
        if !ok {
            s.broken = true
            brokenFlag.store(true, ordering: .releasing)
        }
    }

    /// What `waitForInput` saw.
    enum InputWait {
        /// `input` can be read (or has ended, or failed: `read` reports it).
        case ready
        /// The client closed its end of the output: the channel is now broken.
        case outputClosed
        /// Nothing arrived within the idle timeout.
        case idle
    }

    /// Waits until `input` can be read (or has ended), at most `idleTimeoutMs` milliseconds
    /// (-1: for ever). Reports `outputClosed`, marking the channel broken, when the client
    /// closes its end of the output first: a pipe or socket reports that on the output
    /// descriptor without a write, so a client that stops reading and goes away is noticed even
    /// while it keeps the input open. Called before every read, so the two `pollfd`s live on
    /// the stack, not in an array.
    func waitForInput(on input: Int32, idleTimeoutMs: Int32 = -1) -> InputWait {
        withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { fds in
            fds[0] = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            fds[1] = pollfd(fd: fd, events: 0, revents: 0)
            while true {
                let n = poll(fds.baseAddress, 2, idleTimeoutMs)
                if n < 0 {
                    if errno == EINTR { continue }
                    return .ready  // let read() report the problem
                }
                if n == 0 { return .idle }
                if fds[0].revents != 0 { return .ready }
                if fds[1].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                    state.withLock { $0.broken = true }
                    brokenFlag.store(true, ordering: .releasing)
                    return .outputClosed
                }
            }
        }
    }

    // MARK: Stall watchdog

    /// A thread that checks, a few times per timeout, whether a write has been stuck longer
    /// than `timeout`; it ends with the channel. After `WatchdogPark.idleTicks` checks in a row
    /// with no write under way it parks until the next write starts, so an idle server does not
    /// wake up for it.
    private static func startWatchdog(_ channel: OutputChannel, park: WatchdogPark, timeout: Duration) {
        let limit = timeout.clampedNanoseconds
        let tick = UInt32(min(max(limit / 4_000, 10_000), 1_000_000))  // microseconds
        enum Next { case watch, park, end }
        let started: ()? = try? OSThread.detach { [weak channel] in
            var idle = 0
            // The strong reference lives only inside `check`, so a parked watchdog holds none.
            func check() -> Next {
                guard let c = channel else { return .end }
                let started = c.writeStarted.load(ordering: .sequentiallyConsistent)
                if started != 0, MonotonicClock.nanos() > started, MonotonicClock.nanos() - started > limit {
                    c.exitOnStall(after: limit, unwritten: c.unwritten.load(ordering: .relaxed))
                }
                idle = started == 0 ? idle + 1 : 0
                return idle >= WatchdogPark.idleTicks ? .park : .watch
            }
            while true {
                usleep(tick)
                switch check() {
                case .watch: continue
                case .end: return
                case .park:
                    idle = 0
                    let writing = { (channel?.writeStarted.load(ordering: .sequentiallyConsistent) ?? 0) != 0 }
                    guard park.park(unless: writing) else { return }
                }
            }
        }
        if started == nil {
            let line = "workspace-bridge: no thread for the output stall watchdog: a client that stops reading is not disconnected\n"
            _ = FileIO.writeAll(2, Array(line.utf8))
        }
    }

    /// Says why on stderr (directly: the logger may forward to this very client) and ends the
    /// process with status 1.
    private func exitOnStall(after limit: UInt64, unwritten: Int) -> Never {
        let line = "workspace-bridge: the client has read none of its output for \(limit / 1_000_000) ms "
            + "(\(unwritten) bytes waiting): disconnecting (exit status 1)\n"
        _ = FileIO.writeAll(2, Array(line.utf8))
        _exit(1)
    }
}
