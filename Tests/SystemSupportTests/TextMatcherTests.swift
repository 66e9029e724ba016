@testable import SystemSupport
import Testing

/// The matcher `searchFiles` and `session/search` share, against a naive search: every match (or
/// the first of each line), its line and the line's bounds, for needles with and without a rare
/// letter (the two case-insensitive paths, and the switch from the first to the second where the
/// letter is common in a long text) and case-sensitive ones.
@Suite("Text matcher")
struct TextMatcherTests {
    /// Every non-overlapping match of `needle` (ASCII, compared folded unless `exact`), naively.
    private func naive(_ hay: [UInt8], _ needle: [UInt8], exact: Bool, every: Bool) -> [TextMatcher.Hit] {
        func fold(_ b: UInt8) -> UInt8 { exact ? b : (b >= 65 && b <= 90 ? b | 0x20 : b) }
        let n = needle.map(fold)
        var out: [TextMatcher.Hit] = []
        var line = 1, start = 0, i = 0
        var lastLine = 0
        while i + n.count <= hay.count {
            if hay[i] == 10 { line += 1; start = i + 1; i += 1; continue }
            if (0..<n.count).allSatisfy({ fold(hay[i + $0]) == n[$0] }), every || lastLine != line {
                var end = hay[i...].firstIndex(of: 10) ?? hay.count
                if end > start && hay[end - 1] == 13 { end -= 1 }
                out.append(TextMatcher.Hit(line: line, lineStart: start, lineEnd: end, match: i..<(i + n.count)))
                lastLine = line
                i += n.count
                continue
            }
            i += 1
        }
        return out
    }

    @Test("every path finds what a naive search finds, in order, with lines and bounds", arguments: [false, true])
    func againstNaive(every: Bool) throws {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("zZaAnNbB \n\r-".utf8)
        for round in 0..<400 {
            let hay = (0..<Int.random(in: 0...(round % 20 == 0 ? 20_000 : 200), using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let needle = Array(["zan", "ZaN", "an", "a", "nab", "z", "-a", "b\rz"][round % 8].utf8)
            for exact in [false, true] {
                let m = try TextMatcher(query: String(decoding: needle, as: UTF8.self), regex: false, caseSensitive: exact)
                var got: [TextMatcher.Hit] = []
                try hay.withUnsafeBytes { b in try m.forEachMatch(in: b, everyMatch: every) { got.append($0); return true } }
                let want = naive(hay, needle, exact: exact, every: every)
                #expect(got == want, "\(String(decoding: hay, as: UTF8.self).debugDescription) \(String(decoding: needle, as: UTF8.self)) exact \(exact)")
            }
        }
    }

    @Test("a case-insensitive non-ASCII literal and a regex report byte ranges of every match")
    func unicodeAndRegex() throws {
        let text = Array("Ünïcode ÉCOLE école\nx école".utf8)
        let m = try TextMatcher(query: "école", regex: false, caseSensitive: false)
        var got: [Range<Int>] = []
        try text.withUnsafeBytes { b in try m.forEachMatch(in: b, everyMatch: true) { got.append($0.match); return true } }
        #expect(got.map { String(decoding: text[$0], as: UTF8.self) } == ["ÉCOLE", "école", "école"])
        let r = try TextMatcher(query: "[a-z]+-\\d+", regex: true, caseSensitive: true)
        let t2 = Array("id a-1 and bb-22".utf8)
        var r2: [Range<Int>] = []
        try t2.withUnsafeBytes { b in try r.forEachMatch(in: b, everyMatch: true) { r2.append($0.match); return true } }
        #expect(r2 == [3..<6, 11..<16])
        #expect(throws: TextMatcher.PatternError.self) { try TextMatcher(query: "(", regex: true, caseSensitive: false) }
    }
}
