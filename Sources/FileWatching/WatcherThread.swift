#if os(Linux)
import Glibc

/// Starts the one detached OS thread the Linux watcher runs on (the technique of `JSONRPC.OSThread`,
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
        var tid = pthread_t()
        let rc = pthread_create(&tid, &attr, { arg in
            Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
            return nil
        }, box)
        pthread_attr_destroy(&attr)
        if rc != 0 { Unmanaged<Box>.fromOpaque(box).release() }
        return rc
    }
}
#endif
