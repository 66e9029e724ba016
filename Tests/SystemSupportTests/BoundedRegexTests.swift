@testable import SystemSupport
import Testing

/// Regular expressions on PCRE2 through `TextMatcher`: runaway patterns end with `overLimit`
/// instead of running on, `stop` ends a search, a long line read in pieces gives what one read of
/// it gives, and the semantics searches rely on (lines, case, empty matches, bad UTF-8) hold.
@Suite("Bounded regular expressions")
struct BoundedRegexTests {
    private func matches(_ query: String, in text: String, every: Bool = true, caseSensitive: Bool = true) throws -> [String] {
        let m = try TextMatcher(query: query, regex: true, caseSensitive: caseSensitive)
        let bytes = Array(text.utf8)
        var got: [String] = []
        try bytes.withUnsafeBytes { b in
            try m.forEachMatch(in: b, everyMatch: every) { got.append(String(decoding: bytes[$0.match], as: UTF8.self)); return true }
        }
        return got
    }

    private func failure(_ query: String, in text: [UInt8], stop: @escaping () -> Bool = { false }) throws -> TextMatcher.Failure? {
        let m = try TextMatcher(query: query, regex: true, caseSensitive: true)
        do {
            try text.withUnsafeBytes { b in try m.forEachMatch(in: b, everyMatch: true, stop: stop) { _ in true } }
        } catch let f as TextMatcher.Failure {
            return f
        }
        return nil
    }

    @Test("catastrophic patterns reach the step bound on a short line instead of running on",
          arguments: [("(a+)+b", "a"), ("(a|a)*b", "a"), ("(x+x+)+y", "x"), ("(a|aa)+$", "a"), ("(\\w+\\s?)+$", "a"),
                      ("((a*)*)*b", "a")])
    func runaway(pattern: String, fill: String) throws {
        // The last letter of the pattern after the run: present (PCRE2 skips a line without it), not reachable.
        let last = pattern.last { $0.isLetter } ?? "z"
        let line = Array((String(repeating: fill, count: 40) + "!\(last)\nnext line").utf8)
        let f = try failure(pattern, in: line)
        guard case .overLimit(let n, let why)? = f else { Issue.record("\(pattern): \(String(describing: f))"); return }
        #expect(n == 1)
        #expect(why.contains("backtracking steps") || why.contains("memory"), "\(why)")
    }

    @Test("a pattern that is heavy but bounded on each line finds its matches")
    func boundedButHeavy() throws {
        #expect(try matches("(a+)+b", in: "aaaaaaaaaaab\naaaa\nab") == ["aaaaaaaaaaab", "ab"])
        #expect(try matches(".*.*.*.*.*=", in: String(repeating: "a", count: 30) + "=") == [String(repeating: "a", count: 30) + "="])
    }

    @Test("stop ends a search of a regular expression before its next call")
    func stops() throws {
        var calls = 0
        let text = Array(String(repeating: "abc\n", count: 1000).utf8)
        let f = try failure("b", in: text, stop: { calls += 1; return calls > 10 })
        #expect(f == .stopped)
        #expect(calls == 11)
    }

    @Test("a line longer than a piece is matched as one read of it would be")
    func longLine() throws {
        let piece = BoundedRegex.pieceBytes
        // A match across the first piece's end, one far into the line, and a greedy one over most of it.
        var line = String(repeating: "x", count: piece - 3) + "START-é-END" + String(repeating: "y", count: 3 * piece) + "TAIL"
        #expect(try matches("START-\\w-END", in: line) == ["START-é-END"])
        #expect(try matches("y+TAIL$", in: line) == [String(repeating: "y", count: 3 * piece) + "TAIL"])
        #expect(try matches("^x+S", in: line).first?.count == piece - 2)
        #expect(try matches("(?<=END)y{2}", in: line, every: false) == ["yy"])
        line += "\nshort"
        #expect(try matches("^\\w+$", in: line) == ["short"])
        #expect(try matches("T.*L", in: line).first?.utf8.count == 3 * piece + 15, "from the T of START to the L of TAIL")
    }

    @Test("lines, case, empty matches and invalid UTF-8")
    func semantics() throws {
        #expect(try matches("^b.*$", in: "ab\nbc\r\nbd") == ["bc", "bd"], "a match never spans lines; ^ and $ are the line's")
        #expect(try matches("ÉCOLE", in: "école Ecole", caseSensitive: false) == ["école"])
        #expect(try matches("\\w+", in: "naïve café") == ["naïve", "café"], "\\w is Unicode's")
        #expect(try matches("x*", in: "axxb") == ["", "xx", "", ""])
        #expect(try matches("a+", in: "aa", every: false) == ["aa"])
        let bad: [UInt8] = Array("ok ".utf8) + [0xFF, 0xFE] + Array(" fine".utf8)
        let m = try TextMatcher(query: "\\w+", regex: true, caseSensitive: true)
        var got: [Range<Int>] = []
        try bad.withUnsafeBytes { b in try m.forEachMatch(in: b, everyMatch: true) { got.append($0.match); return true } }
        #expect(got == [0..<2, 6..<10])
    }

    @Test("a pattern PCRE2 refuses says why and where")
    func invalid() {
        for bad in ["(unclosed", "a{2,1}", "[z-a]", "(?<n>a)(?<n>b)"] {
            do {
                _ = try TextMatcher(query: bad, regex: true, caseSensitive: true)
                Issue.record("\(bad) compiled")
            } catch {
                #expect(error.message.hasPrefix("invalid regular expression '\(bad)': ") && error.message.contains("at character"), "\(error.message)")
            }
        }
    }
}
