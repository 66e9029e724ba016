/// A glob pattern over `/`-separated relative paths.
///
/// Syntax: `*` any run of characters within one name, `**` any run across names (`**/` also
/// matches no folder at all), `?` one character, `[abc]`, `[a-z]`, `[!abc]` or `[^abc]` one
/// character of (or not of) a set, `{a,b}` alternatives. A pattern without `/` is matched against
/// the entry's name alone (like `.gitignore` and `rg -g`); with `/`, against the whole relative path.
public struct Glob: Sendable {
    public let pattern: String
    private let alternatives: [Alternative]
    private let matchesName: Bool

    public init(_ pattern: String) throws(WorkspaceError) {
        try self.init(pattern, braces: true, matchesName: !pattern.contains("/"))
    }

    /// A glob whose `{a,b}` are alternatives (`braces`) or plain characters (as in
    /// `.gitignore`), matched against the entry's name alone or its whole relative path.
    init(_ pattern: String, braces: Bool, matchesName: Bool) throws(WorkspaceError) {
        self.pattern = pattern
        guard !pattern.isEmpty else { throw WorkspaceError(.invalidArgument, "the glob is empty") }
        if braces {
            var depth = 0
            for c in pattern.utf8 {
                if c == UInt8(ascii: "{") { depth += 1 }
                if c == UInt8(ascii: "}") { depth -= 1 }
                if depth < 0 { break }
            }
            guard depth == 0 else { throw WorkspaceError(.invalidArgument, "unbalanced braces in glob '\(pattern)'") }
        }
        let expanded = braces ? Self.expand(Array(pattern.utf8)) : [Array(pattern.utf8)]
        guard expanded.count <= 1024 else { throw WorkspaceError(.invalidArgument, "glob '\(pattern)' expands to too many alternatives") }
        alternatives = expanded.map(Alternative.init)
        self.matchesName = matchesName
    }

    /// Whether `relativePath` (and `name`, its last component) matches.
    public func matches(relativePath: String, name: String) -> Bool {
        let subject = Array((matchesName ? name : relativePath).utf8)
        return matches(path: subject[...], name: subject[...])
    }

    /// Whether the relative path `path` (or `name`, its last component, for a pattern without
    /// `/`) matches, both given as UTF-8 bytes.
    func matches(path: ArraySlice<UInt8>, name: ArraySlice<UInt8>) -> Bool {
        let subject = matchesName ? name : path
        if alternatives.count == 1 { return alternatives[0].matches(subject) }
        return alternatives.contains { $0.matches(subject) }
    }

    /// One alternative of the pattern, with the shapes most patterns have (`name`, `*.ext`,
    /// `prefix*`) compared directly instead of by the general matcher.
    private struct Alternative: Sendable {
        enum Shape: Sendable { case literal, suffix, prefix, general }
        let bytes: [UInt8]
        let shape: Shape
        /// The literal part of a `literal`, `suffix` or `prefix` shape.
        let fixed: [UInt8]

        init(_ p: [UInt8]) {
            bytes = p
            let meta: Set<UInt8> = [UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "\\")]
            let star = UInt8(ascii: "*")
            if !p.contains(where: meta.contains) {
                (shape, fixed) = (.literal, p)
            } else if p.count > 1, p.first == star, !p.dropFirst().contains(where: meta.contains), !p.contains(UInt8(ascii: "/")) {
                (shape, fixed) = (.suffix, Array(p.dropFirst()))
            } else if p.count > 1, p.last == star, !p.dropLast().contains(where: meta.contains), !p.contains(UInt8(ascii: "/")) {
                (shape, fixed) = (.prefix, Array(p.dropLast()))
            } else {
                (shape, fixed) = (.general, [])
            }
        }

        func matches(_ s: ArraySlice<UInt8>) -> Bool {
            switch shape {
            case .literal: return s.elementsEqual(fixed)
            case .suffix:
                return s.count >= fixed.count && !s.contains(UInt8(ascii: "/")) && s.suffix(fixed.count).elementsEqual(fixed)
            case .prefix:
                return s.count >= fixed.count && !s.contains(UInt8(ascii: "/")) && s.prefix(fixed.count).elementsEqual(fixed)
            case .general: return Glob.match(bytes[...], s)
            }
        }
    }

    private static func expand(_ p: [UInt8]) -> [[UInt8]] {
        guard let open = p.firstIndex(of: UInt8(ascii: "{")) else { return [p] }
        var depth = 0
        var close = open
        var splits: [Int] = []
        for i in open..<p.count {
            if p[i] == UInt8(ascii: "{") { depth += 1 }
            if p[i] == UInt8(ascii: "}") { depth -= 1; if depth == 0 { close = i; break } }
            if p[i] == UInt8(ascii: ","), depth == 1 { splits.append(i) }
        }
        let head = Array(p[..<open]), tail = Array(p[(close + 1)...])
        var bounds = [open] + splits + [close]
        var out: [[UInt8]] = []
        for k in 0..<(bounds.count - 1) {
            let middle = Array(p[(bounds[k] + 1)..<bounds[k + 1]])
            out += expand(head + middle + tail)
            if out.count > 1024 { break }
        }
        bounds.removeAll()
        return out
    }

    fileprivate static func match(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool { run(p, s) == .match }

    /// `abortAll`: the text ran out while the pattern still wanted a character, so no star
    /// further out can match by starting later (a later start leaves less text; git's wildmatch
    /// stops the same way). It keeps patterns with many stars (`*a*a*a*a*b`, which anyone who
    /// can write an ignore file can hand the server) from trying every split of the text.
    private enum Outcome { case match, noMatch, abortAll }

    private static func run(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Outcome {
        var p = p, s = s
        while let c = p.first {
            switch c {
            case UInt8(ascii: "*"):
                if p.dropFirst().first == UInt8(ascii: "*") {
                    var rest = p.dropFirst(2)
                    if rest.first == UInt8(ascii: "/") {
                        rest = rest.dropFirst()
                        // `**/x`: x here, or after any number of folders.
                        var t = s
                        while true {
                            let r = run(rest, t)
                            if r != .noMatch { return r }
                            guard let slash = t.firstIndex(of: UInt8(ascii: "/")) else { return .noMatch }
                            t = t[(slash + 1)...]
                        }
                    }
                    var t = s
                    while true {
                        let r = run(rest, t)
                        if r != .noMatch { return r }
                        if t.isEmpty { return .abortAll }
                        t = t.dropFirst()
                    }
                }
                let rest = p.dropFirst()
                var t = s
                while true {
                    let r = run(rest, t)
                    if r != .noMatch { return r }
                    guard let f = t.first else { return .abortAll }
                    if f == UInt8(ascii: "/") { return .noMatch }
                    t = t.dropFirst()
                }
            case UInt8(ascii: "?"):
                guard let f = s.first else { return .abortAll }
                if f == UInt8(ascii: "/") { return .noMatch }
                p = p.dropFirst()
                s = s.dropFirst(utf8Length(f))
            case UInt8(ascii: "["):
                guard let f = s.first else { return .abortAll }
                guard f != UInt8(ascii: "/"), let (ok, after) = matchClass(p, f) else {
                    if f == c { p = p.dropFirst(); s = s.dropFirst(); continue }
                    return .noMatch
                }
                guard ok else { return .noMatch }
                p = after
                s = s.dropFirst()
            case UInt8(ascii: "\\") where p.count > 1:
                guard let f = s.first else { return .abortAll }
                guard f == p[p.startIndex + 1] else { return .noMatch }
                p = p.dropFirst(2)
                s = s.dropFirst()
            default:
                guard let f = s.first else { return .abortAll }
                guard f == c else { return .noMatch }
                p = p.dropFirst()
                s = s.dropFirst()
            }
        }
        return s.isEmpty ? .match : .noMatch
    }

    /// Matches one byte against a `[...]` class; nil when the class is not closed (then `[` is literal).
    private static func matchClass(_ p: ArraySlice<UInt8>, _ ch: UInt8) -> (Bool, ArraySlice<UInt8>)? {
        var i = p.index(after: p.startIndex)
        var negate = false
        if i < p.endIndex, p[i] == UInt8(ascii: "!") || p[i] == UInt8(ascii: "^") { negate = true; i += 1 }
        var found = false
        var first = true
        while i < p.endIndex {
            let c = p[i]
            if c == UInt8(ascii: "]") && !first { return (found != negate, p[(i + 1)...]) }
            first = false
            if i + 2 < p.endIndex, p[i + 1] == UInt8(ascii: "-"), p[i + 2] != UInt8(ascii: "]") {
                if c <= ch && ch <= p[i + 2] { found = true }
                i += 3
            } else {
                if c == ch { found = true }
                i += 1
            }
        }
        return nil
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: 4
        case 0xE0...: 3
        case 0xC0...: 2
        default: 1
        }
    }
}
