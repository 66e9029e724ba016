/// The fast path for large strings in encoded output.
///
/// jansson escapes strings at about 240 MB/s here; a 1 MiB file in a `loadFile` result would
/// spend most of its time there. Strings of at least `threshold` bytes are therefore swapped for
/// unique placeholders before jansson dumps the tree, and written afterwards by `escape`, a
/// run-copying escaper several times faster. Everything else is still written by jansson.
/// Output is identical to jansson's: `"`, `\` and control characters are escaped (`\b \f \n \r \t`
/// or `\u00XX`); everything else, including non-ASCII, is copied as UTF-8.
struct BulkStrings {
    static let threshold = 1 << 10
    /// Random per process, so no user string can collide with a placeholder.
    private static let nonce: String = {
        let r = UInt64.random(in: .min ... .max)
        return String(r, radix: 36)
    }()

    private(set) var strings: [String] = []
    /// An upper bound of the encoded size of the rest of the tree.
    var estimate = 0

    mutating func placeholder(for s: String) -> String {
        let p = "\u{1}wb\(Self.nonce)-\(strings.count)\u{1}"
        strings.append(s)
        estimate += p.utf8.count * 6 + 2
        return p
    }

    /// Replaces each dumped placeholder (they appear in tree order) with its escaped string.
    func splice(into dumped: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(dumped.count + strings.reduce(0) { $0 + $1.utf8.count + $1.utf8.count / 8 + 16 })
        var from = 0
        dumped.withUnsafeBufferPointer { d in
            for (i, s) in strings.enumerated() {
                let token = Array("\"\\u0001wb\(Self.nonce)-\(i)\\u0001\"".utf8)
                guard let at = Self.find(token, in: d, from: from) else { continue }
                out.append(contentsOf: d[from..<at])
                Self.escape(s, into: &out)
                from = at + token.count
            }
            out.append(contentsOf: d[from...])
        }
        return out
    }

    private static func find(_ token: [UInt8], in d: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard let first = token.first, d.count >= token.count else { return nil }
        var i = from
        while i + token.count <= d.count {
            if d[i] == first && token.indices.allSatisfy({ d[i + $0] == token[$0] }) { return i }
            i += 1
        }
        return nil
    }

    /// Appends `s` as a quoted JSON string, copying unescaped runs whole.
    static func escape(_ s: String, into out: inout [UInt8]) {
        var s = s
        out.append(UInt8(ascii: "\""))
        s.withUTF8 { u in
            var runStart = 0
            var i = 0
            let n = u.count
            while i < n {
                let b = u[i]
                if b >= 0x20 && b != 0x22 && b != 0x5C { i += 1; continue }
                if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<i])) }
                switch b {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
                case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
                }
                i += 1
                runStart = i
            }
            if n > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<n])) }
        }
        out.append(UInt8(ascii: "\""))
    }
}

