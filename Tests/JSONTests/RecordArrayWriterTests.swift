@testable import JSON
import Testing

/// The record writer and the flat-object writer must write exactly what one jansson dump of
/// the same values writes.
@Suite("JSON written without building values")
struct RecordArrayWriterTests {
    static let tricky = ["", "plain", "quote \" here", "back\\slash", "tab\tnl\ncr\r", "nul\u{0}in", "\u{1}\u{1f}\u{7f}",
                         "é ü 漢字 🙂", "a/b", "\u{2028}\u{2029}", String(repeating: "long ", count: 300),
                         "0123456789abcdef\"x", "0123456789abcdefgh\u{1}", "01234567\\"]

    @Test("records of strings, joined strings, integers and in-place text equal jansson's dump of the objects")
    func recordsMatchJansson() {
        let keys = ["k", "quo\"ted key", "ctl\u{1}", "n", "fixed"]
        let ints: [Int64] = [0, 7, -1, 10, -10, 1_234_567_890_123, Int64.max, Int64.min]
        let writer = RecordArrayWriter(keys: keys, capacity: 16)
        var expected: [JSON] = []
        for (i, s) in Self.tricky.enumerated() {
            let prefix = Self.tricky[(i + 3) % Self.tricky.count]
            let n = ints[i % ints.count]
            // In-place text: mostly plain, sometimes a byte JSON escapes (escaped by jansson).
            let fixed: [UInt8] = i % 3 == 0 ? Array("ab\"c\\d\u{1}".utf8) : Array("2026-11-22T11:20:00.123Z".utf8)
            writer.beginRecord()
            writer.string(s)
            writer.string(prefix, s)
            writer.string(prefix)
            writer.int(n)
            writer.string(count: fixed.count) { p in for (k, b) in fixed.enumerated() { p[k] = b } }
            writer.endRecord()
            expected.append(.object(JSONObject([(keys[0], .string(s)), (keys[1], .string(prefix + s)), (keys[2], .string(prefix)),
                                                (keys[3], .int(n)), (keys[4], .string(String(decoding: fixed, as: UTF8.self)))])))
        }
        let text = EncodedJSON.array([writer])
        #expect(text.bytes == JSONCodec.encode(.array(expected), splittingArrays: false))
        #expect(text.decoded() == .array(expected))
    }

    @Test("parts join in order, empty parts add nothing, no records make an empty array")
    func joiningParts() {
        func part(_ values: [Int64]) -> RecordArrayWriter {
            let w = RecordArrayWriter(keys: ["v"])
            for v in values { w.beginRecord(); w.int(v); w.endRecord() }
            return w
        }
        #expect(String(decoding: EncodedJSON.array([part([1, 2]), part([]), part([3])]).bytes, as: UTF8.self) == #"[{"v":1},{"v":2},{"v":3}]"#)
        #expect(EncodedJSON.array([part([])]).bytes == Array("[]".utf8))
        #expect(EncodedJSON.array([]).bytes == Array("[]".utf8))
    }

    @Test("large arrays of flat objects whose keys and value types change are dumped as one jansson dump")
    func flatObjectsMatchOneDump() {
        var items: [JSON] = []
        for i in 0..<(LargeArrays.threshold + 500) {
            let s = Self.tricky[i % Self.tricky.count]
            switch i % 9 {
            case 0, 1, 2: items.append(["path": .string("d/\(s)"), "size": .int(Int64(i)), "state": "current"])
            case 3: items.append(["path": .int(Int64(i)), "size": .string(s), "state": .null])          // same keys, other types
            case 4: items.append(["path": .bool(true), "size": .double(Double(i) / 3), "state": .double(.infinity)])
            case 5: items.append(["other": .string(s)])                                                     // other keys
            case 6: items.append([:])
            case 7: items.append(["nested": ["a": .array([1, 2])], "s": .string(s)])                       // not flat
            default: items.append(.string(s))                                                              // not an object
            }
        }
        let serial = JSONCodec.encode(.array(items), splittingArrays: false)
        #expect(LargeArrays.encode(items) == serial)
        let writer = FlatObjectWriter(capacity: 0)
        for e in items { writer.append(e) }
        #expect([0x5B] + writer.bytes() + [0x5D] == serial)
    }

    @Test("an encoded value reads like the value it stands for")
    func encodedReadsAsValue() {
        let w = RecordArrayWriter(keys: ["a"])
        w.beginRecord(); w.string("x"); w.endRecord()
        let v = JSON.encoded(EncodedJSON.array([w]))
        #expect(v.typeName == "array")
        #expect(v.arrayValue?.first?["a"]?.stringValue == "x")
        #expect(JSON.object(["e": v])["e"]?.arrayValue?.count == 1)
    }
}
