#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CJansson
import Dispatch

/// Values too large for one core in encoded output, dumped by jansson in parts on every core.
///
/// A listing page or a search result is one array of thousands of small objects, and a file read
/// is one long string; building and dumping their jansson values is most of the time such a
/// reply takes, and jansson does it on one thread. Such a value is therefore cut into one part
/// per core: an array into runs of elements, a string into runs of whole characters. Each part
/// is built and dumped by jansson on its own thread (jansson values are never shared between
/// threads), and the parts' text is joined: array parts with a comma where one part's `]` and the
/// next one's `[` were, string parts by dropping the quotes between them. Every other byte is
/// jansson's, and the result is byte for byte what one `json_dumpb` of the whole value writes
/// (jansson escapes each character on its own and writes arrays as elements between commas).
///
/// The large value's place in the enclosing dump is a placeholder string (`placeholder`,
/// random per process; a dump whose own strings include one is not split), and `splice` puts
/// the joined parts in its place. Values nested in a part are dumped with the part.
enum LargeValues {
    static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    /// Arrays of at least this many elements are split, into parts of at least `minimumItems`.
    static let arrayThreshold = 2048
    static let minimumItems = 1024
    /// Strings of at least this many UTF-8 bytes are split, into parts of at least `minimumBytes`.
    static let stringThreshold = 128 << 10
    static let minimumBytes = 64 << 10
    /// Strings of at least this many UTF-8 bytes are escaped once however often they occur in a
    /// value (`JanssonTree`): below it, the placeholder costs about what it saves.
    static let repeatThreshold = 1024

    static func isLarge(_ v: JSON) -> Bool {
        switch v {
        case .array(let a): a.count >= arrayThreshold
        case .string(let s): s.utf8.count >= stringThreshold
        default: false
        }
    }

    /// What every placeholder starts with: random per process.
    static let marker = "\u{1}wb\(String(UInt64.random(in: .min ... .max), radix: 36))-"

    /// jansson's text of a placeholder is `placeholderHead` (a quote, the escaped marker), the
    /// number, then `placeholderTail` (the escaped `\u{1}`, a quote): dumped once per process.
    static let placeholderHead = Array(JSONCodec.encode(.string(marker), splicing: false).dropLast())
    static let placeholderTail = Array(JSONCodec.encode(.string("\u{1}"), splicing: false).dropFirst())

    /// The string that stands for the `i`th large value of a dump.
    static func placeholder(_ i: Int) -> String { "\(marker)\(i)\u{1}" }

    /// Whether a string of the value itself could be taken for a placeholder (then the value is
    /// dumped whole, in one piece).
    static func looksLikePlaceholder(_ s: String) -> Bool {
        s.utf8.first == 1 && s.utf8.starts(with: marker.utf8)
    }

    /// `dumped` with each placeholder replaced by the text of its value (`values[i]` for
    /// placeholder `i`, which occurs `uses[i]` times). Each value is dumped by jansson once,
    /// straight into the one output buffer, where it first occurs; a later occurrence copies
    /// that text. Empty when jansson cannot allocate.
    static func splice(_ values: [JSON], uses: [Int], into dumped: [UInt8]) -> [UInt8] {
        let plans = values.map(Parts.init)
        let capacity = dumped.count + zip(plans, uses).reduce(0) { $0 + $1.0.bound * $1.1 }
        let head = placeholderHead, tail = placeholderTail
        var written = [Range<Int>?](repeating: nil, count: values.count)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
            count = 0
            // `dumped` holds a placeholder: neither it nor the output is empty, both have a start.
            guard let out = buf.baseAddress else { return }
            var at = 0, from = 0
            dumped.withUnsafeBytes { d in
                let bytes = d.bindMemory(to: UInt8.self)
                guard let start = bytes.baseAddress else { return }
                for _ in 0..<uses.reduce(0, +) {
                    guard let offset = findPlaceholder(head, in: d, from: from) else {
                        preconditionFailure("jansson's dump lacks a placeholder it was given")
                    }
                    var end = offset + head.count, index = 0
                    while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 { index = index * 10 + Int(bytes[end] - 0x30); end += 1 }
                    precondition(index < values.count && bytes[end...].starts(with: tail), "a placeholder jansson wrote is not whole")
                    (out + at).update(from: start + from, count: offset - from)
                    at += offset - from
                    if let earlier = written[index] {
                        (out + at).update(from: out + earlier.lowerBound, count: earlier.count)
                        at += earlier.count
                    } else {
                        guard let n = plans[index].write(into: out + at) else { at = 0; return }  // jansson failed: empty
                        written[index] = at..<at + n
                        at += n
                    }
                    from = end + tail.count
                }
                (out + at).update(from: start + from, count: d.count - from)
                at += d.count - from
            }
            count = at
        }
    }

    /// Where the next placeholder starts in `d` at or after `from`: an occurrence of `head` (a
    /// quote, then the escaped marker) that opens a string, i.e. stands where a value or key
    /// starts (after `[`, `{`, `:` or `,`); inside a string jansson writes a quote as `\"`. A
    /// string of the value that starts with the marker is never a placeholder's rival: such a
    /// value is dumped without splicing (`JanssonTree.ambiguous`).
    private static func findPlaceholder(_ head: [UInt8], in d: UnsafeRawBufferPointer, from: Int) -> Int? {
        var i = from
        while let at = find(head, in: d, from: i) {
            if at == 0 || [UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ":"), UInt8(ascii: ",")].contains(d[at - 1]) { return at }
            i = at + 1
        }
        return nil
    }

    /// Where `token` first occurs in `d` at or after `from`.
    private static func find(_ token: [UInt8], in d: UnsafeRawBufferPointer, from: Int) -> Int? {
        token.withUnsafeBytes { t in
            guard let base = d.baseAddress, let first = t.first, let tokenStart = t.baseAddress else { return nil }
            var i = from
            while d.count - i >= t.count, let hit = memchr(base + i, Int32(first), d.count - i - t.count + 1) {
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, tokenStart, t.count) == 0 { return at }
                i = at + 1
            }
            return nil
        }
    }

    /// The compact JSON text of a large array or string, dumped in parts on every core (empty
    /// when jansson cannot allocate).
    static func encode(_ v: JSON) -> [UInt8] {
        let plan = Parts(v)
        return [UInt8](unsafeUninitializedCapacity: plan.bound) { buf, count in
            // A large value's bound is thousands of bytes: the buffer has a start.
            guard let out = buf.baseAddress else { count = 0; return }
            count = plan.write(into: out) ?? 0
        }
    }

    /// A large array or string cut in parts, one per core: each part is dumped by jansson on its
    /// own thread into its own region of the output (`bounds`: an upper bound of each part's
    /// size), then the parts are moved together, joined: array parts `[a,b]`, `[c]` as
    /// `[a,b,c]` (a comma where one part's `]` and the next one's `[` were), string parts
    /// `"ab"`, `"c"` as `"abc"` (the quotes between parts left out).
    private struct Parts {
        let bounds: [Int]
        let comma: Bool
        /// Dumps part `k` at the pointer, whose region holds `bounds[k]` bytes; returns its size,
        /// nil when jansson could not allocate.
        let dump: @Sendable (Int, UnsafeMutablePointer<UInt8>) -> Int?

        var bound: Int { bounds.reduce(0, +) }

        init(_ v: JSON) {
            switch v {
            case .array(let a):
                let parts = max(1, min(cores, a.count / minimumItems))
                let ranges = (0..<parts).map { k in a.count * k / parts..<a.count * (k + 1) / parts }
                bounds = ranges.map { ArrayPartDump.bound(a[$0]) }
                comma = true
                dump = { [bounds] k, out in ArrayPartDump.dump(a[ranges[k]], into: out, capacity: bounds[k]) }
            case .string(let s):
                let cuts = Self.characterCuts(s, parts: max(1, min(cores, s.utf8.count / minimumBytes)))
                bounds = (1..<cuts.count).map { (cuts[$0] - cuts[$0 - 1]) * 6 + 2 }
                comma = false
                dump = { [bounds] k, out in
                    var s = s
                    return s.withUTF8 { u in
                        let part = UnsafeBufferPointer(rebasing: u[cuts[k]..<cuts[k + 1]])
                        guard let j = json_stringn_nocheck(JanssonTree.chars(part), part.count) else { return nil }
                        defer { wb_json_decref(j) }
                        let n = json_dumpb(j, UnsafeMutableRawPointer(out).assumingMemoryBound(to: CChar.self), bounds[k], wb_json_dump_flags())
                        if n == 0 { return nil }  // a string's text has its quotes: jansson failed
                        precondition(n <= bounds[k], "jansson's output exceeds its estimate")
                        return n
                    }
                }
            default:
                let text = JSONCodec.encode(v, splicing: false)
                bounds = [text.count]
                comma = false
                dump = { _, out in
                    if text.isEmpty { return nil }  // jansson failed
                    out.update(from: text, count: text.count)
                    return text.count
                }
            }
        }

        /// Dumps every part on its own thread into `out` (at least `bound` bytes), joins them
        /// there and returns the joined size; nil when jansson could not allocate.
        func write(into out: UnsafeMutablePointer<UInt8>) -> Int? {
            if bounds.count == 1 { return dump(0, out) }  // one part: no thread, nothing to join
            var starts = [0], next = 0
            for b in bounds.dropLast() { next += b; starts.append(next) }
            let dumped = [Int?](unsafeUninitializedCapacity: bounds.count) { slots, count in
                // Several parts: the slots have a start. Each thread writes its own slot and its own
                // region; all have finished when this returns.
                guard let first = slots.baseAddress else { count = 0; return }
                let base = Unchecked(first), region = Unchecked(out)
                DispatchQueue.concurrentPerform(iterations: bounds.count) { [starts, dump] k in
                    (base.value + k).initialize(to: dump(k, region.value + starts[k]))
                }
                count = bounds.count
            }
            let sizes = dumped.compactMap { $0 }
            if sizes.count != bounds.count { return nil }
            var at = 0
            for k in 0..<sizes.count {
                let lo = k == 0 ? 0 : 1, hi = k == sizes.count - 1 ? sizes[k] : sizes[k] - 1
                if k > 0 && comma { out[at] = 0x2C; at += 1 }
                if at != starts[k] + lo { memmove(out + at, out + starts[k] + lo, hi - lo) }  // regions may overlap
                at += hi - lo
            }
            return at
        }

        /// Byte offsets that cut `s` into about `parts` runs of about equal size, each cut at
        /// the start of a character (never inside a UTF-8 sequence): `[0, …, count]`.
        static func characterCuts(_ s: String, parts: Int) -> [Int] {
            let bytes = s.utf8
            var cuts = [0], last = 0
            for k in 1..<max(1, parts) {
                var c = bytes.count * k / parts
                while c < bytes.count && bytes[bytes.index(bytes.startIndex, offsetBy: c)] & 0xC0 == 0x80 { c += 1 }
                if c > last && c < bytes.count { cuts.append(c); last = c }
            }
            cuts.append(bytes.count)
            return cuts
        }
    }

    /// A value shared with the threads of one `concurrentPerform` (each uses its own part of it).
    private struct Unchecked<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }
}
