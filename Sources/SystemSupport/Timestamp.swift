/// The one ISO 8601 formatter: UTC with milliseconds, always 24 bytes
/// ("2026-11-22T11:20:00.123Z"), for file times, session times and settings clocks alike.
///
/// Integer civil-date arithmetic (Howard Hinnant's `civil_from_days`): thread-safe, no locale,
/// and far cheaper than `gmtime_r`, since listings format one per entry. Floor division, so a
/// time before 1970 counts back from the earlier millisecond. Every `Int64` of nanoseconds
/// (years 1677 to 2262) has a four-digit year.
public enum Timestamp {
    public static let length = 24

    public static func iso8601(nanos: Int64) -> String {
        String(unsafeUninitializedCapacity: length) { b in
            write(nanos: nanos, into: b)
            return length
        }
    }

    /// Writes the 24 bytes of `iso8601(nanos:)` at the start of `b` (at least 24 bytes long).
    public static func write(nanos: Int64, into b: UnsafeMutableBufferPointer<UInt8>) {
        var secs = nanos / 1_000_000_000
        var sub = nanos % 1_000_000_000
        if sub < 0 { sub += 1_000_000_000; secs -= 1 }
        let ms = Int(sub / 1_000_000)
        var days = Int(secs) / 86_400
        var rem = Int(secs) % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func put(_ v: Int, _ width: Int, at i: Int) {
            var v = v
            for k in stride(from: i + width - 1, through: i, by: -1) {
                b[k] = UInt8(48 + v % 10)
                v /= 10
            }
        }
        put(year, 4, at: 0); b[4] = 45
        put(month, 2, at: 5); b[7] = 45
        put(day, 2, at: 8); b[10] = 84
        put(rem / 3600, 2, at: 11); b[13] = 58
        put(rem / 60 % 60, 2, at: 14); b[16] = 58
        put(rem % 60, 2, at: 17); b[19] = 46
        put(ms, 3, at: 20); b[23] = 90
    }

    /// The nanoseconds since 1970 of an ISO 8601 UTC time as `iso8601(nanos:)` writes it
    /// (`YYYY-MM-DDTHH:MM:SS` then optional `.` and 1 to 9 digits, then `Z`); nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b.last == 90 else { return nil }
        func num(_ i: Int, _ n: Int) -> Int? {
            var v = 0
            for k in i..<i + n {
                guard b[k] >= 48 && b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            return v
        }
        guard let y = num(0, 4), let m = num(5, 2), let d = num(8, 2), let hh = num(11, 2), let mm = num(14, 2),
              let ss = num(17, 2), (1...12).contains(m), (1...31).contains(d), hh < 24, mm < 60, ss < 61 else { return nil }
        var frac: Int64 = 0
        if b.count > 20 {
            let digits = b.count - 21
            guard b[19] == 46, (1...9).contains(digits), let f = num(20, digits) else { return nil }
            frac = Int64(f)
            for _ in digits..<9 { frac *= 10 }
        } else if b.count != 20 {
            return nil
        }
        // days_from_civil (Howard Hinnant), the inverse of `write`'s civil_from_days.
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = Int64(era * 146_097 + doe - 719_468)
        let secs = days * 86_400 + Int64(hh * 3600 + mm * 60 + ss)
        let (n, overflow) = secs.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (t, o2) = n.addingReportingOverflow(frac)
        return o2 ? nil : t
    }
}
