#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Logging

/// Ends the server when the process that started it (the `initialize` `processId`) dies,
/// so an editor that crashes never leaves a server behind.
enum ParentProcessWatcher {
    static func watch(pid: Int32, everyMilliseconds interval: Int, logger: Logger, onDeath: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "workspace-bridge.parent-watch")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(interval), repeating: .milliseconds(interval),
                       leeway: .milliseconds(interval / 4))
        timer.setEventHandler {
            if kill(pid, 0) == 0 || errno == EPERM { return }
            logger.notice("process \(pid) from initialize has exited: exiting")
            timer.cancel()
            onDeath()
        }
        timer.resume()
    }
}
