import JSON

/// The JSON codec and JSON-RPC message classification.
///
/// Input: when byte 0 is even, the rest is JSON text to decode; when odd, the rest drives a
/// generator of JSON values (any strings, including NUL, invalid UTF-8 turned into U+FFFD and
/// strings of 1 KiB and more; any integers and doubles; nesting) to encode.
/// Invariants:
/// - decoding either succeeds or throws a `JSONDecodeError` with a reason and a position within
///   the input; success implies the input was valid UTF-8;
/// - a decoded value re-encodes to bytes without a raw newline that decode to an equal value
///   and re-encode to the same bytes (encoding is a fixed point after one round);
/// - a generated value encodes to bytes that decode to it (non-finite doubles as `null`), except
///   that an object key holding NUL is refused by the decoder (`nullByteInKey`), and
///   decoded values are classified consistently as JSON-RPC messages (see `MessageChecks`).
public enum JSONTarget: FuzzTarget {
    public static let name = "json"

    public static func check(_ input: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var reader = ByteReader(input)
        if reader.byte() & 1 == 0 {
            let text = Array(reader.remaining)
            let value: JSON
            do {
                value = try JSONCodec.decode(text)
            } catch {
                try require(!error.reason.isEmpty, "a decode error without a reason")
                try require(error.position >= 0 && error.position <= text.count,
                            "error position \(error.position) outside an input of \(text.count) bytes")
                if error.kind != "tooDeep", let walked = walk(text) {
                    throw FuzzFailure("the stream reader accepted what the decoder refuses (\(error)): \(walked)")
                }
                return
            }
            if case .object = value {
                try require(walk(text) == value, "the stream reader disagrees with the decoder")
            }
            try require(String(validating: text, as: UTF8.self) != nil, "invalid UTF-8 was accepted")
            try roundTrip(value, expected: value)
            try MessageChecks.check(value)
        } else {
            var budget = 64
            let value = generate(&reader, depth: 0, budget: &budget)
            try roundTrip(value, expected: finite(value))
        }
    }

    /// The object `text` holds, read with `JSONStreamReader` (arrays element by element, one
    /// member twice refused as the decoder does), or nil when the reader refuses it.
    static func walk(_ text: [UInt8]) -> JSON? {
        var r = JSONStreamReader(text)
        var o = JSONObject()
        do throws(JSONDecodeError) {
            try r.enterObject()
            while let key = try r.nextKey() {
                guard o[key] == nil else { return nil }
                if r.enterArray() {
                    var a: [JSON] = []
                    while let e = try r.nextElement() { a.append(e) }
                    o[key] = .array(a)
                } else {
                    o[key] = try r.value()
                }
            }
            try r.finish()
        } catch {
            return nil
        }
        return .object(o)
    }

    static func roundTrip(_ value: JSON, expected: JSON) throws(FuzzFailure) {
        let encoded = JSONCodec.encode(value)
        try require(!encoded.contains(10), "encoded JSON holds a raw newline")
        let decoded: JSON
        do { decoded = try JSONCodec.decode(encoded) } catch {
            // jansson cannot read a NUL in an object key (values may hold NUL): the one value the
            // encoder writes that the decoder refuses, and then with this precise reason.
            if hasNulKey(value) && error.kind == "nullByteInKey" { return }
            throw FuzzFailure("the encoder's output does not decode (\(error)): \(String(decoding: encoded.prefix(200), as: UTF8.self))")
        }
        try require(decoded == expected, "encode → decode changed the value: \(String(decoding: encoded.prefix(200), as: UTF8.self))")
        try require(JSONCodec.encode(decoded) == encoded, "encode → decode → encode changed the bytes")
    }

    /// Builds a value from the input: at most `budget` nodes, nesting at most 12 deep.
    static func generate(_ r: inout ByteReader, depth: Int, budget: inout Int) -> JSON {
        budget -= 1
        let op = r.byte()
        switch op % 9 {
        case 0: return .null
        case 1: return .bool(op & 0x80 != 0)
        case 2: return .int(Int64(bitPattern: bits(&r)))
        case 3: return .double(Double(bitPattern: bits(&r)))
        case 4: return .string(String(decoding: r.take(Int(r.byte())), as: UTF8.self))
        case 5:
            // A long string (bulk encoder) built from a short pattern.
            var pattern = r.take(1 + Int(r.byte() % 16))
            if pattern.isEmpty { pattern = [UInt8(ascii: "a")] }  // the input ran out
            let count = 1024 + r.uint16() % 4096
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            while bytes.count < count { bytes.append(contentsOf: pattern) }
            return .string(String(decoding: bytes, as: UTF8.self))
        case 6, 7:
            guard depth < 12, budget > 0 else { return .null }
            let n = Int(r.byte() % 8)
            if op % 9 == 6 {
                var a: [JSON] = []
                for _ in 0..<n where budget > 0 && !r.isAtEnd { a.append(generate(&r, depth: depth + 1, budget: &budget)) }
                return .array(a)
            }
            var o = JSONObject()
            for _ in 0..<n where budget > 0 && !r.isAtEnd {
                let key = String(decoding: r.take(Int(r.byte() % 24)), as: UTF8.self)
                o[key] = generate(&r, depth: depth + 1, budget: &budget)
            }
            return .object(o)
        default:
            return .string(String(decoding: r.take(Int(r.byte() % 8)), as: UTF8.self))
        }
    }

    private static func bits(_ r: inout ByteReader) -> UInt64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(r.byte()) }
        return v
    }

    static func hasNulKey(_ value: JSON) -> Bool {
        switch value {
        case .array(let a): a.contains(where: hasNulKey)
        case .object(let o): o.members.contains { $0.0.utf8.contains(0) || hasNulKey($0.1) }
        default: false
        }
    }

    /// `value` as the encoder promises to write it: non-finite doubles become `null`.
    static func finite(_ value: JSON) -> JSON {
        switch value {
        case .double(let d) where !d.isFinite: .null
        case .array(let a): .array(a.map(finite))
        case .object(let o): .object(JSONObject(o.members.map { ($0, finite($1)) }))
        default: value
        }
    }
}
