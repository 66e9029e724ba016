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
/// jansson answers NULL when it cannot allocate a value: the builder then puts jansson's `null`
/// (a static value, no allocation) in its place and sets `outOfMemory`, so the tree stays whole
/// and is freed as usual, and the caller knows the tree is not the value (`JSONCodec.encode`
/// then answers empty bytes, never JSON text).
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
    /// Set when jansson could not allocate a value: the tree holds `null` in its place.
    private(set) var outOfMemory = false
    /// Where a long string seen so far stands: its node in the tree (while that is still the text
    /// itself), or, once it repeated, its index in `deferred`.
    private enum LongString {
        case inTree(UnsafeMutablePointer<json_t>)
        case deferred(Int)
    }
    private var longStrings: [(text: String, place: LongString)] = []
    static let maxRepeatCandidates = 16

    init(splicing: Bool) { self.splicing = splicing }

    /// A new jansson value (reference count 1) for `v`.
    mutating func make(_ v: JSON) -> UnsafeMutablePointer<json_t> {
        if splicing, LargeValues.isLarge(v) {
            if case .string(let s) = v, let known = longStrings.firstIndex(where: { Self.sameBytes($0.text, s) }) { return repeated(known) }
            let index = keepApart(v)
            if case .string(let s) = v, longStrings.count < Self.maxRepeatCandidates { longStrings.append((s, .deferred(index))) }
            return placeholderNode(index)
        }
        switch v {
        case .null: estimate += 4; return node(json_null())
        case .bool(let b): estimate += 5; return node(b ? json_true() : json_false())
        case .int(let i): estimate += 20; return node(json_integer(json_int_t(i)))
        case .double(let d): estimate += 26; return node(d.isFinite ? json_real(d) : json_null())
        case .string(var s):
            let long = splicing && s.utf8.count >= LargeValues.repeatThreshold
            if long, let known = longStrings.firstIndex(where: { Self.sameBytes($0.text, s) }) {
                return repeated(known)
            }
            estimate += s.utf8.count * 6 + 2  // `\u00XX` at worst per byte, and the quotes
            if splicing && LargeValues.looksLikePlaceholder(s) { ambiguous = true }
            guard let made = s.withUTF8({ json_stringn_nocheck(Self.chars($0), $0.count) }) else { return node(nil) }
            if long && longStrings.count < Self.maxRepeatCandidates { longStrings.append((s, .inTree(made))) }
            return made
        case .array(let a):
            guard let arr = json_array() else { return node(nil) }
            estimate += 2
            for e in a {
                if json_array_append_new(arr, make(e)) != 0 { outOfMemory = true }
                estimate += 1
            }
            return arr
        case .object(let o):
            guard let obj = json_object() else { return node(nil) }
            estimate += 2
            for (k, e) in o.members {
                var key = k
                estimate += key.utf8.count * 6 + 4
                if splicing && LargeValues.looksLikePlaceholder(key) { ambiguous = true }
                let value = make(e)
                if key.withUTF8({ json_object_setn_new_nocheck(obj, Self.chars($0), $0.count, value) }) != 0 { outOfMemory = true }
            }
            return obj
        }
    }

    /// `made`, or (jansson could not allocate it) jansson's static `null`, noting `outOfMemory`.
    private mutating func node(_ made: UnsafeMutablePointer<json_t>?) -> UnsafeMutablePointer<json_t> {
        if let made { return made }
        outOfMemory = true
        return wb_json_static_null()
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
        return node(p.withUTF8 { json_stringn_nocheck(Self.chars($0), $0.count) })
    }

    /// A placeholder for long string `known`, seen again: the first time it repeats, it is
    /// deferred and its first node (already in the tree) becomes a placeholder too.
    private mutating func repeated(_ known: Int) -> UnsafeMutablePointer<json_t> {
        switch longStrings[known].place {
        case .deferred(let index):
            return placeholderNode(index)
        case .inTree(let first):
            let index = keepApart(.string(longStrings[known].text))
            var p = LargeValues.placeholder(index)
            if p.withUTF8({ json_string_setn_nocheck(first, Self.chars($0), $0.count) }) != 0 { outOfMemory = true }
            uses[index] += 1
            longStrings[known].place = .deferred(index)
            return placeholderNode(index)
        }
    }

    /// Whether `a` and `b` are the same bytes (not Swift's `==`, which calls canonically
    /// equivalent strings equal: their JSON text differs).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let contiguous = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                // Equal counts: both start somewhere, or both are empty (no start).
                guard let xs = x.baseAddress, let ys = y.baseAddress else { return true }
                return memcmp(xs, ys, x.count) == 0
            }
        }
        return (contiguous ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// The bytes of `u` as jansson takes them (a valid pointer even when empty: the static
    /// text of an empty literal, as jansson refuses NULL).
    static func chars(_ u: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(u.baseAddress ?? Self.noBytes.utf8Start).assumingMemoryBound(to: CChar.self)
    }
    private static let noBytes: StaticString = ""
}
