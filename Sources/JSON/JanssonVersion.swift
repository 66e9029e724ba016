import CJansson

/// The jansson library this process runs with, and the one it was compiled against: the two
/// differ when the system's libjansson was changed after the build (`workspace-bridge doctor`).
public enum JanssonVersion {
    /// The version of the libjansson loaded into this process (`jansson_version_str`).
    public static var running: String { String(cString: jansson_version_str()) }
    /// The version of the jansson headers this binary was compiled with.
    public static let builtAgainst: String = JANSSON_VERSION

    /// Whether `running` is older than `builtAgainst` (compared number by number).
    public static var runningIsOlder: Bool { isOlder(running, than: builtAgainst) }

    static func isOlder(_ a: String, than b: String) -> Bool {
        let x = a.split(separator: ".").map { Int($0) ?? 0 }, y = b.split(separator: ".").map { Int($0) ?? 0 }
        for i in 0..<max(x.count, y.count) {
            let p = i < x.count ? x[i] : 0, q = i < y.count ? y[i] : 0
            if p != q { return p < q }
        }
        return false
    }
}
