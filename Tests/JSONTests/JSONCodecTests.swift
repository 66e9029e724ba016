@testable import JSON
import Testing

@Suite("JSON codec (jansson)")
struct JSONCodecTests {
    @Test("round-trips every value type and keeps object key order")
    func roundTrip() throws {
        let value: JSON = ["z": 1, "a": [true, false, nil, 1.5, "x"], "m": ["k": "v"]]
        let text = JSONCodec.encodeString(value)
        #expect(text == #"{"z":1,"a":[true,false,null,1.5,"x"],"m":{"k":"v"}}"#)
        #expect(try JSONCodec.decode(text) == value)
    }

    @Test("keeps 64-bit integers exact, beyond 2^53")
    func bigIntegers() throws {
        let big: Int64 = 9_007_199_254_740_993  // 2^53 + 1: not representable as a double
        #expect(try JSONCodec.decode("\(big)") == .int(big))
        #expect(JSONCodec.encodeString(.int(Int64.max)) == "9223372036854775807")
        #expect(JSONCodec.encodeString(.int(Int64.min)) == "-9223372036854775808")
    }

    @Test("rejects an integer beyond 2^63 with a precise reason")
    func integerOverflow() {
        #expect { try JSONCodec.decode("9223372036854775808") } throws: { error in
            (error as? JSONDecodeError)?.kind == "numberOutOfRange"
        }
    }

    @Test("rejects invalid UTF-8")
    func invalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]  // "\xC3(" : a broken two-byte sequence
        #expect { try JSONCodec.decode(bytes) } throws: { error in
            (error as? JSONDecodeError)?.kind == "invalidUTF8"
        }
    }

    @Test("rejects nesting 100,000 levels deep without crashing")
    func deepNesting() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect { try JSONCodec.decode(text) } throws: { error in
            (error as? JSONDecodeError)?.kind == "tooDeep"
        }
    }

    @Test("keeps NUL inside strings; refuses it in object keys with a precise reason")
    func nulInStrings() throws {
        let v = try JSONCodec.decode(#"{"a":"x\u0000y"}"#)
        #expect(v == ["a": "x\u{0}y"])
        #expect(JSONCodec.encodeString(v) == #"{"a":"x\u0000y"}"#)
        #expect { try JSONCodec.decode(#"{"a\u0000b":1}"#) } throws: { error in
            (error as? JSONDecodeError)?.kind == "nullByteInKey"
        }
    }

    @Test("rejects duplicate object keys")
    func duplicateKeys() {
        #expect(throws: JSONDecodeError.self) { try JSONCodec.decode(#"{"a":1,"a":2}"#) }
    }

    @Test("never writes a raw newline, so output is safe for NDJSON")
    func noRawNewline() {
        let bytes = JSONCodec.encode(["text": "line1\nline2\r\n\u{2028}"])
        #expect(!bytes.contains(10))
        #expect(!bytes.contains(13))
    }

    @Test("writes non-finite doubles as null")
    func nonFinite() {
        #expect(JSONCodec.encodeString([.double(.nan), .double(.infinity)]) == "[null,null]")
    }

    @Test("reports line and column of a syntax error")
    func errorPosition() {
        #expect { try JSONCodec.decode("{\n  \"a\": ]\n}") } throws: { error in
            guard let e = error as? JSONDecodeError else { return false }
            return e.line == 2 && e.column > 0
        }
    }

    @Test("round-trips a 16 MiB string")
    func largeString() throws {
        let s = String(repeating: "ab\"c\n", count: (16 << 20) / 5)
        let encoded = JSONCodec.encode(["s": .string(s)])
        #expect(try JSONCodec.decode(encoded) == ["s": .string(s)])
    }

    @Test("objects behave as ordered maps, large and small")
    func objectSemantics() {
        var o = JSONObject()
        for i in 0..<100 { o["k\(i)"] = .int(Int64(i)) }
        o["k5"] = "five"
        o["k7"] = nil
        #expect(o.count == 99)
        #expect(o["k5"] == "five")
        #expect(o["k7"] == nil)
        #expect(o["k99"] == 99)
        #expect(Array(o.keys.prefix(3)) == ["k0", "k1", "k2"])
    }
}

@Suite("Bulk string fast path")
struct BulkStringTests {
    @Test("large strings are written exactly as jansson writes them, wherever they sit in the tree")
    func identicalToJansson() throws {
        var text = ""
        for i in 0..<3000 { text += "line \(i) \"quoted\" \\ tab\t ctrl\u{1} é ✓ 😀\n" }
        let value: JSON = ["a": .string(text), "list": [.string(text + "x"), 1, "small"], "z": .string(text)]
        let encoded = JSONCodec.encode(value)
        #expect(try JSONCodec.decode(encoded) == value)
        // The escaper and jansson agree byte for byte (jansson writes strings under the threshold).
        let small = String(text.prefix(2000))
        var escaped = [UInt8]()
        BulkStrings.escape(small, into: &escaped)
        #expect(escaped == JSONCodec.encode(.string(small)))
    }

    @Test("a user string that looks like a placeholder is not confused with one")
    func placeholderLookalike() throws {
        let big = String(repeating: "y", count: 40_000)
        let value: JSON = ["fake": "\u{1}wb0-0\u{1}", "big": .string(big)]
        #expect(try JSONCodec.decode(JSONCodec.encode(value)) == value)
    }
}
