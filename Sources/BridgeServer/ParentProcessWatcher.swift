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
            if isAlive(pid) { return }
            logger.notice("process \(pid) from initialize has exited: exiting")
            timer.cancel()
            onDeath()
        }
        timer.resume()
    }

    /// Alive means it exists and is not a zombie (a dead child its parent has not reaped yet
    /// still answers `kill(pid, 0)`).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &buf, buf.count)
        guard n > 0, let close = buf[0..<n].lastIndex(of: UInt8(ascii: ")")), close + 2 < n else { return true }
        return buf[close + 2] != UInt8(ascii: "Z")
        #else
        return true
        #endif
    }
}
