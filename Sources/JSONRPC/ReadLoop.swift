#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// The state of a connection's reading: owned by one thread at a time, the one reading.
///
/// Leader/follower hand-off: when one read's worth of input ends with a request whose handler
/// would start on the worker pool (`deferred`), and no more input is waiting, the reading
/// thread runs that handler itself, guarded by `ReaderRescue`: when input arrives before the
/// handler returns, reading is handed on to a pool thread; otherwise the reading thread reads
/// on. Waking a thread is then off the request's path instead of on it, which on a machine
/// whose idle CPUs take tens of microseconds to wake is most of a quick request's cost.
/// Otherwise (more input already waiting, work queued in the pool, no room in the pool, or a batch) the
/// handler goes to the pool as before: pipelined requests keep one reader that never stops to
/// run one of them, and no handler starts before one that arrived earlier and still waits.
/// The thread that takes reading over is always found at once (`WorkerPool.submit(urgent:)`),
/// even when every pool thread is busy in a stuck handler, or, when the system starts no thread,
/// the rescuer's own thread reads on (`handOver`), so the handler the reading thread runs,
/// however long it blocks, never holds reading up.
final class ReadLoop: @unchecked Sendable {
    var decoder: FrameDecoder
    var framingKnown: Bool
    let chunk: UnsafeMutableRawBufferPointer
    /// The idle timeout in milliseconds (-1: none) and whether it is armed (input since the
    /// last idle call).
    let idleMs: Int32
    var idleArmed: Bool
    /// A request admitted while handling the current read whose handler has not started.
    var deferred: Job?

    init(options: Connection.Options) {
        decoder = FrameDecoder(mode: options.framing, maxMessageBytes: options.maxMessageBytes)
        framingKnown = decoder.framing != nil
        chunk = .allocate(byteCount: options.readChunkBytes, alignment: 16)
        idleMs = {
            guard options.onIdle != nil, let d = options.idleAfter else { return -1 }
            let (s, atto) = d.components
            return Int32(clamping: max(1, s * 1000 + atto / 1_000_000_000_000_000))
        }()
        idleArmed = idleMs >= 0
    }

    deinit { chunk.deallocate() }

    enum End { case ended, handedOff }
}

extension Connection {
    /// Reads, frames and handles input until `exit`, end of input, or a hand-off (see
    /// `ReadLoop`); a loop handed off ends on the pool thread that took it, which signals
    /// `loopEnded`.
    func readLoop(_ loop: ReadLoop) -> ReadLoop.End {
        reading: while !stopping.load(ordering: .acquiring) && !output.isBroken {
            switch output.waitForInput(on: input, idleTimeoutMs: loop.idleArmed ? loop.idleMs : -1) {
            case .ready:
                break
            case .outputClosed:
                break reading  // the client closed its end of the output
            case .idle:
                // Idle means no request in flight either; a running one re-checks at the next timeout.
                if !hasJobs {
                    loop.idleArmed = false
                    options.onIdle?()
                }
                continue reading
            }
            loop.idleArmed = loop.idleMs >= 0
            let n = read(input, loop.chunk.baseAddress, loop.chunk.count)
            if n < 0 {
                if errno == EINTR { continue }
                logger.error("reading input failed: errno \(errno)")
                break
            }
            if n == 0 { break }
            loop.decoder.append(UnsafeRawBufferPointer(rebasing: loop.chunk[0..<n]))
            let corked = output.cork()
            while let event = loop.decoder.next() {
                // Input was ended meanwhile (`endInput`): the rest of what was read is dropped.
                if stopping.load(ordering: .acquiring) { break }
                // Another message follows: the deferred handler starts now, on the pool.
                if let job = loop.deferred { loop.deferred = nil; start(job) }
                if !loop.framingKnown, let f = loop.decoder.framing {
                    loop.framingKnown = true
                    output.setFraming(f)
                    logger.debug("framing: \(f.rawValue)")
                }
                switch event {
                case .message(let range):
                    loop.decoder.withBody(range) { handle(body: $0, loop: loop) }
                case .fault(let fault):
                    logger.warning("framing fault: \(fault)")
                    output.send(OutgoingMessage.error(id: nil, .framing(fault)))
                }
                if stopping.load(ordering: .acquiring) || output.isBroken { break }
            }
            if corked { output.uncork() }
            if let job = loop.deferred {
                loop.deferred = nil
                // Only when nothing waits in the pool: run now, the handler would overtake
                // requests that arrived before it (the pool starts work in submission order).
                // And only when the pool has room: taking reading over needs a thread, and a
                // handler that could not have had one must not get the reading thread's instead.
                if !stopping.load(ordering: .acquiring) && !output.isBroken && !inputWaiting() && pool.hasRoom
                    && rescue.isAvailable(takeOver: { [self] in handOver(loop) }) {
                    if rescue.guarded({ execute(job) }) == .handedOff { return .handedOff }
                } else {
                    start(job)
                }
            }
            output.waitWhileStalled()
        }
        return .ended
    }

    /// Runs for the rescuer once it has taken reading away from a thread stuck in a handler:
    /// reading goes on on a pool thread, always found at once. When none can be started, the
    /// rescuer's own thread reads on, and no handler runs on a reading thread any more.
    private func handOver(_ loop: ReadLoop) {
        let refused = pool.submit(urgent: true) { [self] in if readLoop(loop) == .ended { loopEnded.signal() } }
        guard let refused else { return }
        logger.warning("no thread to hand reading to (\(RPCError.busy(refused).message)): the rescuer reads on")
        rescue.retire()
        if readLoop(loop) == .ended { loopEnded.signal() }
    }

    /// Whether input can be read at once (or has ended).
    private func inputWaiting() -> Bool {
        var p = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }
}
