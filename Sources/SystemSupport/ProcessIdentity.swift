#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names one running process so that a later, unrelated process given the same pid (pids are
/// reused) is told apart: the pid plus the moment the kernel started that process.
///
/// Guarantees: `of(pid)` is nil when no such process runs (or it is a zombie: ended, not yet
/// reaped); the same process always gives an equal value; another process with the same pid
/// gives a different one (its start time differs; on Linux the boot id is part of it, so a
/// reboot never makes an old record match). Where the start time cannot be learned (another
/// pid namespace hides the process, or an OS without either source), the process is unknown.
public struct ProcessIdentity: Sendable, Equatable {
    public let pid: Int32
    /// Linux: `<boot id>/<start time in clock ticks since boot>` (`/proc/<pid>/stat` field 22);
    /// Apple: `<seconds>.<microseconds>` of the start (`sysctl` `KERN_PROC_PID`'s `p_starttime`).
    public let start: String

    public init(pid: Int32, start: String) {
        self.pid = pid
        self.start = start
    }

    /// This process.
    public static var current: ProcessIdentity? { of(getpid()) }

    /// The running process `pid` is now; nil when none (or a zombie) or unknown.
    public static func of(_ pid: Int32) -> ProcessIdentity? {
        guard pid > 0 else { return nil }
        #if os(Linux)
        guard let fields = statFields(pid), fields.count > 19, fields[0] != "Z" else { return nil }
        return ProcessIdentity(pid: pid, start: bootID + "/" + fields[19])
        #elseif canImport(Darwin)
        var info = kinfo_proc()
        var size = MemoryLayout<kinfo_proc>.stride
        var mib: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, pid]
        guard sysctl(&mib, 4, &info, &size, nil, 0) == 0, size > 0, Int32(info.kp_proc.p_stat) != SZOMB else { return nil }
        let t = info.kp_proc.p_un.__p_starttime  // `p_starttime` is a C macro for this member
        return ProcessIdentity(pid: pid, start: "\(t.tv_sec).\(t.tv_usec)")
        #else
        return nil
        #endif
    }

    /// Whether this very process still runs.
    public var isRunning: Bool { Self.of(pid) == self }

    #if os(Linux)
    /// The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and
    /// parentheses): `[0]` is the state (field 3), `[19]` the start time (field 22); nil when
    /// there is no such process.
    public static func statFields(_ pid: Int32) -> [String]? {
        guard case .bytes(let bytes) = BoundedFile.read("/proc/\(pid)/stat", .processStatus),
              let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        return bytes[(close + 1)...].split(whereSeparator: { $0 == 0x20 || $0 == 0x0A }).map { String(decoding: $0, as: UTF8.self) }
    }

    /// This boot's id (`/proc/sys/kernel/random/boot_id`), "" when unreadable.
    private static let bootID: String = {
        guard case .bytes(let b) = BoundedFile.read("/proc/sys/kernel/random/boot_id", .processStatus) else { return "" }
        return String(decoding: b, as: UTF8.self).filter { !$0.isWhitespace }
    }()
    #endif
}
