/// The names the stores give sessions, messages, checkpoints and temp files, and the rule a
/// name read back from a client or a folder must follow.
enum SessionNames {
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
