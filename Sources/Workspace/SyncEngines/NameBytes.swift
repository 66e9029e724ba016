/// ASCII bytes the name patterns are built from.
enum Ascii {
    static let slash = UInt8(ascii: "/")
    static let dot = UInt8(ascii: ".")
    static let dash = UInt8(ascii: "-")
    static let space = UInt8(ascii: " ")
    static let open = UInt8(ascii: "(")
    static let close = UInt8(ascii: ")")
    static let hash = UInt8(ascii: "#")
}

/// Byte-level matching on a name's UTF-8. Every pattern is ASCII, so a name cut at a match is
/// cut between whole characters and each piece decodes back exactly.
struct NameBytes {
    let b: [UInt8]

    init(_ bytes: [UInt8]) { b = bytes }

    var count: Int { b.count }

    /// True when `literal` occurs at `index`.
    func has(_ literal: String, at index: Int) -> Bool {
        let l = literal.utf8
        guard index >= 0, index + l.count <= b.count else { return false }
        var i = index
        for byte in l {
            if b[i] != byte { return false }
            i += 1
        }
        return true
    }

    func hasPrefix(_ literal: String) -> Bool { has(literal, at: 0) }

    func hasSuffix(_ literal: String) -> Bool { has(literal, at: b.count - literal.utf8.count) }

    func equals(_ literal: String) -> Bool { b.count == literal.utf8.count && hasPrefix(literal) }

    /// Start of every occurrence of `literal`, rightmost first.
    func occurrences(of literal: String) -> [Int] {
        let n = literal.utf8.count
        guard n > 0, b.count >= n else { return [] }
        return stride(from: b.count - n, through: 0, by: -1).filter { has(literal, at: $0) }
    }

    /// True when `count` ASCII digits start at `index`.
    func digits(at index: Int, count: Int) -> Bool {
        guard index >= 0, count >= 0, index + count <= b.count else { return false }
        return b[index..<index + count].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Index after a run of one or more digits starting at `index`, or nil.
    func digitRun(at index: Int) -> Int? {
        var i = index
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
        return i > index ? i : nil
    }

    /// `YYYY-MM-DD` at `index`; returns the index after it.
    func isoDate(at index: Int) -> Int? {
        guard digits(at: index, count: 4), has("-", at: index + 4), digits(at: index + 5, count: 2),
              has("-", at: index + 7), digits(at: index + 8, count: 2) else { return nil }
        return index + 10
    }

    /// True when the bytes from `index` to the end are empty or one extension: a dot and then
    /// no further dot (what inserting a tag before the last dot leaves behind).
    func isLastExtension(from index: Int) -> Bool {
        if index == b.count { return true }
        guard index < b.count, b[index] == Ascii.dot else { return false }
        return !b[(index + 1)...].contains(Ascii.dot)
    }

    func string(_ range: Range<Int>) -> String { String(decoding: b[range], as: UTF8.self) }

    /// The name with `range` cut out.
    func removing(_ range: Range<Int>) -> String {
        String(decoding: b[..<range.lowerBound] + b[range.upperBound...], as: UTF8.self)
    }
}
