import JSON
import SystemSupport

/// The text `session/search` reads of a stored value, and what a match in it shows.
enum SearchText {
    /// A string as it is; any other value: its strings in document order (member values and
    /// array items, recursively) joined by `\n`, except the values of members named `type`
    /// (a content block's `"type": "text"` is not what anyone searches for). Keys, numbers,
    /// booleans and null are not text.
    static func of(_ v: JSON) -> String {
        if case .string(let s) = v { return s }
        var parts: [String] = []
        collect(v, into: &parts)
        return parts.joined(separator: "\n")
    }

    private static func collect(_ v: JSON, into parts: inout [String]) {
        switch v {
        case .string(let s): parts.append(s)
        case .array(let a): for x in a { collect(x, into: &parts) }
        case .object(let o): for m in o.members where m.key != "type" { collect(m.value, into: &parts) }
        default: break
        }
    }

    /// The matches of one field: how many, the first `SessionSearchHit.maxMatchesShown` (UTF-16
    /// offsets in `text`), a snippet around the first (about 60 bytes before it, 200 in all, cut
    /// at character boundaries) with its UTF-16 offset, and the score (matches, at most 16, plus
    /// 8 when the first match is a whole word).
    struct Found {
        var count: Int
        var matches: [Range<Int>]
        var snippet: String
        var snippetStart: Int
        var score: Int
    }

    /// `stop` is asked before each call of a regular expression's engine; it and a bound of the
    /// engine end the search of the field with `TextMatcher.Failure` (see `TextMatcher`).
    static func find(_ matcher: TextMatcher, in text: String, stop: () -> Bool = { false }) throws(TextMatcher.Failure) -> Found? {
        var text = text
        var failure: TextMatcher.Failure?
        let found = text.withUTF8 { b -> Found? in
            let raw = UnsafeRawBufferPointer(b)
            var ranges: [Range<Int>] = []
            var count = 0
            do throws(TextMatcher.Failure) {
                try matcher.forEachMatch(in: raw, everyMatch: true, stop: stop) { hit in
                    count += 1
                    if ranges.count < SessionSearchHit.maxMatchesShown { ranges.append(hit.match) }
                    return true
                }
            } catch {
                failure = error
                return nil
            }
            guard let first = ranges.first else { return nil }
            var start = max(0, first.lowerBound - 60)
            while start < first.lowerBound && b[start] & 0xC0 == 0x80 { start += 1 }
            var end = min(b.count, min(max(first.upperBound, start + 200), start + 400))
            while end < b.count && end > first.lowerBound && b[end] & 0xC0 == 0x80 { end -= 1 }
            let snippet = String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<end]), as: UTF8.self)
            let offsets = utf16Offsets(b, [start] + ranges.flatMap { [$0.lowerBound, $0.upperBound] })
            let matches = (0..<ranges.count).map { offsets[1 + 2 * $0]..<offsets[2 + 2 * $0] }
            func word(_ i: Int) -> Bool {
                guard i >= 0 && i < b.count else { return false }
                let c = b[i]
                return c == 95 || (c >= 48 && c <= 57) || (c | 0x20 >= 97 && c | 0x20 <= 122)
            }
            let whole = !word(first.lowerBound - 1) && !word(first.upperBound)
            return Found(count: count, matches: matches, snippet: snippet, snippetStart: offsets[0],
                         score: min(count, SessionSearchHit.maxMatchesShown) + (whole ? 8 : 0))
        }
        if let failure { throw failure }
        return found
    }

    /// The UTF-16 offsets of byte offsets (any order) in valid UTF-8: one pass to the largest.
    static func utf16Offsets(_ b: UnsafeBufferPointer<UInt8>, _ byteOffsets: [Int]) -> [Int] {
        let order = byteOffsets.indices.sorted { byteOffsets[$0] < byteOffsets[$1] }
        var out = [Int](repeating: 0, count: byteOffsets.count)
        var units = 0
        var i = 0
        for k in order {
            let target = min(byteOffsets[k], b.count)
            while i < target {
                let c = b[i]
                if c & 0xC0 != 0x80 { units += c >= 0xF0 ? 2 : 1 }
                i += 1
            }
            out[k] = units
        }
        return out
    }
}
