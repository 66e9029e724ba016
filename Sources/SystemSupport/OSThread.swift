#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the code base starts an OS thread: detached, with a 1 MiB stack, running a
/// closure. Everything that needs its own thread (the worker pool, the output watchdog, the
/// watcher, the parent-process watch, `Parallel`) goes through here.
///
/// Starting a thread can fail (a task limit: `ulimit -u`, systemd `TasksMax`, a cgroup's
/// `pids.max`, or memory): `detach` then throws `StartError` and `body` never runs. It never
/// stops the process; each caller says what it does without the thread (answers a typed
/// error, runs the work itself, or goes on without the optional service).
public enum OSThread {
    /// A thread could not be started: `errno` is `pthread_create`'s error (`EAGAIN` at a task
    /// limit).
    public struct StartError: Error, Sendable, Equatable, CustomStringConvertible {
        public let errno: Int32
        public init(errno: Int32) { self.errno = errno }
        public var description: String { "cannot start a thread: \(String(cString: strerror(errno))) (errno \(errno))" }
    }

    /// How a thread is started; tests substitute one that fails.
    public typealias Starter = @Sendable (_ body: @escaping @Sendable () -> Void) throws(StartError) -> Void

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread, or throws (and `body` never runs).
    public static func detach(_ body: @escaping @Sendable () -> Void) throws(StartError) {
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
            guard let arg else { return nil }
            Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().body()
            return nil
        }, box)
        pthread_attr_destroy(&attr)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw StartError(errno: rc)
        }
    }

    /// The default `Starter`: `detach`.
    public static let start: Starter = { body throws(StartError) in try detach(body) }
}
