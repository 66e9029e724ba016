import CPCRE2

/// A user's regular expression on PCRE2, with the work of every call bounded, so no pattern and
/// no text can make a search run away or stop answering its cancellation.
///
/// Syntax is PCRE2's (Perl's), in UTF-8 with Unicode properties (`\w`, `\d`, `\b` and case
/// folding are Unicode's); `.` is one code point. Text that is not valid UTF-8 is searched too:
/// its bad bytes match nothing. One call of PCRE2 reads at most `pieceBytes` more of a line
/// (longer lines are read in pieces through partial matching, the result being the same as one
/// call over the whole line) and takes at most `stepLimit` backtracking steps, `heapLimitKiB` of
/// heap and `jitStackBytes` of stack; `stop` is asked before each call. A pattern JIT-compiled
/// (when the platform allows it) runs the same calls with the same limits, faster.
///
/// Not thread-safe: the match data, context and JIT stack are per instance (one per thread, as
/// `TextMatcher`).
final class BoundedRegex {
    /// Backtracking steps one call may take before the match is given up as runaway: about 15 ms
    /// to 100 ms of one core (JIT to interpreter), far more than any pattern that does not
    /// backtrack catastrophically needs on one piece of a line.
    static let stepLimit: UInt32 = 1_000_000
    static let heapLimitKiB: UInt32 = 32 << 10
    static let jitStackBytes = 8 << 20
    static let pieceBytes = 256 << 10

    /// Why a call gave up: `stop` answered true, or a bound was reached (what it was, for a person).
    enum Failure: Error { case stopped, overLimit(String) }

    private let code: OpaquePointer
    private let data: OpaquePointer
    private let context: OpaquePointer
    private let jitStack: OpaquePointer?

    /// Compiles `pattern` (`literal`: matched as it is, no syntax); a pattern PCRE2 refuses
    /// throws its message and where in the pattern it is.
    init(_ pattern: String, literal: Bool, caseSensitive: Bool) throws(TextMatcher.PatternError) {
        // Case folding in UTF mode is Unicode's with or without UCP (which a literal may not take).
        var options = UInt32(PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)
        options |= literal ? UInt32(PCRE2_LITERAL) : UInt32(PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C)
        if !caseSensitive { options |= UInt32(PCRE2_CASELESS) }
        var error: Int32 = 0
        var offset = 0
        let bytes = Array(pattern.utf8)
        let compiled = bytes.withUnsafeBufferPointer { b in
            pcre2_compile_8(b.baseAddress ?? Self.empty, b.count, options, &error, &offset, nil)
        }
        guard let compiled else {
            let at = String(decoding: bytes.prefix(offset), as: UTF8.self).count
            throw TextMatcher.PatternError(message: "invalid regular expression '\(pattern)': \(Self.message(error)) (at character \(at))")
        }
        // JIT is an optimisation: where it is not available (or the pattern is too large for it)
        // the interpreter runs the same calls under the same limits.
        _ = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD))
        guard let data = pcre2_match_data_create_from_pattern_8(compiled, nil), let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(compiled)
            throw TextMatcher.PatternError(message: "no memory to match the regular expression '\(pattern)'")
        }
        pcre2_set_match_limit_8(context, Self.stepLimit)
        pcre2_set_depth_limit_8(context, Self.stepLimit)
        pcre2_set_heap_limit_8(context, Self.heapLimitKiB)
        jitStack = pcre2_jit_stack_create_8(32 << 10, Self.jitStackBytes, nil)
        if let jitStack { pcre2_jit_stack_assign_8(context, nil, UnsafeMutableRawPointer(jitStack)) }
        self.code = compiled
        self.data = data
        self.context = context
    }

    deinit {
        if let jitStack { pcre2_jit_stack_free_8(jitStack) }
        pcre2_match_context_free_8(context)
        pcre2_match_data_free_8(data)
        pcre2_code_free_8(code)
    }

    /// The first match in `line` (the subject: `^`, `$` and lookbehind see the line only) that
    /// starts at or after byte `from`; with `notEmptyAtStart`, an empty match at `from` is not one.
    func firstMatch(in line: UnsafeRawBufferPointer, from: Int, notEmptyAtStart: Bool,
                    stop: () -> Bool) throws(Failure) -> Range<Int>? {
        let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? Self.empty
        let count = line.count
        var start = from
        var end = piece(base, count, from: start, after: start)
        var options = notEmptyAtStart ? UInt32(PCRE2_NOTEMPTY_ATSTART) : 0
        while true {
            if stop() { throw .stopped }
            let partial = end < count
            let rc = pcre2_match_8(code, base, end, start, options | (partial ? UInt32(PCRE2_PARTIAL_HARD) : 0), data, context)
            let ovector = pcre2_get_ovector_pointer_8(data)
            switch rc {
            case 0...:
                guard let ovector else { return nil }
                return min(ovector[0], ovector[1])..<ovector[1]  // never reversed (a \K in a lookahead)
            case PCRE2_ERROR_NOMATCH:
                // No match starts before `end`, and none that starts before it runs past it.
                guard partial else { return nil }
                options = 0
                start = end
                end = piece(base, count, from: start, after: start)
            case PCRE2_ERROR_PARTIAL:
                // A match may start at ovector[0] and need more of the line: read on from there,
                // twice as far when it did not move (a long match is read in O(its length)).
                guard let ovector else { return nil }
                let at = ovector[0]
                if at > start { options = 0 }
                start = at
                end = piece(base, count, from: start, after: end + max(0, end - start - Self.pieceBytes))
            case PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT:
                throw .overLimit("the regular expression took over \(Self.stepLimit) backtracking steps at one place; it backtracks "
                                 + "without end on text like this (nested repeats such as (a+)+ do): make it simpler or more specific")
            case PCRE2_ERROR_HEAPLIMIT, PCRE2_ERROR_JIT_STACKLIMIT, PCRE2_ERROR_NOMEMORY:
                throw .overLimit("the regular expression needed more memory than a search may take (\(Self.message(rc))): "
                                 + "make it simpler or more specific")
            default:
                throw .overLimit("the regular expression could not be matched: \(Self.message(rc))")
            }
        }
    }

    /// Where the subject of the next call ends: `pieceBytes` past `after` (at least past `from`),
    /// moved back to the start of a UTF-8 sequence, or the end of the line.
    private func piece(_ base: UnsafePointer<UInt8>, _ count: Int, from: Int, after: Int) -> Int {
        var end = max(from, after) + Self.pieceBytes
        guard end < count else { return count }
        let floor = end - 3
        while end > floor && end > from + 1 && base[end] & 0xC0 == 0x80 { end -= 1 }
        return end
    }

    /// The text of a PCRE2 error code.
    static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBufferPointer { pcre2_get_error_message_8(code, $0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix(max(0, Int(n))), as: UTF8.self)
    }

    /// A subject for empty text (PCRE2 wants a pointer even for no bytes); one byte, never written.
    nonisolated(unsafe) private static let empty: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()
}
