#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the code base starts an OS thread: detached, with a 1 MiB stack, running a
/// closure. Everything that needs its own thread (the worker pool, the output watchdog, the
/// watcher, the parent-process watch, `Parallel`) goes through here.
public enum OSThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread; a process that cannot start one stops here.
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        let rc = tryDetach(body)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Starts `body` on a new detached thread. Returns 0, or the `pthread_create` error (then
    /// `body` never runs), for callers that have something else to do then.
    public static func tryDetach(_ body: @escaping @Sendable () -> Void) -> Int32 {
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
