#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import Dispatch
import JSONRPC
import Logging
import SystemSupport

/// Ends the server when the process that started it (the `initialize` `processId`) dies,
/// so an editor that crashes never leaves a server behind.
///
/// Without waking up while the process lives: on Linux a thread waits in `poll` on a pidfd,
/// which becomes readable when the process exits; on Apple systems a Dispatch process source
/// reports the exit. Only where neither exists (a kernel before 5.3) is the process checked
/// every `interval` milliseconds.
enum ParentProcessWatcher {
    static func watch(pid: Int32, everyMilliseconds interval: Int, logger: Logger, onDeath: @escaping @Sendable () -> Void) {
        let died: @Sendable () -> Void = {
            logger.notice("process \(pid) from initialize has exited: exiting")
            onDeath()
        }
        #if os(Linux)
        let fd = wb_pidfd_open(pid)
        if fd >= 0 {
            do {
                try OSThread.detach {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    var n: Int32
                    repeat { n = poll(&p, 1, -1) } while n < 0 && errno == EINTR
                    close(fd)
                    if n > 0 { died() } else { checkPeriodically(pid, everyMilliseconds: interval, died: died) }
                }
                return
            } catch {
                // No thread to wait on: checked on a timer instead.
                close(fd)
            }
        }
        // No pidfd (or no such process: then the first check finds it gone, after initialize is answered).
        checkPeriodically(pid, everyMilliseconds: interval, died: died)
        #elseif canImport(Darwin)
        let source = DispatchSource.makeProcessSource(identifier: pid, eventMask: .exit,
                                                      queue: DispatchQueue(label: "workspace-bridge.parent-watch"))
        source.setEventHandler {
            source.cancel()
            died()
        }
        source.resume()
        if !isAlive(pid) {  // it ended before the source was set up: the first check finds it gone
            source.cancel()
            checkPeriodically(pid, everyMilliseconds: interval, died: died)
        }
        #else
        checkPeriodically(pid, everyMilliseconds: interval, died: died)
        #endif
    }

    /// The fallback: checks the process every `interval` milliseconds.
    private static func checkPeriodically(_ pid: Int32, everyMilliseconds interval: Int, died: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "workspace-bridge.parent-watch")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(interval), repeating: .milliseconds(interval),
                       leeway: .milliseconds(interval / 4))
        timer.setEventHandler {
            if isAlive(pid) { return }
            timer.cancel()
            died()
        }
        timer.resume()
    }

    /// Alive means it exists and is not a zombie (a dead child its parent has not reaped yet
    /// still answers `kill(pid, 0)`).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
        guard let fields = ProcessIdentity.statFields(pid) else { return true }
        return fields.first != "Z"
        #else
        return true
        #endif
    }
}
