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

    static func isLarge(_ v: JSON) -> Bool {
        switch v {
        case .array(let a): a.count >= arrayThreshold
        case .string(let s): s.utf8.count >= stringThreshold
        default: false
        }
    }

    /// What every placeholder starts with: random per process.
    static let marker = "\u{1}wb\(String(UInt64.random(in: .min ... .max), radix: 36))-"

    /// The string that stands for the `i`th large value of a dump.
    static func placeholder(_ i: Int) -> String { "\(marker)\(i)\u{1}" }

    /// Whether a string of the value itself could be taken for a placeholder (then the value is
    /// dumped whole, in one piece).
    static func looksLikePlaceholder(_ s: String) -> Bool {
        s.utf8.first == 1 && s.utf8.starts(with: marker.utf8)
    }

    /// `dumped` with each placeholder (they appear in the order of `values`) replaced by the
    /// text of its value.
    static func splice(_ values: [JSON], into dumped: [UInt8]) -> [UInt8] {
        let texts = values.map(dumpInParts)
        var out = [UInt8]()
        out.reserveCapacity(dumped.count + texts.reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.count } })
        var from = 0
        dumped.withUnsafeBytes { d in
            for (i, text) in texts.enumerated() {
                let token = JSONCodec.encode(.string(placeholder(i)), splitting: false)
                guard let offset = find(token, in: d, from: from) else {
                    preconditionFailure("jansson's dump lacks a placeholder it was given")
                }
                out.append(contentsOf: d[from..<offset])
                join(text.parts, separator: text.separator, into: &out)
                from = offset + token.count
            }
            out.append(contentsOf: d[from...])
        }
        return out
    }

    /// Where `token` first occurs in `d` at or after `from`.
    private static func find(_ token: [UInt8], in d: UnsafeRawBufferPointer, from: Int) -> Int? {
        token.withUnsafeBytes { t in
            var i = from
            while d.count - i >= t.count, let hit = memchr(d.baseAddress! + i, Int32(t[0]), d.count - i - t.count + 1) {
                let at = d.baseAddress!.distance(to: UnsafeRawPointer(hit))
                if memcmp(d.baseAddress! + at, t.baseAddress!, t.count) == 0 { return at }
                i = at + 1
            }
            return nil
        }
    }

    /// The compact JSON text of a large array or string, dumped in parts on every core.
    static func encode(_ v: JSON) -> [UInt8] {
        let text = dumpInParts(v)
        var out = [UInt8]()
        join(text.parts, separator: text.separator, into: &out)
        return out
    }

    /// A large array or string dumped in parts on every core, and what joins the parts.
    private static func dumpInParts(_ v: JSON) -> (parts: [[UInt8]], separator: [UInt8]) {
        switch v {
        case .array(let a):
            let parts = max(1, min(cores, a.count / minimumItems))
            return (dumpParts(parts) { k in
                ArrayPartDump.dump(a[a.count * k / parts..<a.count * (k + 1) / parts])
            }, [0x2C])
        case .string(var s):
            return s.withUTF8 { u in
                let cuts = characterCuts(u, parts: max(1, min(cores, u.count / minimumBytes)))
                let bytes = Unchecked(u)
                return (dumpParts(cuts.count - 1) { k in
                    let part = UnsafeBufferPointer(rebasing: bytes.value[cuts[k]..<cuts[k + 1]])
                    let j = json_stringn_nocheck(JanssonTree.chars(part), part.count)!
                    defer { wb_json_decref(j) }
                    return JSONCodec.dump(j, capacity: part.count * 6 + 2)
                }, [])
            }
        default: return ([JSONCodec.encode(v, splitting: false)], [])
        }
    }

    /// `dump(k)` for each part `k` in `0..<parts`, each on its own thread.
    private static func dumpParts(_ parts: Int, _ dump: @escaping (Int) -> [UInt8]) -> [[UInt8]] {
        let work = Unchecked(dump)
        return [[UInt8]](unsafeUninitializedCapacity: parts) { slots, count in
            // Each thread initialises exactly its own slot; all have finished when this returns.
            let base = Unchecked(slots.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: parts) { k in (base.value + k).initialize(to: work.value(k)) }
            count = parts
        }
    }

    /// Byte offsets that cut `bytes` into about `parts` runs of about equal size, each cut at
    /// the start of a character (never inside a UTF-8 sequence): `[0, …, bytes.count]`.
    private static func characterCuts(_ bytes: UnsafeBufferPointer<UInt8>, parts: Int) -> [Int] {
        var cuts = [0]
        for k in 1..<max(1, parts) {
            var c = bytes.count * k / parts
            while c < bytes.count && bytes[c] & 0xC0 == 0x80 { c += 1 }
            if c > cuts.last! && c < bytes.count { cuts.append(c) }
        }
        cuts.append(bytes.count)
        return cuts
    }

    /// The parts joined: array parts `[a,b]`, `[c]` as `[a,b,c]` (`separator` a comma where
    /// one part's `]` and the next one's `[` were), string parts `"ab"`, `"c"` as `"abc"` (no
    /// separator, the quotes between parts left out).
    private static func join(_ parts: [[UInt8]], separator: [UInt8], into out: inout [UInt8]) {
        for (k, p) in parts.enumerated() {
            let lo = k == 0 ? 0 : 1, hi = k == parts.count - 1 ? p.count : p.count - 1
            if k > 0 { out.append(contentsOf: separator) }
            out.append(contentsOf: p[lo..<hi])
        }
    }

    /// A value shared with the threads of one `concurrentPerform` (each uses its own part of it).
    private struct Unchecked<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }
}
