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

    /// What each placeholder stands for, in tree order: a string to escape, or JSON text
    /// already written (by jansson: see `JSONCodec`'s large arrays) to copy as it is.
    enum Swapped {
        case string(String)
        case raw([UInt8])
    }

    private(set) var strings: [Swapped] = []
    /// An upper bound of the encoded size of the rest of the tree.
    var estimate = 0

    mutating func placeholder(for s: String) -> String {
        let p = "\u{1}wb\(Self.nonce)-\(strings.count)\u{1}"
        strings.append(.string(s))
        estimate += p.utf8.count * 6 + 2
        return p
    }

    /// A placeholder for JSON text that is already encoded: it is copied in as it is.
    mutating func placeholder(forEncoded bytes: [UInt8]) -> String {
        let p = "\u{1}wb\(Self.nonce)-\(strings.count)\u{1}"
        strings.append(.raw(bytes))
        estimate += p.utf8.count * 6 + 2
        return p
    }

    /// Replaces each dumped placeholder (they appear in tree order) with its escaped string.
    func splice(into dumped: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(dumped.count + strings.reduce(0) { n, swapped in
            switch swapped {
            case .string(let s): n + s.utf8.count + s.utf8.count / 8 + 16
            case .raw(let b): n + b.count
            }
        })
        var from = 0
        // A tool result carries the text it read twice (content and structured content): the
        // second copy of a string is copied from the first, not escaped again.
        var last: (string: String, range: Range<Int>)?
        dumped.withUnsafeBufferPointer { d in
            for (i, swapped) in strings.enumerated() {
                let token = Array("\"\\u0001wb\(Self.nonce)-\(i)\\u0001\"".utf8)
                guard let at = Self.find(token, in: d, from: from) else { continue }
                out.append(contentsOf: d[from..<at])
                from = at + token.count
                guard case .string(let s) = swapped else {
                    if case .raw(let bytes) = swapped { out.append(contentsOf: bytes) }
                    continue
                }
                let start = out.count
                if let last, last.string == s {
                    out.append(contentsOf: out[last.range])
                } else {
                    Self.escape(s, into: &out)
                }
                last = (s, start..<out.count)
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

    /// Appends `s` as a quoted JSON string, copying unescaped runs whole. Bytes are tested eight
    /// at a time: a word with no `"`, `\` or control byte is skipped in one step.
    static func escape(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { u in
            let n = u.count
            out.reserveCapacity(out.count + n + n / 16 + 2)
            out.append(0x22)
            guard let base = u.baseAddress else {
                out.append(0x22)
                return
            }
            var runStart = 0
            var i = 0
            while i < n {
                if i + 8 <= n {
                    let mask = escapeMask(UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)))
                    if mask == 0 {
                        i += 8
                        continue
                    }
                    // The lowest flagged byte is exactly the first one to escape.
                    i += mask.trailingZeroBitCount >> 3
                }
                let b = base[i]
                if b >= 0x20 && b != 0x22 && b != 0x5C { i += 1; continue }
                if i > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
                out.append(0x5C)
                switch b {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    out.append(UInt8(ascii: "u"))
                    out.append(0x30)
                    out.append(0x30)
                    out.append(hexDigit(b >> 4))
                    out.append(hexDigit(b & 15))
                }
                i += 1
                runStart = i
            }
            if n > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: n - runStart)) }
            out.append(0x22)
        }
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether JSON writes these UTF-8 bytes as they are, between quotes: none is below 0x20,
    /// `"` or `\` (tested eight at a time).
    static func isPlain(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = u.baseAddress else { return true }
        var i = 0
        while i + 8 <= u.count {
            if escapeMask(UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))) != 0 { return false }
            i += 8
        }
        while i < u.count {
            let b = base[i]
            if b < 0x20 || b == 0x22 || b == 0x5C { return false }
            i += 1
        }
        return true
    }

    /// Whether any byte of the word is below 0x20, `"` or `\` (exact: never false when one is;
    /// bytes of 0x80 and above never count).
    @inline(__always)
    static func mayNeedEscape(_ w: UInt64) -> Bool { escapeMask(w) != 0 }

    /// The high bit of each byte of `w` (first byte lowest) that is below 0x20, `"` or `\`.
    /// Borrows may also flag bytes above a flagged one, but the lowest flagged byte is always
    /// one of them: zero exactly when none is.
    @inline(__always)
    static func escapeMask(_ w: UInt64) -> UInt64 {
        let control = (w &- ones &* 0x20) & ~w & highs
        let q = w ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & highs
        let bs = w ^ (ones &* 0x5C)
        let backslash = (bs &- ones) & ~bs & highs
        return control | quote | backslash
    }

    @inline(__always)
    private static func hexDigit(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 + d : 0x37 + d }  // upper case, as jansson writes
}

