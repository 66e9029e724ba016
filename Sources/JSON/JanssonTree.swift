#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CJansson

extension JSON {
    /// Copies a jansson tree into a Swift value. jansson has already validated UTF-8.
    init(jansson j: UnsafeMutablePointer<json_t>) {
        switch wb_json_typeof(j) {
        case JSON_OBJECT:
            var o = JSONObject()
            o.reserveCapacity(json_object_size(j))
            var it = json_object_iter(j)
            while let cur = it {
                let key = String(
                    decoding: UnsafeRawBufferPointer(start: json_object_iter_key(cur), count: json_object_iter_key_len(cur)),
                    as: UTF8.self)
                o.appendUnchecked(key, JSON(jansson: json_object_iter_value(cur)))
                it = json_object_iter_next(j, cur)
            }
            self = .object(o)
        case JSON_ARRAY:
            let n = json_array_size(j)
            var a = [JSON]()
            a.reserveCapacity(n)
            for i in 0..<n { a.append(JSON(jansson: json_array_get(j, i))) }
            self = .array(a)
        case JSON_STRING:
            self = .string(String(
                decoding: UnsafeRawBufferPointer(start: json_string_value(j), count: json_string_length(j)),
                as: UTF8.self))
        case JSON_INTEGER: self = .int(Int64(wb_json_integer_value(j)))
        case JSON_REAL: self = .double(json_real_value(j))
        case JSON_TRUE: self = .bool(true)
        case JSON_FALSE: self = .bool(false)
        default: self = .null
        }
    }
}

/// Builds the jansson tree of a `JSON` value for one dump, adding up an upper bound of the dumped
/// size (`estimate`) as it goes.
///
/// With `splicing`, some strings and arrays are not dumped in the tree: a placeholder string takes
/// their place, the value is kept in `deferred` (the placeholder's number is its index there), and
/// `LargeValues.splice` puts jansson's text of it in the placeholder's place:
/// - a value too large for one core (`LargeValues.isLarge`), to be dumped in parts on every core;
/// - a string of `LargeValues.repeatThreshold` bytes or more that occurs again in the same value
///   (an MCP tool result carries a file's text both as `content` text and in `structuredContent`),
///   so jansson escapes it once and the splice copies its text to each place it occurs. Only the
///   first `maxRepeatCandidates` such strings of a value are compared (a bound on the work for a
///   value of many long strings, which then are simply dumped where they are).
/// Not thread-safe: one builder per dump.
struct JanssonTree {
    let splicing: Bool
    private(set) var estimate = 0
    /// The values dumped apart; placeholder `i` stands for `deferred[i]`.
    private(set) var deferred: [JSON] = []
    /// How many placeholders stand for each deferred value.
    private(set) var uses: [Int] = []
    /// Set when a string or key of the value could be taken for a placeholder: the tree must then be
    /// built again without `splicing`.
    private(set) var ambiguous = false
    /// The long strings seen so far: their text, their node in the tree (while it is still the
    /// text itself) and, once deferred, their index in `deferred`.
    private var longStrings: [(text: String, node: UnsafeMutablePointer<json_t>?, index: Int?)] = []
    static let maxRepeatCandidates = 16

    init(splicing: Bool) { self.splicing = splicing }

    /// A new jansson value (reference count 1) for `v`.
    mutating func make(_ v: JSON) -> UnsafeMutablePointer<json_t> {
        if splicing, LargeValues.isLarge(v) {
            if case .string(let s) = v, let known = longStrings.firstIndex(where: { Self.sameBytes($0.text, s) }) { return repeated(known) }
            let index = keepApart(v)
            if case .string(let s) = v, longStrings.count < Self.maxRepeatCandidates { longStrings.append((s, nil, index)) }
            return placeholderNode(index)
        }
        switch v {
        case .null: estimate += 4; return json_null()
        case .bool(let b): estimate += 5; return b ? json_true() : json_false()
        case .int(let i): estimate += 20; return json_integer(json_int_t(i))
        case .double(let d): estimate += 26; return d.isFinite ? json_real(d) : json_null()
        case .string(var s):
            let long = splicing && s.utf8.count >= LargeValues.repeatThreshold
            if long, let known = longStrings.firstIndex(where: { Self.sameBytes($0.text, s) }) {
                return repeated(known)
            }
            estimate += s.utf8.count * 6 + 2  // `\u00XX` at worst per byte, and the quotes
            if splicing && LargeValues.looksLikePlaceholder(s) { ambiguous = true }
            let node = s.withUTF8 { json_stringn_nocheck(Self.chars($0), $0.count) }!
            if long && longStrings.count < Self.maxRepeatCandidates { longStrings.append((s, node, nil)) }
            return node
        case .array(let a):
            let arr = json_array()!
            estimate += 2
            for e in a {
                json_array_append_new(arr, make(e))
                estimate += 1
            }
            return arr
        case .object(let o):
            let obj = json_object()!
            estimate += 2
            for (k, e) in o.members {
                var key = k
                estimate += key.utf8.count * 6 + 4
                if splicing && LargeValues.looksLikePlaceholder(key) { ambiguous = true }
                let value = make(e)
                key.withUTF8 { _ = json_object_setn_new_nocheck(obj, Self.chars($0), $0.count, value) }
            }
            return obj
        }
    }

    /// Keeps `v` to be dumped apart; returns its placeholder number.
    private mutating func keepApart(_ v: JSON) -> Int {
        deferred.append(v)
        uses.append(0)
        return deferred.count - 1
    }

    /// A placeholder node for deferred value `index`.
    private mutating func placeholderNode(_ index: Int) -> UnsafeMutablePointer<json_t> {
        var p = LargeValues.placeholder(index)
        uses[index] += 1
        estimate += p.utf8.count * 6 + 2
        return p.withUTF8 { json_stringn_nocheck(Self.chars($0), $0.count) }!
    }

    /// A placeholder for long string `known`, seen again: the first time it repeats, it is
    /// deferred and its first node (already in the tree) becomes a placeholder too.
    private mutating func repeated(_ known: Int) -> UnsafeMutablePointer<json_t> {
        if let index = longStrings[known].index { return placeholderNode(index) }
        let index = keepApart(.string(longStrings[known].text))
        var p = LargeValues.placeholder(index)
        _ = p.withUTF8 { json_string_setn_nocheck(longStrings[known].node!, Self.chars($0), $0.count) }
        uses[index] += 1
        longStrings[known] = (longStrings[known].text, nil, index)
        return placeholderNode(index)
    }

    /// Whether `a` and `b` are the same bytes (not Swift's `==`, which calls canonically
    /// equivalent strings equal: their JSON text differs).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let contiguous = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
        return (contiguous ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// The bytes of `u` as jansson takes them (a valid pointer even when empty).
    static func chars(_ u: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
    }
}
