/// The rules of one ignore file, in git's syntax (`.gitignore`, `.ignore`) or Syncthing's
/// (`.stignore`), and the decision they give for a path relative to the file's folder.
///
/// Git's syntax (gitignore(5)): blank lines and lines starting with `#` say nothing; trailing
/// spaces are dropped unless escaped with `\`; `!` re-includes; a trailing `/` matches folders
/// only; a pattern with a `/` at its start or middle is matched against the whole path relative
/// to the file's folder (a leading `/` anchors it there), one without against the name at any
/// depth; `*`, `?`, `[…]` never match `/`; `**` is special only as `**/…`, `…/**` or `…/**/…`
/// (elsewhere it is `*`); `{` and `}` are plain characters; `\` escapes the next character. The
/// last rule that matches decides.
///
/// Syncthing's syntax (docs.syncthing.net, "Ignoring files"): lines are trimmed; blank lines and
/// lines starting with `//` say nothing; the prefixes `!` (re-include), `(?i)` (case-insensitive)
/// and `(?d)` (may be deleted: no effect on what is shown) come in any order; a leading `/`
/// anchors a pattern at the root, any other pattern matches at any depth; a pattern matches the
/// entry and everything inside it (`dir/` only what is inside); `**` crosses `/`, `{a,b}` are
/// alternatives; `#include` lines are not followed. The first rule that matches decides.
///
/// A pattern that cannot be compiled (too many alternatives, unbalanced braces) is skipped, as
/// the engines skip what they cannot parse. Only UTF-8 text is meaningful; other bytes are kept.
public struct IgnoreFile: Sendable {
    public enum Syntax: Sendable { case git, syncthing }

    struct Rule: Sendable {
        var glob: Glob
        /// `!`: a match re-includes.
        var negated: Bool
        var directoryOnly: Bool
        var caseInsensitive: Bool
    }

    public let syntax: Syntax
    let rules: [Rule]
    private let anyCaseInsensitive: Bool

    /// At most this many rules are kept from one file (a file is read whole, within `FileCap.ignoreFile`).
    static let maxRules = 20_000

    public var isEmpty: Bool { rules.isEmpty }

    public init(_ text: [UInt8], syntax: Syntax) {
        self.syntax = syntax
        var bytes = text[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // a UTF-8 BOM, as git skips it
        var rules: [Rule] = []
        for line in bytes.split(separator: 10, omittingEmptySubsequences: true) where rules.count < Self.maxRules {
            let text = String(decoding: line, as: UTF8.self)
            let parsed = syntax == .git ? Self.gitRule(text) : Self.syncthingRules(text)
            rules += parsed
        }
        self.rules = rules
        anyCaseInsensitive = rules.contains { $0.caseInsensitive }
    }

    /// What the rules say of `path` (relative to the file's folder, UTF-8) whose last component
    /// is `name`: true ignored, false re-included, nil when no rule matches.
    func decision(path: ArraySlice<UInt8>, name: ArraySlice<UInt8>, isDirectory: Bool) -> Bool? {
        // Lowercased once, and only when a case-insensitive rule needs it.
        let lowered = anyCaseInsensitive ? (Self.lowercased(path), Self.lowercased(name)) : ([], [])
        func matches(_ rule: Rule) -> Bool {
            if rule.directoryOnly && !isDirectory { return false }
            return rule.caseInsensitive ? rule.glob.matches(path: lowered.0[...], name: lowered.1[...])
                                        : rule.glob.matches(path: path, name: name)
        }
        switch syntax {
        case .git:
            var i = rules.count
            while i > 0 {
                i -= 1
                if matches(rules[i]) { return !rules[i].negated }
            }
        case .syncthing:
            for i in rules.indices where matches(rules[i]) { return !rules[i].negated }
        }
        return nil
    }

    // MARK: git

    static func gitRule(_ line: String) -> [Rule] {
        var p = Array(line.utf8)
        guard let first = p.first, first != UInt8(ascii: "#") else { return [] }
        if p.last == 13 { p.removeLast() }  // a CRLF line's CR, as git drops it
        // Trailing spaces go, unless the last one is escaped (`\ `).
        while p.last == UInt8(ascii: " ") {
            let n = p.count
            var backslashes = 0
            var i = n - 2
            while i >= 0, p[i] == UInt8(ascii: "\\") { backslashes += 1; i -= 1 }
            if backslashes % 2 == 1 { break }
            p.removeLast()
        }
        var negated = false
        if p.first == UInt8(ascii: "!") { negated = true; p.removeFirst() }
        var directoryOnly = false
        if p.last == UInt8(ascii: "/") { directoryOnly = true; p.removeLast() }
        guard !p.isEmpty else { return [] }
        let anchored = p.contains(UInt8(ascii: "/"))
        if p.first == UInt8(ascii: "/") { p.removeFirst() }
        guard !p.isEmpty else { return [] }
        let pattern = String(decoding: gitStars(p), as: UTF8.self)
        guard let glob = try? Glob(pattern, braces: false, matchesName: !anchored) else { return [] }
        return [Rule(glob: glob, negated: negated, directoryOnly: directoryOnly, caseInsensitive: false)]
    }

    /// `**` keeps its meaning only as a whole component (`**/x`, `x/**`, `x/**/y`); any other
    /// run of stars is one `*`, as gitignore(5) says ("other consecutive asterisks are
    /// considered regular asterisks"). Escaped stars are left alone.
    static func gitStars(_ p: [UInt8]) -> [UInt8] {
        let star = UInt8(ascii: "*"), slash = UInt8(ascii: "/")
        var out: [UInt8] = []
        var i = 0
        while i < p.count {
            if p[i] == UInt8(ascii: "\\"), i + 1 < p.count {
                out += [p[i], p[i + 1]]
                i += 2
                continue
            }
            guard p[i] == star else { out.append(p[i]); i += 1; continue }
            var j = i
            while j < p.count, p[j] == star { j += 1 }
            let whole = (i == 0 || p[i - 1] == slash) && (j == p.count || p[j] == slash)
            out += j - i >= 2 && whole ? [star, star] : [star]
            i = j
        }
        return out
    }

    // MARK: Syncthing

    static func syncthingRules(_ line: String) -> [Rule] {
        var text = Substring(line.trimmingWhitespace)
        guard !text.isEmpty, !text.hasPrefix("//"), !text.hasPrefix("#include") else { return [] }
        var negated = false, caseInsensitive = false
        while true {
            if text.hasPrefix("!"), !negated { negated = true; text = text.dropFirst() }
            else if text.hasPrefix("(?i)") { caseInsensitive = true; text = text.dropFirst(4) }
            else if text.hasPrefix("(?d)") { text = text.dropFirst(4) }
            else { break }
        }
        var pattern = String(text)
        if caseInsensitive { pattern = pattern.lowercased() }
        guard !pattern.isEmpty else { return [] }
        var patterns: [String]
        if pattern.hasSuffix("/**") {
            patterns = [pattern]
        } else if pattern.hasSuffix("/") {
            patterns = [pattern + "**"]
        } else {
            patterns = [pattern, pattern + "/**"]
        }
        // Rooted at the folder, or anywhere (`**/` also matches no folder at all).
        if pattern.hasPrefix("/") {
            patterns = patterns.map { String($0.dropFirst()) }.filter { !$0.isEmpty }
        } else if !pattern.hasPrefix("**/") {
            patterns = patterns.map { "**/" + $0 }
        }
        return patterns.compactMap { p in
            (try? Glob(p, braces: true, matchesName: false)).map {
                Rule(glob: $0, negated: negated, directoryOnly: false, caseInsensitive: caseInsensitive)
            }
        }
    }

    static func lowercased(_ s: ArraySlice<UInt8>) -> [UInt8] {
        if s.allSatisfy({ $0 < 0x80 }) { return s.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
        return Array(String(decoding: s, as: UTF8.self).lowercased().utf8)
    }
}

extension String {
    /// Without leading and trailing white space (as Go's `strings.TrimSpace`).
    fileprivate var trimmingWhitespace: Substring {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return s
    }
}
