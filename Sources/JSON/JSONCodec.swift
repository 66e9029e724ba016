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

    /// Serialises `value` compactly: the one way the product writes JSON text, and jansson
    /// writes every byte of it. The output never contains a raw newline (jansson escapes control
    /// characters), so it is safe for newline-delimited framing. Non-finite doubles, which JSON
    /// cannot carry, are written as `null`.
    ///
    /// Values too large for one core (long arrays, long strings: see `LargeValues`) are dumped by
    /// jansson in parts on every core and the parts' text joined, and a long string that occurs
    /// more than once is escaped by jansson once and its text copied to each place; the bytes are
    /// those of one `json_dumpb` of the whole value (tested).
    ///
    /// When jansson cannot allocate (it answers NULL; Swift's own allocations end the process),
    /// the answer is empty bytes, which are never JSON text: never a trap, never a value with a
    /// part missing.
    public static func encode(_ value: JSON) -> [UInt8] {
        encode(value, splicing: true)
    }

    /// Whether `bytes`, if they are JSON text, are an array: the first byte after JSON's
    /// whitespace is `[`. A look at one byte, no parsing, for refusing a batch by its size
    /// before jansson builds it.
    public static func startsArray(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for b in bytes {
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D: continue  // JSON whitespace
            default: return b == 0x5B  // `[`
            }
        }
        return false
    }

    /// The compact text of the array whose elements' texts are `elements` (each one `encode`'s
    /// output): byte for byte what `encode` of the array writes, as jansson writes an array as
    /// its elements' compact texts between commas (see `ArrayPartDump`). For an array whose
    /// elements are encoded one by one as they become known, so only their text is kept.
    public static func encodeArray(ofEncoded elements: [[UInt8]]) -> [UInt8] {
        let size = elements.reduce(2) { $0 + $1.count } + max(0, elements.count - 1)
        var out = [UInt8]()
        out.reserveCapacity(size)
        out.append(0x5B)  // `[`, where jansson's array dump has it
        for (i, e) in elements.enumerated() {
            if i > 0 { out.append(0x2C) }  // `,`, where jansson's array dump has it
            out.append(contentsOf: e)
        }
        out.append(0x5D)  // `]`
        return out
    }

    public static func encodeString(_ value: JSON) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    /// `encode`, with large and repeated values dumped apart and spliced in, or the whole tree in
    /// one dump.
    static func encode(_ value: JSON, splicing: Bool) -> [UInt8] {
        var tree = JanssonTree(splicing: splicing)
        let root = tree.make(value)
        if tree.ambiguous || tree.outOfMemory {
            wb_json_decref(root)
            return tree.outOfMemory ? [] : encode(value, splicing: false)
        }
        let dumped = dump(root, capacity: tree.estimate + 16)
        wb_json_decref(root)
        return tree.deferred.isEmpty || dumped.isEmpty ? dumped : LargeValues.splice(tree.deferred, uses: tree.uses, into: dumped)
    }

    /// One `json_dumpb` into a buffer of the estimated worst-case size (untouched pages of a large
    /// allocation cost nothing), so the tree is serialised once. Empty when jansson fails.
    static func dump(_ tree: UnsafeMutablePointer<json_t>, capacity estimate: Int) -> [UInt8] {
        let flags = wb_json_dump_flags()
        var capacity = estimate
        while true {
            var needed = 0
            let out = [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
                // jansson takes no buffer (NULL) with a capacity of 0, the one case without a start.
                needed = json_dumpb(tree, UnsafeMutableRawPointer(buf.baseAddress)?.assumingMemoryBound(to: CChar.self), capacity, flags)
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

