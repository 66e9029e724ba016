#if canImport(Glibc)
import SystemSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Lets the reading thread run one request's handler itself without ever stalling reading.
///
/// The reading thread publishes the handler's start time (`guarded`) and runs it. The rescuer,
/// a thread of the connection's own, looks every `tick`: once a handler has run on the reading
/// thread for `patience` and input is waiting (a message, end of input), it takes reading away
/// and hands it to a pool thread; when the handler returns first, the reading thread simply
/// reads on. The two decide by one compare-and-exchange on the start time, so exactly one of
/// them owns the read loop afterwards. Nothing is woken per request (on a virtual machine a
/// wake-up costs tens of microseconds, more than a small `loadFile`): the rescuer parks after
/// `idleTicks` looks without a guarded handler, and only a handler that starts while it is
/// parked wakes it (`WatchdogPark`). So a handler stuck for ever (a hung mount) delays the next message by
/// about `patience` + `tick`, and the common case costs two atomic operations.
final class ReaderRescue: Sendable {
    enum Outcome { case stillReading, handedOff }

    static let tickMicros: UInt32 = 500
    static let patienceNanos: UInt64 = 1_000_000
    /// Ticks with no guarded handler before the rescuer parks (0.1 s).
    static let idleTicks = 200

    /// The monotonic start time of the guarded handler; 0 while none runs.
    private let running = Atomic<UInt64>(0)
    private let park = WatchdogPark()
    private let started = Atomic<Bool>(false)
    /// Set when the rescuer could not be started, or has become the reader itself (no thread
    /// was to be had for reading): from then on no handler runs on the reading thread.
    private let unavailable = Atomic<Bool>(false)
    private let input: Int32

    init(input: Int32) { self.input = input }

    deinit { park.release() }

    /// Whether a handler may run on the reading thread (`guarded`): the rescuer runs, or is
    /// started now (`takeOver` is what it calls to hand reading on). False when its thread
    /// cannot be started: handlers then go to the pool, as they would without the rescuer.
    func isAvailable(takeOver: @escaping @Sendable () -> Void) -> Bool {
        if !started.load(ordering: .relaxed), !started.exchange(true, ordering: .relaxed) {
            do {
                try startRescuer(takeOver)
            } catch {
                unavailable.store(true, ordering: .relaxed)
            }
        }
        return !unavailable.load(ordering: .relaxed)
    }

    /// The rescuer has become the reader (see `isAvailable`): no more handlers on the reading thread.
    func retire() { unavailable.store(true, ordering: .relaxed) }

    /// Runs `body` (a handler) on the reading thread, once `isAvailable` said so. Returns
    /// `handedOff` when the rescuer took reading away meanwhile (it called `takeOver`, which
    /// runs the read loop on another thread): the caller must not touch the read loop again.
    func guarded(_ body: () -> Void) -> Outcome {
        let stamp = max(MonotonicClock.nanos(), 1)
        running.store(stamp, ordering: .sequentiallyConsistent)
        park.writeStarted()
        body()
        return running.compareExchange(expected: stamp, desired: 0, ordering: .sequentiallyConsistent).exchanged
            ? .stillReading : .handedOff
    }

    /// Ends the rescuer (the read loop has ended).
    func stop() { park.release() }

    private func startRescuer(_ takeOver: @escaping @Sendable () -> Void) throws(OSThread.StartError) {
        let input = self.input
        try OSThread.detach { [weak self] in
            var idle = 0
            while true {
                usleep(Self.tickMicros)
                guard let rescue = self else { return }
                let stamp = rescue.running.load(ordering: .sequentiallyConsistent)
                if stamp == 0 {
                    idle += 1
                    if idle >= Self.idleTicks {
                        idle = 0
                        let busy = { [weak rescue] in (rescue?.running.load(ordering: .sequentiallyConsistent) ?? 1) != 0 }
                        guard rescue.park.park(unless: busy) else { return }
                    }
                    continue
                }
                idle = 0
                guard MonotonicClock.nanos() &- stamp >= Self.patienceNanos else { continue }
                var p = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 0) > 0 else { continue }
                if rescue.running.compareExchange(expected: stamp, desired: 0, ordering: .sequentiallyConsistent).exchanged {
                    takeOver()
                }
            }
        }
    }
}
