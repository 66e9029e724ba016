#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC: never goes back, comparable across
/// processes on one machine): for durations and deadlines.
public enum MonotonicClock {
    @Sendable public static func nanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.nanoseconds)
    }
}

/// The system's wall clock (CLOCK_REALTIME) in nanoseconds since 1970: for times people read
/// and times stored in files. It can jump; durations use `MonotonicClock`.
public enum WallClock {
    @Sendable public static func nanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ts.nanoseconds
    }
}
