@testable import JSON
import Testing
import CJansson

@Suite("JSON codec (jansson)")
struct JSONCodecTests {
    @Test("round-trips every value type and keeps object key order")
    func roundTrip() throws {
        let value: JSON = ["z": 1, "a": [true, false, nil, 1.5, "x"], "m": ["k": "v"]]
        let text = JSONCodec.encodeString(value)
        #expect(text == #"{"z":1,"a":[true,false,null,1.5,"x"],"m":{"k":"v"}}"#)
        #expect(try JSONCodec.decode(text) == value)
    }

    @Test("an array joined from its elements' encoded texts is byte for byte what encoding the array writes")
    func encodeArrayOfEncoded() {
        let elements: [JSON] = [["jsonrpc": "2.0", "id": 1, "result": ["path": "a \"b\"\n", "size": 3]], .null, "x", [1, 2.5, [:]]]
        for n in 0...elements.count {
            let part = Array(elements.prefix(n))
            #expect(JSONCodec.encodeArray(ofEncoded: part.map(JSONCodec.encode)) == JSONCodec.encode(.array(part)))
        }
    }

    @Test("startsArray tells a batch's text by its first byte after JSON whitespace")
    func startsArray() {
        for (text, isArray) in [(" \t\r\n[1]", true), ("[]", true), ("{\"a\":[1]}", false), ("  \"[\"", false), ("", false), ("\u{FEFF}[", false)] {
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBytes { JSONCodec.startsArray($0) } == isArray, "\(text)")
        }
    }

    @Test("a large array dumped in parts on every core is byte for byte what one jansson dump writes")
    func largeArraysMatchOneDump() throws {
        let tricky = ["plain", "quote \" and \\ backslash", "tab\tnewline\n\u{1}\u{7f}", "é ü 漢字 🙂", "a/b", "", "nul\u{0}byte"]
        let big = String(repeating: "line \"x\"\n", count: 200)
        var items: [JSON] = []
        for i in 0..<(LargeValues.arrayThreshold * 2 + 7) {
            switch i % 5 {
            case 0: items.append(["path": .string("d/\(tricky[i % tricky.count])\(i)"), "size": .int(Int64(i)), "ok": .bool(i % 2 == 0)])
            case 1: items.append(.double(Double(i) / 7))
            case 2: items.append(.array([.null, .string(tricky[i % tricky.count]), .int(-Int64(i))]))
            case 3: items.append(i % 500 == 3 ? .string(big) : .string(tricky[i % tricky.count]))
            default: items.append(["nested": .array(Array(repeating: .int(1), count: 3)), "s": .string(big.prefix(i % 40).description)])
            }
        }
        let value: JSON = ["entries": .array(items), "nextCursor": "c", "small": .array([1, 2]), "again": .array(items)]

        let parallel = JSONCodec.encode(value)
        let serial = JSONCodec.encode(value, splicing: false)

        #expect(LargeValues.isLarge(.array(items)))
        #expect(parallel == serial)
        #expect(try JSONCodec.decode(parallel) == value)
        #expect(JSONCodec.encode(.array(items)) == JSONCodec.encode(.array(items), splicing: false))
        // Split in parts even on one core: the join itself is what is tested.
        #expect(LargeValues.encode(.array(items)) == JSONCodec.encode(.array(items), splicing: false))
    }

    @Test("runs of flat objects (one jansson object reused, values set in place) dump as one jansson dump writes")
    func flatObjectRunsMatchOneDump() throws {
        let tricky = ["plain", "quote \" and \\ backslash", "tab\tnewline\n\u{1}\u{7f}", "é ü 漢字 🙂", "", "nul\u{0}byte"]
        let values: [JSON] = [.string("s"), .int(-3), .int(Int64.max), .double(0.1), .double(.nan), .bool(true), .null, .string(String(repeating: "x\"", count: 300))]
        var items: [JSON] = []
        for i in 0..<(LargeValues.arrayThreshold * 2 + 3) {
            var o: JSONObject = ["path": .string("d/\(tricky[i % tricky.count])\(i)"), "size": .int(Int64(i)),
                                 "v": values[(i / 3) % values.count]]
            if i % 97 == 5 { o["extra"] = .string(tricky[i % tricky.count]) }  // other keys
            if i % 89 == 7 { o = ["size": .int(1), "path": "swapped order"] }
            if i % 101 == 9 { o["nested"] = ["k": .array([1, "x"])] }  // not flat
            items.append(i % 211 == 0 ? .string("not an object") : .object(o))
        }
        let serial = JSONCodec.encode(.array(items), splicing: false)
        #expect(LargeValues.encode(.array(items)) == serial)
        #expect(ArrayPartDump.dump(items[...]) == serial)
        #expect(ArrayPartDump.dump(items[5..<9]) == JSONCodec.encode(.array(Array(items[5..<9])), splicing: false))
        #expect(ArrayPartDump.dump([][...]) == Array("[]".utf8))
    }

    @Test("a long string dumped in parts on every core is byte for byte what one jansson dump writes")
    func largeStringsMatchOneDump() throws {
        // Every character class jansson treats apart, multi-byte characters straddling every
        // possible cut, and the string's edges.
        var text = "\u{1}\""
        var i = 0
        while text.utf8.count < LargeValues.stringThreshold * 3 + 5 {
            text += "line \(i) \"quoted\" \\ tab\t ctrl\u{1f}\u{0} é ✓ 😀 \u{7f}\n"
            i += 1
        }
        text += "😀"
        for s in [text, String(text.dropFirst()), String(repeating: "😀", count: LargeValues.stringThreshold / 2 + 1),
                  String(repeating: "é", count: LargeValues.stringThreshold)] {
            let one = JSONCodec.encode(.string(s), splicing: false)
            #expect(LargeValues.encode(.string(s)) == one)
            #expect(JSONCodec.encode(.string(s)) == one)
            let value: JSON = ["contents": [["text": .string(s), "uri": "file:///x"]], "again": .string(s), "n": 1]
            #expect(JSONCodec.encode(value) == JSONCodec.encode(value, splicing: false))
            #expect(try JSONCodec.decode(JSONCodec.encode(value)) == value)
        }
    }

    @Test("a user string that looks like a placeholder, even the real one, is written as it is")
    func placeholderLookalike() throws {
        let big = String(repeating: "y", count: LargeValues.stringThreshold)
        for fake in ["\u{1}wb0-0\u{1}", LargeValues.placeholder(0), LargeValues.placeholder(1)] {
            let value: JSON = ["fake": .string(fake), "big": .string(big), "list": .array(Array(repeating: 1, count: LargeValues.arrayThreshold))]
            let bytes = JSONCodec.encode(value)
            #expect(bytes == JSONCodec.encode(value, splicing: false))
            #expect(try JSONCodec.decode(bytes) == value)
        }
    }

    @Test("a long string that occurs more than once is escaped once, and the bytes are one jansson dump's")
    func repeatedStringsEscapedOnce() throws {
        var text = ""
        while text.utf8.count < LargeValues.repeatThreshold { text += "line \"q\" \\ tab\t é 😀 \u{1}\n" }
        let other = text + "!"
        let huge = String(repeating: "z\"", count: LargeValues.stringThreshold)
        // An MCP tool result: the text as content and again as structured content.
        let result: JSON = ["content": [["type": "text", "text": .string(text)]],
                            "structuredContent": ["data": .string(text), "other": .string(other), "size": 4096], "isError": false]
        var tree = JanssonTree(splicing: true)
        wb_json_decref(tree.make(result))
        #expect(tree.deferred == [.string(text)] && tree.uses == [2])
        let values: [JSON] = [
            result,
            [.string(text), .string(text), .string(text), .string(other), .string(other)],
            ["a": .string(huge), "b": .string(text), "c": .string(huge), "d": .string(text)],
            // the placeholder's own text inside a string, behind a quote: not a placeholder
            ["x": .string("\"" + LargeValues.placeholder(0) + "\"" + text), "y": .string(text), "z": .string(text)],
            [.string(String(text.dropLast())), .string(text)],
            // canonically equivalent (Swift's == says equal), the same length, other bytes: both kept
            [.string(text + "a\u{301}\u{316}"), .string(text + "a\u{316}\u{301}")],
            .string(text),
        ]
        for v in values {
            let bytes = JSONCodec.encode(v)
            #expect(bytes == JSONCodec.encode(v, splicing: false))
            #expect(try JSONCodec.decode(bytes) == v)
        }
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
