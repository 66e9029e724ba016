import CJansson

/// Why a byte sequence is not one JSON value, as jansson reports it.
public struct JSONDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// jansson's explanation, e.g. "maximum parsing depth reached" or "invalid UTF-8 string".
    public var reason: String
    /// The class of the problem: `invalidUTF8`, `tooDeep`, `numberOutOfRange`, `nullCharacter`,
    /// `duplicateKey`, `prematureEnd`, `invalidSyntax`, … (from jansson's error code).
    public var kind: String
    /// 1-based line and column, and 0-based byte position, of the problem (0 when unknown).
    public var line: Int
    public var column: Int
    public var position: Int

    public var description: String {
        line > 0 ? "\(reason) at line \(line), column \(column)" : reason
    }
}

/// The jansson codec: the only code in the product that touches `json_t`.
///
/// Thread safety: every function is safe to call from any thread concurrently; no jansson
/// value is shared between calls. `prepareForThreads()` must run once before threads start
/// (jansson seeds its hash function lazily otherwise, which is not thread-safe).
public enum JSONCodec {
    /// Seeds jansson's object hashing. Call once at startup, before any other thread exists.
    public static func prepareForThreads() {
        json_object_seed(0)
    }

    /// Parses exactly one JSON value (any type) from `bytes`.
    ///
    /// Accepts NUL inside strings; rejects invalid UTF-8, duplicate object keys, nesting
    /// deeper than jansson's compile-time cap (2048), integers outside Int64 and numbers
    /// that overflow a double, each with a precise reason.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(JSONDecodeError) -> JSON {
        var error = json_error_t()
        var empty: CChar = 0
        let root: UnsafeMutablePointer<json_t>? =
            if let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) {
                json_loadb(base, bytes.count, wb_json_load_flags(), &error)
            } else {
                json_loadb(&empty, 0, wb_json_load_flags(), &error)
            }
        guard let root else { throw JSONDecodeError(error) }
        defer { wb_json_decref(root) }
        return JSON(jansson: root)
    }

    public static func decode(_ bytes: [UInt8]) throws(JSONDecodeError) -> JSON {
        var result: Result<JSON, JSONDecodeError> = .success(.null)
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(JSONDecodeError) -> JSON in try decode(raw) }
        }
        return try result.get()
    }

    public static func decode(_ text: String) throws(JSONDecodeError) -> JSON {
        try decode(Array(text.utf8))
    }

    /// Serialises `value` compactly. The output never contains a raw newline (jansson
    /// escapes control characters), so it is safe for newline-delimited framing.
    /// Non-finite doubles, which JSON cannot carry, are written as `null`.
    public static func encode(_ value: JSON) -> [UInt8] {
        encode(value, splittingArrays: true)
    }

    /// `encode`, with large arrays written on every core (`LargeArrays`) or not.
    static func encode(_ value: JSON, splittingArrays: Bool) -> [UInt8] {
        var bulk = BulkStrings()
        let tree = value.makeJansson(&bulk, splittingArrays: splittingArrays)
        defer { wb_json_decref(tree) }
        let dumped = dump(tree, capacity: bulk.estimate + 16)
        return bulk.strings.isEmpty ? dumped : bulk.splice(into: dumped)
    }

    public static func encodeString(_ value: JSON) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    /// One `json_dumpb` into a buffer of the estimated worst-case size (untouched pages of a large
    /// allocation cost nothing), so the tree is serialised once.
    private static func dump(_ tree: UnsafeMutablePointer<json_t>, capacity estimate: Int) -> [UInt8] {
        let flags = wb_json_dump_flags()
        var capacity = estimate
        while true {
            var needed = 0
            let out = [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
                needed = json_dumpb(tree, UnsafeMutableRawPointer(buf.baseAddress!).assumingMemoryBound(to: CChar.self), capacity, flags)
                count = needed <= capacity ? needed : 0
            }
            if needed <= capacity { return out }
            capacity = needed
        }
    }
}

extension JSONDecodeError {
    init(_ e: json_error_t) {
        var e = e
        let text = withUnsafeBytes(of: &e.text) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let kind: String =
            switch json_error_code(&e) {
            case json_error_out_of_memory: "outOfMemory"
            case json_error_stack_overflow: "tooDeep"
            case json_error_invalid_utf8: "invalidUTF8"
            case json_error_premature_end_of_input: "prematureEnd"
            case json_error_end_of_input_expected: "trailingData"
            case json_error_invalid_syntax: "invalidSyntax"
            case json_error_invalid_format: "invalidFormat"
            case json_error_wrong_type: "wrongType"
            case json_error_null_character: "nullCharacter"
            case json_error_null_value: "nullValue"
            case json_error_null_byte_in_key: "nullByteInKey"
            case json_error_duplicate_key: "duplicateKey"
            case json_error_numeric_overflow: "numberOutOfRange"
            case json_error_item_not_found: "itemNotFound"
            case json_error_index_out_of_range: "indexOutOfRange"
            default: "unknown"
            }
        self.init(reason: text.isEmpty ? "invalid JSON" : text, kind: kind,
                  line: Int(e.line), column: Int(e.column), position: Int(e.position))
    }
}

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

    /// Builds a new jansson tree (reference count 1) for this value, swapping large strings for
    /// placeholders and adding up an upper bound of the encoded size in `bulk`.
    func makeJansson(_ bulk: inout BulkStrings, splittingArrays: Bool = false) -> UnsafeMutablePointer<json_t> {
        switch self {
        case .null: bulk.estimate += 5; return json_null()
        case .bool(let b): bulk.estimate += 6; return b ? json_true() : json_false()
        case .int(let i): bulk.estimate += 21; return json_integer(json_int_t(i))
        case .double(let d): bulk.estimate += 26; return d.isFinite ? json_real(d) : json_null()
        case .string(var s):
            if s.utf8.count >= BulkStrings.threshold { s = bulk.placeholder(for: s) } else { bulk.estimate += s.utf8.count * 6 + 3 }
            return s.withUTF8 { u in
                json_stringn_nocheck(UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self), u.count)
            }
        case .encoded(let e):
            var p = bulk.placeholder(forEncoded: e.bytes)
            return p.withUTF8 { u in
                json_stringn_nocheck(UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count)
            }
        case .array(let a):
            if splittingArrays && LargeArrays.worthSplitting(a.count) {
                var p = bulk.placeholder(forEncoded: LargeArrays.encode(a))
                return p.withUTF8 { u in
                    json_stringn_nocheck(UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count)
                }
            }
            let arr = json_array()!
            bulk.estimate += 2
            for v in a { json_array_append_new(arr, v.makeJansson(&bulk, splittingArrays: splittingArrays)); bulk.estimate += 1 }
            return arr
        case .object(let o):
            let obj = json_object()!
            bulk.estimate += 2
            for (k, v) in o.members {
                var key = k
                bulk.estimate += key.utf8.count * 6 + 4
                key.withUTF8 { u in
                    _ = json_object_setn_new_nocheck(
                        obj, UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self), u.count,
                        v.makeJansson(&bulk, splittingArrays: splittingArrays))
                }
            }
            return obj
        }
    }
}
