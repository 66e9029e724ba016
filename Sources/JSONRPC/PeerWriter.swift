#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON
import Synchronization
import SystemSupport

/// One output of a `Peer`: a queue of encoded messages and the one thread that writes them.
///
/// Guarantees: `enqueue` never waits for the other side to read (a pipe that is full holds up
/// this writer only, never the thread that enqueues); messages leave whole, in enqueue order,
/// each batch with one `write` when it fits `OutputChannel.corkLimit`. The queue is bounded by
/// whoever enqueues: `waitForRoom` waits while more than `limit` bytes are queued, which is how a
/// reader stops reading its own input while the side it forwards to reads nothing. After the
/// other side has gone (EPIPE), output is discarded and `waitForRoom` no longer waits.
final class PeerWriter: Sendable {
    private struct State {
        var queue: [[UInt8]] = []
        var bytes = 0
        var closing = false
    }

    let limit: Int
    private let channel: OutputChannel
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the writer thread on `fd`; `onDone` runs on it once `close` has drained the queue.
    init(fd: Int32, limit: Int, onDone: @escaping @Sendable () -> Void) throws {
        self.limit = limit
        channel = OutputChannel(fd: fd, framing: .ndjson)
        try OSThread.detach { [self] in
            while true {
                wake.wait()
                let (batch, closing) = state.withLock { s -> ([[UInt8]], Bool) in
                    defer { s.queue.removeAll(keepingCapacity: true) }
                    return (s.queue, s.closing)
                }
                if !batch.isEmpty {
                    let corked = channel.cork()
                    var sent = 0
                    for body in batch {
                        channel.send(encoded: body)
                        sent += body.count
                    }
                    if corked { channel.uncork() }
                    state.withLock { $0.bytes -= sent }
                }
                if closing && state.withLock({ $0.queue.isEmpty }) { break }
            }
            channel.close()
            onDone()
            finished.signal()
        }
    }

    /// Queues one message (dropped once `close` was called or the other side has gone).
    func enqueue(_ message: JSON) {
        let body = JSONCodec.encode(message)
        // Only the first message after the writer took the queue wakes it: the rest join it,
        // so a burst costs one wake-up, not one per message.
        let wakeWriter = state.withLock { s -> Bool in
            guard !s.closing, !channel.isBroken else { return false }
            s.queue.append(body)
            s.bytes += body.count
            return s.queue.count == 1
        }
        if wakeWriter { wake.signal() }
    }

    /// Bytes queued and not yet written.
    var queuedBytes: Int { state.withLock { $0.bytes } }

    /// Waits while more than `limit` bytes are queued (returns at once once the other side is gone).
    func waitForRoom() {
        while state.withLock({ $0.bytes }) > limit && !channel.isBroken { usleep(200) }
    }

    /// Writes what is queued, then nothing more; with `wait`, returns once the writer thread has
    /// ended (everything written, or the other side gone). Idempotent.
    func close(wait: Bool) {
        let first = state.withLock { s -> Bool in
            defer { s.closing = true }
            return !s.closing
        }
        if first { wake.signal() }
        if wait {
            finished.wait()
            finished.signal()  // for a later caller
        }
    }
}
