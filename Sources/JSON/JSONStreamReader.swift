import CJansson

/// Reads one JSON document a value at a time, so a document far larger than any one of its
/// values never exists as a tree: an object member by member, and an array member element by
/// element.
///
/// jansson parses every key and every value (with the same flags as `JSONCodec.decode`: UTF-8
/// checked, duplicate keys inside a value refused, its depth cap counted from the value, so the
/// walked levels come on top of it); this reader only steps over
/// the whitespace, `:` and `,` between them and the brackets of the object and array it walks.
/// Duplicate keys of a walked object are the caller's to refuse (`nextKey` returns them all).
/// A reader is a position in bytes it shares (no copy); `position` can be kept and a new reader
/// started there to read the same part again.
public struct JSONStreamReader: Sendable {
    public let bytes: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var position: Int
    /// Whether the next member or element is the first of its object or array (no `,` before it).
    private var first = true

    public init(_ bytes: [UInt8], at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// Whether the next value starts with `{` (whitespace skipped); nothing is consumed.
    public mutating func nextIsObject() -> Bool { peek() == UInt8(ascii: "{") }

    /// Steps into the object that starts here; `nextKey` then walks its members.
    public mutating func enterObject() throws(JSONDecodeError) {
        try expect("{", "an object")
        first = true
    }

    /// The key of the next member of the object being walked (its `:` consumed, so `value`,
    /// `enterArray` or `skipValue` reads its value), or nil at the object's end (`}` consumed).
    public mutating func nextKey() throws(JSONDecodeError) -> String? {
        if peek() == UInt8(ascii: "}") {
            position += 1
            return nil
        }
        if !first { try expect(",", "',' or '}'") }
        first = false
        guard peek() == UInt8(ascii: "\"") else { throw fault("an object key", kind: "invalidSyntax") }
        guard case .string(let key) = try value() else { throw fault("an object key", kind: "invalidSyntax") }
        // As jansson decides for the keys of the objects it reads.
        guard !key.utf8.contains(0) else { throw fault("an object key without NUL", kind: "nullByteInKey") }
        try expect(":", "':'")
        return key
    }

    /// Steps into the array that starts here, if one does (true); `nextElement` then walks it.
    /// Anything else is left unread (false).
    public mutating func enterArray() -> Bool {
        guard peek() == UInt8(ascii: "[") else { return false }
        position += 1
        first = true
        return true
    }

    /// The next element of the array being walked, or nil at its end (`]` consumed). After the
    /// end the reader walks the enclosing object again (its next member needs a `,`).
    public mutating func nextElement() throws(JSONDecodeError) -> JSON? {
        guard try atNextElement() else { return nil }
        return try value()
    }

    /// Steps over the next element of the array being walked (checked by jansson, never copied
    /// into a `JSON`); false at the array's end (`]` consumed).
    public mutating func skipElement() throws(JSONDecodeError) -> Bool {
        guard try atNextElement() else { return false }
        try parse { _ in }
        return true
    }

    /// The whole value that starts here, parsed by jansson.
    public mutating func value() throws(JSONDecodeError) -> JSON {
        var out = JSON.null
        try parse { out = JSON(jansson: $0) }
        return out
    }

    /// Moves to the next element's start (past its `,`), or past the array's `]` (false).
    private mutating func atNextElement() throws(JSONDecodeError) -> Bool {
        if peek() == UInt8(ascii: "]") {
            position += 1
            first = false
            return false
        }
        if !first { try expect(",", "',' or ']'") }
        first = false
        return true
    }

    /// Parses the value that starts here with jansson, hands its tree to `use`, and moves past it.
    private mutating func parse(_ use: (UnsafeMutablePointer<json_t>) -> Void) throws(JSONDecodeError) {
        _ = peek()
        var error = json_error_t()
        let start = position
        let root: UnsafeMutablePointer<json_t>? = bytes.withUnsafeBytes { raw in
            guard start < raw.count, let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else { return nil }
            return json_loadb(base + start, raw.count - start, wb_json_load_flags() | wb_json_prefix_flag(), &error)
        }
        guard let root else {
            var e = start < bytes.count ? JSONDecodeError(error) : fault("a value", kind: "prematureEnd")
            e.position += start
            throw e
        }
        defer { wb_json_decref(root) }
        position = start + Int(error.position)
        first = false
        use(root)
    }

    /// Checks that nothing but whitespace follows.
    public mutating func finish() throws(JSONDecodeError) {
        guard peek() == nil else { throw fault("the end of the document", kind: "trailingData") }
    }

    /// The next byte that is not JSON whitespace (the reader moves up to it), nil at the end.
    private mutating func peek() -> UInt8? {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return bytes[position]
            }
        }
        return nil
    }

    private mutating func expect(_ c: Unicode.Scalar, _ what: String) throws(JSONDecodeError) {
        guard peek() == UInt8(ascii: c) else { throw fault(what, kind: position < bytes.count ? "invalidSyntax" : "prematureEnd") }
        position += 1
    }

    private func fault(_ what: String, kind: String) -> JSONDecodeError {
        JSONDecodeError(reason: "expected \(what) at byte \(position)", kind: kind, line: 0, column: 0, position: position)
    }
}
