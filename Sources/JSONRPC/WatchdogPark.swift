import Dispatch
import Synchronization

/// Where `OutputChannel`'s stall watchdog waits while no write is under way, so that an idle
/// server has no thread waking up on a timer.
///
/// The watchdog parks after `idleTicks` checks in a row found no write; the first write that
/// starts afterwards wakes it (one atomic load per write otherwise). Lost wake-ups are ruled
/// out Dekker-style: the writer publishes `writeStarted` and then reads `parked`, the watchdog
/// publishes `parked` and then reads `writeStarted`, all sequentially consistent, so at least
/// one of them sees the other. `release` (the channel's deinit) ends a parked watchdog.
final class WatchdogPark: Sendable {
    /// Idle checks in a row before the watchdog parks (with the default 60 s stall timeout a
    /// check is once a second).
    static let idleTicks = 5

    private let parked = Atomic<Bool>(false)
    private let released = Atomic<Bool>(false)
    private let semaphore = DispatchSemaphore(value: 0)

    /// Called by a writer right after it has published the start of a write.
    func writeStarted() {
        if parked.load(ordering: .sequentiallyConsistent), parked.exchange(false, ordering: .sequentiallyConsistent) {
            semaphore.signal()
        }
    }

    /// Waits until a write starts, unless `writing()` (read after parking) says one has
    /// already. Returns false when the channel has gone (the watchdog ends).
    func park(unless writing: () -> Bool) -> Bool {
        parked.store(true, ordering: .sequentiallyConsistent)
        if writing() || released.load(ordering: .sequentiallyConsistent) {
            // Un-park ourselves; if a writer (or release) already did, its signal is on the way.
            if !parked.exchange(false, ordering: .sequentiallyConsistent) { semaphore.wait() }
        } else {
            semaphore.wait()
        }
        return !released.load(ordering: .sequentiallyConsistent)
    }

    /// Ends the watchdog, parked or not.
    func release() {
        released.store(true, ordering: .sequentiallyConsistent)
        if parked.exchange(false, ordering: .sequentiallyConsistent) { semaphore.signal() }
    }
}
