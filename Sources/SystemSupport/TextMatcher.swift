#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims

/// Finds a literal or a regular expression in UTF-8 text, line by line: the one matcher behind
/// `searchFiles` (files) and `session/search` (conversations).
///
/// Literal searches run `memmem` over the whole buffer (case-insensitive ASCII queries over
/// an ASCII-folded copy), so they cost about one pass over the bytes; only matching lines are
/// decoded. Regular expressions (PCRE2 syntax, `BoundedRegex`: the work of each call bounded) and
/// case-insensitive non-ASCII literals (a literal PCRE2 pattern that ignores case) are applied
/// line by line. A match never spans lines. A matcher reuses its folding buffer and its match
/// state between calls: one per thread.
public struct TextMatcher {
    /// Why a pattern cannot be used (a regular expression that does not compile).
    public struct PatternError: Error, Sendable {
        public let message: String
    }

    /// Why a search of a regular expression ended early: `stop` said so, or a bound of the
    /// engine was reached on line `line` (`message` says which, for a person).
    public enum Failure: Error, Sendable, Equatable {
        case stopped
        case overLimit(line: Int, message: String)
    }

    /// One match: its line (1-based), where the line's text starts and ends in the buffer (a
    /// final `\r` excluded), and where the match is, as byte offsets into the buffer.
    public struct Hit: Sendable, Equatable {
        public var line: Int
        public var lineStart: Int
        public var lineEnd: Int
        public var match: Range<Int>
    }

    private enum Kind { case literal([UInt8]), foldedLiteral([UInt8]), regex(BoundedRegex) }
    private let kind: Kind
    private let scratch = ByteScratch()

    public init(query: String, regex: Bool, caseSensitive: Bool) throws(PatternError) {
        if regex {
            kind = .regex(try BoundedRegex(query, literal: false, caseSensitive: caseSensitive))
        } else if caseSensitive {
            kind = .literal(Array(query.utf8))
        } else if query.utf8.allSatisfy({ $0 < 0x80 }) {
            kind = .foldedLiteral(Array(query.lowercased().utf8))
        } else {
            kind = .regex(try BoundedRegex(query, literal: true, caseSensitive: false))
        }
    }

    /// The bytes a literal search looks for (lowered for a case-insensitive one), or nil for a
    /// regular expression. A caller may use it to skip text that cannot match.
    public var literalNeedle: (bytes: [UInt8], folded: Bool)? {
        switch kind {
        case .literal(let n): (n, false)
        case .foldedLiteral(let n): (n, true)
        case .regex: nil
        }
    }

    /// Calls `body` for each match, in order, until it returns false: the first match of each
    /// matching line, or (with `everyMatch`) every match, none overlapping the one before.
    /// A regular expression asks `stop` before each call of its engine (each line, each match,
    /// each piece of a long line) and throws `stopped` when it answers true; a bound of the engine
    /// reached throws `overLimit`. A literal search never throws.
    public func forEachMatch(in bytes: UnsafeRawBufferPointer, everyMatch: Bool = false, stop: () -> Bool = { false },
                             _ body: (Hit) -> Bool) throws(Failure) {
        switch kind {
        case .literal(let needle): literal(bytes, haystack: bytes, needle, everyMatch, body)
        case .foldedLiteral(let needle):
            if let k = Self.rareLetter(in: needle) {
                rareLetterLiteral(bytes, needle, k, everyMatch, body)
                return
            }
            let folded = scratch.reserve(bytes.count)
            Self.foldASCII(bytes, into: folded)
            literal(bytes, haystack: UnsafeRawBufferPointer(folded), needle, everyMatch, body)
        case .regex(let regex): try perLine(bytes, regex, everyMatch, stop, body)
        }
    }

    /// Calls `body(lineNumber, column, text)` for each matching line until it returns false:
    /// `column` is 1-based, in Unicode scalars, of the line's first match; `text` is the line
    /// (at most 1,000 characters). Throws as `forEachMatch`.
    public func forEachMatchingLine(in bytes: [UInt8], stop: () -> Bool = { false },
                                    _ body: (Int, Int, String) -> Bool) throws(Failure) {
        let count = bytes.count
        guard count > 0 else { return }  // no text: no line matches
        let failure = bytes.withUnsafeBytes { b -> Failure? in
            guard let base = b.baseAddress else { return nil }
            do throws(Failure) {
                try forEachMatch(in: b, stop: stop) { hit in
                let column = Self.scalars(base + hit.lineStart, hit.match.lowerBound - hit.lineStart) + 1
                let text = String(decoding: UnsafeRawBufferPointer(start: base + hit.lineStart, count: hit.lineEnd - hit.lineStart),
                                  as: UTF8.self)
                    return body(hit.line, column, text.count > 1000 ? String(text.prefix(1000)) : text)
                }
            } catch {
                return error
            }
            return nil
        }
        if let failure { throw failure }
    }

    private func literal(_ original: UnsafeRawBufferPointer, haystack h: UnsafeRawBufferPointer, _ needle: [UInt8],
                         _ everyMatch: Bool, _ body: (Hit) -> Bool) {
        needle.withUnsafeBytes { n in
            guard let base = h.baseAddress, let nb = n.baseAddress, h.count >= n.count, n.count > 0 else { return }
            lines(original, needle: n.count, everyMatch, body) { from in
                wb_memmem(base + from, UInt(h.count - from), nb, UInt(n.count)).map { base.distance(to: UnsafeRawPointer($0)) }
            }
        }
    }

    /// The letters rare in text (and in JSON), rarest first: a case-insensitive needle holding one
    /// is found by `memchr` for that letter's two cases and a check around each, with no folded copy.
    private static let rareLetters = Array("zqxjkv".utf8)

    /// The index in `needle` (lowered) of its rarest letter among `rareLetters`, if it has one.
    static func rareLetter(in needle: [UInt8]) -> Int? {
        for r in rareLetters { if let k = needle.firstIndex(of: r) { return k } }
        return nil
    }

    /// A case-insensitive ASCII literal through its rare letter `needle[k]`: the next of either case
    /// of it from `memchr`, each checked against the needle with ASCII case folded. Where the letter
    /// turns out common (more than one in 64 bytes after the first 4 KiB), the rest of the text is
    /// folded once and searched with `memmem` instead.
    private func rareLetterLiteral(_ h: UnsafeRawBufferPointer, _ needle: [UInt8], _ k: Int, _ everyMatch: Bool,
                                   _ body: (Hit) -> Bool) {
        guard let base = h.baseAddress, h.count >= needle.count else { return }
        let lower = Int32(needle[k]), upper = Int32(needle[k] & ~0x20)
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var nextLower = -1, nextUpper = -1  // the next of each case at or after the position asked (-2: none)
        func next(_ c: Int32, _ from: Int, _ known: inout Int) -> Int? {
            if known == -2 { return nil }
            if known < from {
                guard from < h.count, let p = memchr(base + from, c, h.count - from) else { known = -2; return nil }
                known = base.distance(to: UnsafeRawPointer(p))
            }
            return known
        }
        var candidates = 0
        // The folded copy of the text from `from` on, once the letter turned out common.
        var folded: (from: Int, bytes: UnsafeRawPointer, count: Int)?
        needle.withUnsafeBytes { n in
            guard let nb = n.baseAddress else { return }  // `needle[k]` exists: never empty
            // The next match at or after `at`, in the folded copy.
            func inFolded(_ at: Int) -> Int? {
                guard let (origin, f, count) = folded else { return nil }
                return wb_memmem(f + (at - origin), UInt(count - (at - origin)), nb, UInt(n.count))
                    .map { origin + f.distance(to: UnsafeRawPointer($0)) }
            }
            lines(h, needle: needle.count, everyMatch, body) { from in
                if folded != nil { return inFolded(from) }
                var at = from + k
                while true {
                    let l = next(lower, at, &nextLower), u = next(upper, at, &nextUpper)
                    guard let p = l.map({ min($0, u ?? $0) }) ?? u else { return nil }
                    let start = p - k
                    if start + needle.count > h.count { return nil }
                    var i = 0
                    while i < needle.count, (bytes[start + i] >= 65 && bytes[start + i] <= 90 ? bytes[start + i] | 0x20 : bytes[start + i]) == needle[i] {
                        i += 1
                    }
                    if i == needle.count { return start }
                    candidates += 1
                    if p > 4096 && candidates > p / 64 {
                        let f = scratch.reserve(h.count - from)
                        Self.foldASCII(UnsafeRawBufferPointer(rebasing: h[from...]), into: f)
                        // `from` ≤ `p` < `h.count`: the copy is not empty, it has a start.
                        guard let fb = f.baseAddress else { return nil }
                        folded = (from, UnsafeRawPointer(fb), f.count)
                        return inFolded(start + 1)
                    }
                    at = p + 1
                }
            }
        }
    }

    /// The line bookkeeping of a literal search: `find(from)` gives the next match at or after
    /// `from`; lines are found in `original` (whose newlines any folded copy shares).
    private func lines(_ original: UnsafeRawBufferPointer, needle count: Int, _ everyMatch: Bool, _ body: (Hit) -> Bool,
                       find: (Int) -> Int?) {
        let h = original
        guard let base = h.baseAddress else { return }
        var from = 0
        var line = 1
        var counted = 0  // `line` is the line of byte `counted`, which starts at `begin`
        var begin = 0
        var end = -1  // where the line of the previous hit ends (-1: not known)
        while from < h.count, let at = find(from) {
            let (crossed, lastNewline) = Self.countNewlines(base, counted, at)
            if crossed > 0 {
                line += crossed
                begin = lastNewline + 1
                end = -1
            }
            counted = at
            if end < 0 {
                end = memchr(base + at, 10, h.count - at).map { base.distance(to: UnsafeRawPointer($0)) } ?? h.count
            }
            var textEnd = end
            if textEnd > begin && original.load(fromByteOffset: textEnd - 1, as: UInt8.self) == 13 { textEnd -= 1 }
            let hit = Hit(line: line, lineStart: begin, lineEnd: textEnd, match: at..<min(at + count, textEnd))
            if !body(hit) { return }
            if everyMatch {
                from = at + count
            } else {
                from = end + 1
                if end < h.count { line += 1; counted = end + 1; begin = end + 1; end = -1 }
            }
        }
    }

    private func perLine(_ b: UnsafeRawBufferPointer, _ regex: BoundedRegex, _ everyMatch: Bool, _ stop: () -> Bool,
                         _ body: (Hit) -> Bool) throws(Failure) {
        guard let base = b.baseAddress else { return }
        var start = 0
        var line = 1
        while start <= b.count {
            let end = memchr(base + start, 10, b.count - start).map { base.distance(to: UnsafeRawPointer($0)) } ?? b.count
            var e = end
            if e > start && b[e - 1] == 13 { e -= 1 }
            let text = UnsafeRawBufferPointer(rebasing: b[start..<e])
            var from = 0
            var notEmpty = false
            while from <= text.count {
                let found: Range<Int>?
                do { found = try regex.firstMatch(in: text, from: from, notEmptyAtStart: notEmpty, stop: stop) } catch {
                    switch error {
                    case .stopped: throw .stopped
                    case .overLimit(let why): throw .overLimit(line: line, message: why)
                    }
                }
                guard let m = found else { break }
                if !body(Hit(line: line, lineStart: start, lineEnd: e, match: (start + m.lowerBound)..<(start + m.upperBound))) { return }
                if !everyMatch { break }
                // After an empty match, the next is one that is not empty there, or one further on.
                from = m.upperBound
                notEmpty = m.isEmpty
            }
            if end == b.count { return }
            start = end + 1
            line += 1
        }
    }

    /// Copies `src` into `dst` (as long) with ASCII `A`–`Z` lowered, eight bytes at a time:
    /// a byte is upper case when its low seven bits are in `A...Z` and its high bit is clear
    /// (so UTF-8 bytes are copied unchanged).
    public static func foldASCII(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawBufferPointer) {
        let n = src.count
        guard n > 0, let s = src.baseAddress, let d = dst.baseAddress else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= n {
            let w = s.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let low7 = w & ~high
            let atLeastA = low7 &+ ones &* (0x80 - 0x41)  // high bit set where the byte's low 7 bits ≥ 'A'
            let aboveZ = low7 &+ ones &* (0x80 - 0x5B)    // high bit set where they are > 'Z'
            let upper = atLeastA & ~aboveZ & ~w & high
            d.storeBytes(of: w | (upper >> 2), toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n {
            let b = s.load(fromByteOffset: i, as: UInt8.self)
            d.storeBytes(of: b >= 65 && b <= 90 ? b | 0x20 : b, toByteOffset: i, as: UInt8.self)
            i += 1
        }
    }

    /// The newlines in `from..<to`, and where the last of them is (-1: none).
    private static func countNewlines(_ base: UnsafeRawPointer, _ from: Int, _ to: Int) -> (Int, Int) {
        var n = 0
        var last = -1
        var p = from
        while p < to, let nl = memchr(base + p, 10, to - p) {
            n += 1
            last = base.distance(to: UnsafeRawPointer(nl))
            p = last + 1
        }
        return (n, last)
    }

    /// Unicode scalars in `n` bytes of UTF-8 (bytes that do not continue a sequence).
    public static func scalars(_ p: UnsafeRawPointer, _ n: Int) -> Int {
        let bytes = p.assumingMemoryBound(to: UInt8.self)
        var count = 0
        for i in 0..<max(0, n) where bytes[i] & 0xC0 != 0x80 { count += 1 }
        return count
    }
}
