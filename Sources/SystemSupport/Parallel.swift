#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Runs `body(worker)` on `count` threads (the caller's thread is one of them) and returns
/// when all have finished. A thread that cannot be started runs its part on the caller's.
public enum Parallel {
    public static var cores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    public static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else { body(0); return }
        let done = DispatchGroup()
        for w in 1..<count {
            done.enter()
            do {
                try OSThread.detach { body(w); done.leave() }
            } catch {
                body(w)
                done.leave()
            }
        }
        body(0)
        done.wait()
    }
}
