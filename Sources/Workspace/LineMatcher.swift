#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims

/// Finds the lines of a buffer that match a literal or a regular expression.
///
/// Literal searches run `memmem` over the whole buffer (case-insensitive ASCII queries over
/// an ASCII-folded copy), so they cost about one pass over the bytes; only matching lines are
/// decoded. Regular expressions (Swift Regex syntax) and case-insensitive non-ASCII literals
/// are applied line by line.
struct LineMatcher {
    private enum Kind { case literal([UInt8]), foldedLiteral([UInt8]), unicodeLiteral(String), regex(Regex<AnyRegexOutput>) }
    private let kind: Kind

    init(_ o: Workspace.SearchOptions) throws(WorkspaceError) {
        if o.regex {
            do {
                var r = try Regex(o.query)
                if !o.caseSensitive { r = r.ignoresCase() }
                kind = .regex(r)
            } catch {
                throw WorkspaceError(.invalidArgument, "invalid regular expression '\(o.query)': \(error)")
            }
        } else if o.caseSensitive {
            kind = .literal(Array(o.query.utf8))
        } else if o.query.utf8.allSatisfy({ $0 < 0x80 }) {
            kind = .foldedLiteral(Array(o.query.lowercased().utf8))
        } else {
            kind = .unicodeLiteral(o.query.lowercased())
        }
    }

    /// Calls `body(lineNumber, column, text)` for each matching line until it returns false.
    func forEachMatchingLine(in bytes: [UInt8], _ body: (Int, Int, String) -> Bool) {
        switch kind {
        case .literal(let needle): literal(bytes, haystack: bytes, needle, body)
        case .foldedLiteral(let needle):
            let folded = [UInt8](unsafeUninitializedCapacity: bytes.count) { out, count in
                bytes.withUnsafeBytes { Self.foldASCII($0, into: UnsafeMutableRawBufferPointer(out)) }
                count = bytes.count
            }
            literal(bytes, haystack: folded, needle, body)
        case .unicodeLiteral(let needle):
            perLine(bytes) { line in
                let lower = line.lowercased()
                guard let r = lower.firstRange(of: needle) else { return nil }
                return lower.distance(from: lower.startIndex, to: r.lowerBound)
            } body: { body($0, $1, $2) }
        case .regex(let regex):
            perLine(bytes) { line in
                guard let m = try? regex.firstMatch(in: line) else { return nil }
                return line.distance(from: line.startIndex, to: m.range.lowerBound)
            } body: { body($0, $1, $2) }
        }
    }

    private func literal(_ original: [UInt8], haystack: [UInt8], _ needle: [UInt8], _ body: (Int, Int, String) -> Bool) {
        haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                original.withUnsafeBytes { o in
                    guard let base = h.baseAddress, h.count >= n.count else { return }
                    var from = 0
                    var line = 1
                    var counted = 0  // newlines counted up to here
                    while from < h.count, let hit = wb_memmem(base + from, UInt(h.count - from), n.baseAddress!, UInt(n.count)) {
                        let at = base.distance(to: UnsafeRawPointer(hit))
                        line += Self.countNewlines(base, counted, at)
                        let lineStart = Self.lineStart(base, at)
                        let lineEnd = memchr(base + at, 10, h.count - at).map { base.distance(to: UnsafeRawPointer($0)) } ?? h.count
                        counted = lineEnd
                        let column = Self.characters(o.baseAddress! + lineStart, at - lineStart) + 1
                        if !body(line, column, Self.text(o.baseAddress! + lineStart, lineEnd - lineStart)) { return }
                        from = lineEnd + 1
                        if lineEnd < h.count { line += 1; counted = lineEnd + 1 }
                    }
                }
            }
        }
    }

    private func perLine(_ bytes: [UInt8], find: (String) -> Int?, body: (Int, Int, String) -> Bool) {
        bytes.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            var start = 0
            var line = 1
            while start <= b.count {
                let end = memchr(base + start, 10, b.count - start).map { base.distance(to: UnsafeRawPointer($0)) } ?? b.count
                var e = end
                if e > start && b[e - 1] == 13 { e -= 1 }
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<e]), as: UTF8.self)
                if let col = find(text), !body(line, col + 1, Self.clip(text)) { return }
                if end == b.count { return }
                start = end + 1
                line += 1
            }
        }
    }

    /// Copies `src` into `dst` (as long) with ASCII `A`–`Z` lowered, eight bytes at a time:
    /// a byte is upper case when its low seven bits are in `A...Z` and its high bit is clear
    /// (so UTF-8 bytes are copied unchanged).
    static func foldASCII(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawBufferPointer) {
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

    private static func countNewlines(_ base: UnsafeRawPointer, _ from: Int, _ to: Int) -> Int {
        var n = 0
        var p = from
        while p < to, let nl = memchr(base + p, 10, to - p) {
            n += 1
            p = base.distance(to: UnsafeRawPointer(nl)) + 1
        }
        return n
    }

    private static func lineStart(_ base: UnsafeRawPointer, _ at: Int) -> Int {
        var i = at
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        while i > 0 && bytes[i - 1] != 10 { i -= 1 }
        return i
    }

    private static func characters(_ p: UnsafeRawPointer, _ n: Int) -> Int {
        let bytes = p.assumingMemoryBound(to: UInt8.self)
        var count = 0
        for i in 0..<n where bytes[i] & 0xC0 != 0x80 { count += 1 }
        return count
    }

    private static func text(_ p: UnsafeRawPointer, _ n: Int) -> String {
        var len = n
        if len > 0 && p.load(fromByteOffset: len - 1, as: UInt8.self) == 13 { len -= 1 }
        return clip(String(decoding: UnsafeRawBufferPointer(start: p, count: len), as: UTF8.self))
    }

    private static func clip(_ s: String) -> String {
        s.count > 1000 ? String(s.prefix(1000)) : s
    }
}
