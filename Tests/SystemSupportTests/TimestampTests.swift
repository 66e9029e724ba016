#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import Testing

@Suite("Timestamps")
struct TimestampTests {
    @Test("ISO 8601 UTC with milliseconds", arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(951_782_400_123_456_789), "2000-02-29T00:00:00.123Z"),
        (Int64(1_750_000_000_999_000_000), "2025-06-15T15:06:40.999Z"),
        (Int64(-1_000_000), "1969-12-31T23:59:59.999Z"),
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
        (Int64.max, "2262-04-11T23:47:16.854Z"),
        (Int64.min, "1677-09-21T00:12:43.145Z"),
    ])
    func examples(_ nanos: Int64, _ expected: String) {
        #expect(Timestamp.iso8601(nanos: nanos) == expected)
    }

    @Test("agree with gmtime across leap years, centuries, negative times and milliseconds")
    func matchGmtime() {
        var rng = SystemRandomNumberGenerator()
        var samples: [Int64] = [0, -1, 951_782_400, 4_107_542_399, -2_208_988_800, 1_700_000_000, 9_000_000_000]
        for _ in 0..<2000 { samples.append(Int64.random(in: -2_208_988_800...4_102_444_800, using: &rng)) }
        for secs in samples {
            let ms = Int64.random(in: 0...999, using: &rng)
            var t = time_t(secs)
            var tm = tm()
            gmtime_r(&t, &tm)
            func pad(_ v: Int32, _ w: Int) -> String { let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s }
            let want = "\(pad(tm.tm_year + 1900, 4))-\(pad(tm.tm_mon + 1, 2))-\(pad(tm.tm_mday, 2))T\(pad(tm.tm_hour, 2)):\(pad(tm.tm_min, 2)):\(pad(tm.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
            #expect(Timestamp.iso8601(nanos: secs * 1_000_000_000 + ms * 1_000_000 + 123) == want, "\(secs)")
        }
    }

    @Test("the wall clock is the system's, and the monotonic clock never goes back")
    func clocks() {
        let wall = WallClock.nanos()
        #expect(abs(wall / 1_000_000_000 - Int64(time(nil))) <= 1)
        var last = MonotonicClock.nanos()
        for _ in 0..<1000 {
            let now = MonotonicClock.nanos()
            #expect(now >= last)
            last = now
        }
    }

    @Test("parse is the inverse of iso8601 (to the millisecond), takes 0 to 9 fraction digits, and refuses what it does not know")
    func parseRoundTrip() {
        for n: Int64 in [0, 1_700_000_000_123_000_000, -86_400_000_000_000 + 5_000_000, 951_782_400_000_000_000, 4_102_444_799_999_000_000] {
            #expect(Timestamp.parse(Timestamp.iso8601(nanos: n)) == n, "\(n)")
        }
        #expect(Timestamp.parse("2026-11-28T01:02:03Z") == 1_795_827_723_000_000_000)
        #expect(Timestamp.parse("2026-11-28T01:02:03.5Z") == 1_795_827_723_500_000_000)
        #expect(Timestamp.parse("2026-11-28T01:02:03.123456789Z") == 1_795_827_723_123_456_789)
        for bad in ["", "2026-11-28", "2026-11-28T01:02:03", "2026-13-01T00:00:00Z", "2026-11-28T01:02:03.Z",
                    "2026-11-28T01:02:03+01:00", "2026-11-28 01:02:03Z", "2026-11-28T01:02:03.1234567890Z"] {
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
    }
}

