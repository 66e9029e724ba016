/// File names as text, for every byte sequence a file system can hold.
///
/// A name (or a `/`-separated path) on disk is a string of bytes; clients see text. Valid UTF-8
/// is shown as itself. Each byte that is not part of a well-formed UTF-8 sequence, and each
/// backslash, is shown as `\x` and two lowercase hex digits (`caf\xe9.txt` for the Latin-1 bytes
/// `caf` E9 `.txt`, `a\x5cb` for `a\b`). A backslash is otherwise never part of a name's text,
/// so the form cannot collide with a real UTF-8 name, and every name has exactly one text:
/// `isCanonical` refuses any other spelling (`\xc3\xa9` for `é`, `\x2f` for `/`, uppercase
/// digits), so an escape can never spell a separator, a dot segment or NUL.
///
/// One more case: a name whose percent-decoding spells path syntax (`a%2Fb`, `%2e%2e`), which
/// clients may not send as such, is written with `\x25` for each `%` (`a\x252Fb`).
///
/// Guarantees: `bytes(text(b)) == b` for every byte string `b`; `text(bytes(s)) == s` for every
/// `s` that `isCanonical` accepts. Names without a backslash, `%` or invalid byte cost one scan.
public enum EscapedName {
    static let backslash = UInt8(ascii: "\\")
    static let percent = UInt8(ascii: "%")
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// The text of the name (or path) `bytes`.
    public static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let valid = String(validating: bytes, as: UTF8.self), !valid.utf8.contains(backslash) {
            return valid.utf8.contains(percent) ? percentsEscapedIfTricky(valid) : valid
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 12)
        var i = 0
        while i < bytes.count {
            let n = bytes[i] == backslash ? 0 : wellFormedLength(bytes, at: i)
            if n == 0 {
                out.append(contentsOf: [backslash, UInt8(ascii: "x"), hexDigits[Int(bytes[i] >> 4)], hexDigits[Int(bytes[i] & 15)]])
                i += 1
            } else {
                out.append(contentsOf: bytes[i..<(i + n)])
                i += n
            }
        }
        return percentsEscapedIfTricky(String(decoding: out, as: UTF8.self))
    }

    /// A name (one component) whose percent-decoding spells path syntax keeps its `%` as `\x25`
    /// (`a\x252Fb` for the name `a%2Fb`): clients may not send such a spelling (it could trick a
    /// client that decodes twice), yet the name stays reachable.
    static func percentsEscapedIfTricky(_ text: String) -> String {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.contains(where: spellsPathSyntaxWhenDecoded) else { return text }
        return parts.map { part in
            guard spellsPathSyntaxWhenDecoded(part) else { return part }
            var out: [UInt8] = []
            for b in part.utf8 { if b == percent { out.append(contentsOf: Array("\\x25".utf8)) } else { out.append(b) } }
            return String(decoding: out, as: UTF8.self)
        }.joined(separator: "/")
    }

    /// Whether a name's percent-decoding (up to three rounds) spells a dot segment, a separator,
    /// a backslash, NUL or a leading `~`: such a spelling is refused from clients.
    public static func spellsPathSyntaxWhenDecoded(_ name: String) -> Bool {
        guard name.utf8.contains(percent) else { return false }
        var decoded = name
        for _ in 0..<3 {
            let next = percentDecoded(decoded)
            if next == decoded { break }
            decoded = next
        }
        let d = decoded.utf8
        return decoded != name
            && (d.elementsEqual("..".utf8) || d.elementsEqual(".".utf8) || d.contains(UInt8(ascii: "/")) || d.contains(backslash)
                || d.contains(0) || d.first == UInt8(ascii: "~"))
    }

    private static func percentDecoded(_ s: String) -> String {
        var out: [UInt8] = []
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == percent, i + 2 < b.count, let h = hex(b[i + 1]), let l = hex(b[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text of a NUL-terminated name.
    public static func text(cString: UnsafePointer<CChar>) -> String {
        var n = 0
        while cString[n] != 0 { n += 1 }
        return cString.withMemoryRebound(to: UInt8.self, capacity: n) { text(UnsafeBufferPointer(start: $0, count: n)) }
    }

    /// The bytes on disk that `text` names: every `\x` with two hex digits is that byte, every
    /// other character its UTF-8. Total (a stray backslash stays a backslash); only
    /// `isCanonical` texts come from clients.
    public static func bytes(_ text: String) -> [UInt8] {
        let u = Array(text.utf8)
        guard u.contains(backslash) else { return u }
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
        var i = 0
        while i < u.count {
            if u[i] == backslash, i + 3 < u.count, u[i + 1] == UInt8(ascii: "x"), let h = hex(u[i + 2]), let l = hex(u[i + 3]) {
                out.append(h << 4 | l)
                i += 4
            } else {
                out.append(u[i])
                i += 1
            }
        }
        return out
    }

    /// Whether `text` is the one text of some name: it is what `text(bytes(text))` gives.
    public static func isCanonical(_ text: String) -> Bool {
        guard text.utf8.contains(backslash) || text.utf8.contains(percent) else { return true }
        // Bytes, not `==` (which equates canonically equivalent spellings).
        return text.utf8.elementsEqual(bytes(text).withUnsafeBufferPointer { Self.text($0) }.utf8)
    }

    /// The NUL-terminated bytes on disk, for a system call (`openat(dir, name.onDisk, …)`).
    public static func cString(_ text: String) -> [CChar] {
        var out = bytes(text).map { CChar(bitPattern: $0) }
        out.append(0)
        return out
    }

    /// Calls `body` with the NUL-terminated bytes on disk, without a copy for a text that holds
    /// no backslash (the hot path of listings and searches, one `stat` per name).
    public static func withCString<R>(_ text: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        text.utf8.contains(backslash) ? body(cString(text)) : text.withCString(body)
    }

    /// How many bytes from `i` form one well-formed UTF-8 sequence (Unicode table 3-7: no
    /// overlong forms, no surrogates, nothing above U+10FFFF); 0 when none does.
    static func wellFormedLength(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let c = b[i]
        func cont(_ k: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool { i + k < b.count && range.contains(b[i + k]) }
        switch c {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0...0xBF) && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80...0x9F) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90...0xBF) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return cont(1, 0x80...0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    /// This name's (or path's) bytes on disk, NUL-terminated, for a system call: see `EscapedName`.
    public var onDisk: [CChar] { EscapedName.cString(self) }
}
