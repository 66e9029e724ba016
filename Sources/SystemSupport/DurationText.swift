extension Duration {
    /// The duration in whole nanoseconds; 0 for a negative one, the largest value for one too long.
    public var clampedNanoseconds: UInt64 {
        let (s, atto) = components
        guard s >= 0, atto >= 0 else { return 0 }
        let (whole, overflow) = UInt64(s).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(atto / 1_000_000_000)
    }

    /// Seconds for a message: "10" when whole, else one decimal, rounded ("0.3").
    public var secondsText: String {
        let n = clampedNanoseconds
        return n % 1_000_000_000 == 0 ? String(n / 1_000_000_000) : Decimal1.text(Double(n) / 1e9)
    }
}

/// A number with one decimal ("12.3"), without Foundation.
public enum Decimal1 {
    public static func text(_ x: Double) -> String {
        let tenths = Int((max(0, x) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
