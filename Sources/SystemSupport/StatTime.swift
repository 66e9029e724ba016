#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension timespec {
    /// The time as nanoseconds in an `Int64` (since 1970 for wall-clock and file times),
    /// clamped to `Int64.min ... Int64.max` (years 1677 to 2262) instead of trapping: a file
    /// dated 2300 reads as the latest time there is, never as a crash. The one place
    /// `tv_sec`/`tv_nsec` become nanoseconds (clocks, file identities, file statuses).
    public var nanoseconds: Int64 {
        let (whole, overflow) = Int64(tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return tv_sec < 0 ? .min : .max }
        let (sum, carry) = whole.addingReportingOverflow(Int64(tv_nsec))
        if carry { return tv_nsec < 0 ? .min : .max }
        return sum
    }
}

extension stat {
    /// The last modification (`st_mtim`; `st_mtimespec` on Apple), as clamped nanoseconds.
    public var modifiedNanos: Int64 {
        #if canImport(Darwin)
        st_mtimespec.nanoseconds
        #else
        st_mtim.nanoseconds
        #endif
    }

    /// The creation (birth) time where `stat` carries one (Apple's `st_birthtimespec`); nil on Linux.
    public var createdNanos: Int64? {
        #if canImport(Darwin)
        st_birthtimespec.nanoseconds
        #else
        nil
        #endif
    }
}
