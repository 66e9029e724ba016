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

    @Test("a large array written on every core is byte for byte what one jansson dump writes")
    func largeArraysMatchOneDump() throws {
        let tricky = ["plain", "quote \" and \\ backslash", "tab\tnewline\n\u{1}\u{7f}", "é ü 漢字 🙂", "a/b", ""]
        let big = String(repeating: "line \"x\"\n", count: 200)  // over BulkStrings' threshold
        var items: [JSON] = []
        for i in 0..<(LargeArrays.threshold * 2 + 7) {
            switch i % 5 {
            case 0: items.append(["path": .string("d/\(tricky[i % tricky.count])\(i)"), "size": .int(Int64(i)), "ok": .bool(i % 2 == 0)])
            case 1: items.append(.double(Double(i) / 7))
            case 2: items.append(.array([.null, .string(tricky[i % tricky.count]), .int(-Int64(i))]))
            case 3: items.append(i % 500 == 3 ? .string(big) : .string(tricky[i % tricky.count]))
            default: items.append(["nested": .array(Array(repeating: .int(1), count: 3)), "s": .string(big.prefix(i % 40).description)])
            }
        }
        let value: JSON = ["entries": .array(items), "nextCursor": "c", "small": .array([1, 2])]

        let parallel = JSONCodec.encode(value)
        let serial = JSONCodec.encode(value, splittingArrays: false)

        #expect(LargeArrays.worthSplitting(items.count) == (LargeArrays.cores > 1))
        #expect(parallel == serial)
        #expect(try JSONCodec.decode(parallel) == value)
        #expect(JSONCodec.encode(.array(items)) == JSONCodec.encode(.array(items), splittingArrays: false))
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

    @Test("the eight-bytes-at-a-time test finds every byte that needs escaping, in every position")
    func wordTest() {
        var rng = SystemRandomNumberGenerator()
        func bytewise(_ w: UInt64) -> Bool {
            (0..<8).contains { k in
                let b = UInt8(truncatingIfNeeded: w >> (8 * UInt64(k)))
                return b < 0x20 || b == 0x22 || b == 0x5C
            }
        }
        for b in 0...255 {
            for k in 0..<8 {
                for _ in 0..<16 {
                    // Filler that needs no escaping (printable ASCII or UTF-8 continuation/lead bytes).
                    var w: UInt64 = 0
                    for j in 0..<8 {
                        var f = UInt8.random(in: 0x23...0xFF, using: &rng)
                        if f == 0x5C { f = 0x5D }
                        w |= UInt64(j == k ? UInt8(b) : f) << (8 * UInt64(j))
                    }
                    #expect(BulkStrings.mayNeedEscape(w) == bytewise(w), "byte \(b) at \(k): \(String(w, radix: 16))")
                }
            }
        }
        func firstSpecial(_ w: UInt64) -> Int? {
            (0..<8).first { k in
                let b = UInt8(truncatingIfNeeded: w >> (8 * UInt64(k)))
                return b < 0x20 || b == 0x22 || b == 0x5C
            }
        }
        for _ in 0..<100_000 {
            let w = UInt64.random(in: .min ... .max, using: &rng)
            #expect(BulkStrings.mayNeedEscape(w) == bytewise(w))
            // The escaper jumps to the lowest flagged byte: it must be the first to escape.
            if let k = firstSpecial(w) { #expect(BulkStrings.escapeMask(w).trailingZeroBitCount >> 3 == k) }
        }
    }

    @Test("escaping agrees with jansson for every byte value at every offset")
    func everyByteEverywhere() throws {
        for c in (0..<128).map({ Unicode.Scalar(UInt8($0)) }) + ["é", "✓", "😀"] {
            for offset in 0..<17 {
                let s = String(repeating: "a", count: offset) + String(c) + String(repeating: "b", count: 20)
                var escaped = [UInt8]()
                BulkStrings.escape(s, into: &escaped)
                #expect(escaped == JSONCodec.encode(.string(s)), "U+\(String(c.value, radix: 16)) at \(offset)")
            }
        }
        // Several in one word, and runs of them.
        for gap in 0..<10 {
            for (x, y) in [("\"", "\n"), ("\u{1}", "\\"), ("\u{1f}", "\u{7f}"), ("\\", "\"")] {
                let s = "ab" + x + String(repeating: "c", count: gap) + y + y + "é" + x + String(repeating: "d", count: 11)
                var escaped = [UInt8]()
                BulkStrings.escape(s, into: &escaped)
                #expect(escaped == JSONCodec.encode(.string(s)), "gap \(gap)")
            }
        }
    }

    @Test("a user string that looks like a placeholder is not confused with one")
    func placeholderLookalike() throws {
        let big = String(repeating: "y", count: 40_000)
        let value: JSON = ["fake": "\u{1}wb0-0\u{1}", "big": .string(big)]
        #expect(try JSONCodec.decode(JSONCodec.encode(value)) == value)
    }
}
