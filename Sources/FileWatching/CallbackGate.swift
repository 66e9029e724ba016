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

/// Starts the one detached OS thread a watcher runs on (the technique of `JSONRPC.OSThread`,
/// copied so this module stays free of the protocol layers).
enum WatcherThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Returns 0, or the `pthread_create` error.
    static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attr, 1 << 20)
        #if canImport(Glibc)
        var tid = pthread_t()
        #else
        var tid: pthread_t?
        #endif
        let rc = pthread_create(&tid, &attr, { arg in
            Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
            return nil
        }, box)
        pthread_attr_destroy(&attr)
        if rc != 0 { Unmanaged<Box>.fromOpaque(box).release() }
        return rc
    }
}

/// Monotonic clock in nanoseconds.
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
