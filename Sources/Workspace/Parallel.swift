#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body(worker)` on `count` OS threads (the caller's thread is one of them) and returns
/// when all have finished.
public enum Parallel {
    private final class Box { let body: () -> Void; init(_ b: @escaping () -> Void) { body = b } }

    public static var cores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    public static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else { body(0); return }
        #if canImport(Glibc)
        var threads: [pthread_t] = []
        #else
        var threads: [pthread_t?] = []
        #endif
        for w in 1..<count {
            let box = Unmanaged.passRetained(Box { body(w) }).toOpaque()
            #if canImport(Glibc)
            var t = pthread_t()
            #else
            var t: pthread_t?
            #endif
            let rc = pthread_create(&t, nil, { arg in
                Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
                return nil
            }, box)
            if rc == 0 { threads.append(t) } else { Unmanaged<Box>.fromOpaque(box).release(); body(w) }
        }
        body(0)
        for t in threads {
            #if canImport(Glibc)
            pthread_join(t, nil)
            #else
            pthread_join(t!, nil)
            #endif
        }
    }
}
