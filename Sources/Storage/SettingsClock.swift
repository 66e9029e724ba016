#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

/// A hybrid logical clock reading: wall time in milliseconds, a counter for writes within one
/// millisecond (or made after seeing a clock ahead of ours), and the writing device.
///
/// Guarantees: readings are totally ordered (wall, then counter, then device id by UTF-8
/// bytes), so every device picks the same winner for a key; a reading made by `next(after:)`
/// is greater than every reading it was given, so a write made after seeing another one always
/// beats it, even when the other device's wall clock runs ahead.
public struct SettingsClock: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var wallMs: Int64
    public var counter: Int64
    public var device: String

    public init(wallMs: Int64, counter: Int64, device: String) {
        self.wallMs = wallMs
        self.counter = counter
        self.device = device
    }

    public static func < (a: SettingsClock, b: SettingsClock) -> Bool {
        if a.wallMs != b.wallMs { return a.wallMs < b.wallMs }
        if a.counter != b.counter { return a.counter < b.counter }
        return Array(a.device.utf8).lexicographicallyPrecedes(Array(b.device.utf8))
    }

    /// The reading for a write made at `nowMs` on `device`, after having seen `latest`.
    public static func next(after latest: SettingsClock?, nowMs: Int64, device: String) -> SettingsClock {
        guard let latest, latest.wallMs >= nowMs else { return SettingsClock(wallMs: nowMs, counter: 0, device: device) }
        return SettingsClock(wallMs: latest.wallMs, counter: latest.counter + 1, device: device)
    }

    /// Milliseconds since 1970 by the system's real-time clock.
    public static func wallNow() -> Int64 { WallClock.nanos() / 1_000_000 }

    public var description: String { "\(wallMs).\(counter)@\(device)" }
}
