extension Timestamp {
    /// Nanoseconds since 1970 of an ISO 8601 time in UTC or with an offset:
    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (what `iso8601(nanos:)` writes, and what clients
    /// send back); `nil` for anything else or a time outside `Int64` nanoseconds.
    public static func nanos(iso8601 text: String) -> Int64? {
        let b = Array(text.utf8)
        func num(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var v: Int64 = 0
            for c in b[from..<from + count] {
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
              let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
              let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var frac: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48 && b[i] <= 57 {
                if digits < 9 { frac = frac * 10 + Int64(b[i] - 48); digits += 1 }
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { frac *= 10 }
        }
        var offset: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45, let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = num(i + 4, 2) {
            offset = (oh * 60 + om) * 60 * (b[i] == 43 ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        // Howard Hinnant's days_from_civil.
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let secs = days * 86_400 + h * 3600 + mi * 60 + s - offset
        let (n, o1) = secs.multipliedReportingOverflow(by: 1_000_000_000)
        let (t, o2) = n.addingReportingOverflow(frac)
        return o1 || o2 ? nil : t
    }
}
