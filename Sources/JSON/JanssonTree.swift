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
/// With `splitting`, a value too large for one core (`LargeValues.isLarge`) is not put in the
/// tree: a placeholder string takes its place and the value is kept in `deferred`, in the order
/// jansson will dump the placeholders, to be dumped in parts and spliced in (`LargeValues`).
/// Not thread-safe: one builder per dump.
struct JanssonTree {
    let splitting: Bool
    private(set) var estimate = 0
    private(set) var deferred: [JSON] = []
    /// Set when a string or key of the value could be taken for a placeholder: the tree must then be
    /// built again without `splitting`.
    private(set) var ambiguous = false

    init(splitting: Bool) { self.splitting = splitting }

    /// A new jansson value (reference count 1) for `v`.
    mutating func make(_ v: JSON) -> UnsafeMutablePointer<json_t> {
        if splitting, LargeValues.isLarge(v) {
            var p = LargeValues.placeholder(deferred.count)
            deferred.append(v)
            estimate += p.utf8.count * 6 + 2
            return p.withUTF8 { json_stringn_nocheck(Self.chars($0), $0.count) }
        }
        switch v {
        case .null: estimate += 4; return json_null()
        case .bool(let b): estimate += 5; return b ? json_true() : json_false()
        case .int(let i): estimate += 20; return json_integer(json_int_t(i))
        case .double(let d): estimate += 26; return d.isFinite ? json_real(d) : json_null()
        case .string(var s):
            estimate += s.utf8.count * 6 + 2  // `\u00XX` at worst per byte, and the quotes
            if splitting && LargeValues.looksLikePlaceholder(s) { ambiguous = true }
            return s.withUTF8 { json_stringn_nocheck(Self.chars($0), $0.count) }
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
                if splitting && LargeValues.looksLikePlaceholder(key) { ambiguous = true }
                let value = make(e)
                key.withUTF8 { _ = json_object_setn_new_nocheck(obj, Self.chars($0), $0.count, value) }
            }
            return obj
        }
    }

    /// The bytes of `u` as jansson takes them (a valid pointer even when empty).
    static func chars(_ u: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
    }
}
