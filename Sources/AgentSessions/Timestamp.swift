#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock times and identifiers, without Foundation.
public enum Timestamp {
    /// The system's wall clock in nanoseconds since 1970: the default clock of the stores.
    public static func wallClockNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// `2025-01-02T03:04:05.678Z` (UTC, milliseconds).
    public static func iso8601(_ nanos: Int64) -> String {
        let ms = nanos >= 0 ? nanos / 1_000_000 : (nanos - 999_999) / 1_000_000
        let secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let milli = Int(ms - secs * 1000)
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let sod = Int(secs - days * 86400)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        let y = Int(yoe + era * 400) + (m <= 2 ? 1 : 0)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(sod / 3600, 2) + ":"
            + pad(sod / 60 % 60, 2) + ":" + pad(sod % 60, 2) + "." + pad(milli, 3) + "Z"
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// `prefix` followed by 16 random lowercase hex digits.
    static func randomId(_ prefix: String) -> String {
        var g = SystemRandomNumberGenerator()
        return prefix + hex64(g.next())
    }

    static func hex64(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// Whether `id` can name a folder safely: 1 to 128 of `[A-Za-z0-9._-]`, not starting with a dot.
    static func isSafeName(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, id.utf8.first != UInt8(ascii: ".") else { return false }
        return id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ".")
        }
    }
}
