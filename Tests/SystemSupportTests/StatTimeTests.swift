#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import Testing

@Suite("Stat times")
struct StatTimeTests {
    @Test("a timespec is whole seconds and nanoseconds, clamped to Int64 at both ends", arguments: [
        (0, 0, Int64(0)),
        (1, 5, Int64(1_000_000_005)),
        (1_700_000_000, 999_999_999, Int64(1_700_000_000_999_999_999)),
        (-1, 500_000_000, Int64(-500_000_000)),               // half a second before 1970
        (-2_208_988_800, 0, Int64(-2_208_988_800_000_000_000)),  // 1900
        (9_223_372_036, 854_775_807, Int64.max),                 // the last nanosecond there is
        (9_223_372_036, 854_775_808, Int64.max),                 // one past it: the nanoseconds carry over
        (10_413_792_000, 0, Int64.max),                          // 2300
        (-9_223_372_037, 0, Int64.min),                          // before 1677
    ])
    func arithmetic(_ seconds: Int, _ nanos: Int, _ expected: Int64) {
        let ts = timespec(tv_sec: time_t(seconds), tv_nsec: nanos)
        #expect(ts.nanoseconds == expected)
    }

    @Test("a file's modification time reads back to the nanosecond; one dated 2300 as the latest time, no trap")
    func realFile() throws {
        var template = Array("/tmp/stattime-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { close(fd); unlink(path) }

        for (seconds, nanos, expected) in [(1_000_000_000, 123_456_789, Int64(1_000_000_000_123_456_789)),
                                           (10_413_792_000, 0, Int64.max)] {
            let t = timespec(tv_sec: time_t(seconds), tv_nsec: nanos)
            var times = [t, t]
            try #require(futimens(fd, &times) == 0)
            var st = stat()
            try #require(fstat(fd, &st) == 0)
            #expect(st.modifiedNanos == expected)
            #if canImport(Darwin)
            #expect(st.createdNanos != nil)
            #else
            #expect(st.createdNanos == nil)
            #endif
        }
    }

    @Test("the wall clock agrees with time(2)")
    func wallClock() {
        let before = Int64(time(nil))
        let nanos = WallClock.nanos()
        let after = Int64(time(nil))
        #expect(nanos / 1_000_000_000 >= before && nanos / 1_000_000_000 <= after)
    }
}
