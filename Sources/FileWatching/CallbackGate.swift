#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock between a watcher's thread and `stop()`.
///
/// Callbacks run while the (recursive) lock is held and only while not stopped, so once
/// `stop()` has taken the lock and set the flag, no callback is running and none will start.
/// Being recursive, it lets a callback call `stop()` on its own watcher.
final class CallbackGate: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var stopped = false  // guarded by mutex

    init() {
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attr)
        pthread_mutexattr_destroy(&attr)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    var isStopped: Bool { withLock { stopped } }

    /// Runs `callback` under the lock unless stopped.
    func deliver(_ callback: () -> Void) {
        withLock { if !stopped { callback() } }
    }

    /// Sets the flag; `firstTime` runs under the lock only on the call that set it.
    /// Returns whether this call stopped the gate.
    @discardableResult
    func stop(_ firstTime: () -> Void = {}) -> Bool {
        withLock {
            if stopped { return false }
            stopped = true
            firstTime()
            return true
        }
    }
}
