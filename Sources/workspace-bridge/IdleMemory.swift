#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import Logging

/// Gives memory back when the connection goes idle (`--idle-release-after`).
///
/// An idle server's resident memory is mostly the code it ran at startup: clean pages of the
/// binary and its libraries, mapped in 64 KiB runs at a time by the kernel's fault-around.
/// They are dropped from this process's page tables (never from the page cache), and free heap
/// is returned to the system. The cost is paid once, by the first request after the idle
/// period: its code is mapped back with minor faults (about a millisecond in all, measured in
/// Benchmarks/). Called on the reading thread with no request in flight.
enum IdleMemory {
    static func release(logger: Logger) {
        let bytes = wb_release_idle_memory()
        if bytes >= 0 {
            logger.debug("idle: released the mappings of \(bytes >> 10) KiB of code and trimmed the heap")
        } else {
            logger.debug("idle: memory not released (errno \(errno))")
        }
    }
}
