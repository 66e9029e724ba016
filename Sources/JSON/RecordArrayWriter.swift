import CJansson

/// Writes objects that all have the same keys, in the same order, as the elements of a JSON
/// array (`EncodedJSON.array` joins writers into one), without building a value per object.
///
/// A `listFiles` page is 10,000 such objects; building `JSON` values and then a jansson tree
/// for them was most of the time the page took. Here each record is written straight into one
/// buffer: the keys as jansson escaped them once, integers in decimal, and each string either
/// copied between quotes when it holds nothing JSON escapes (no `"`, `\` or control character:
/// exactly what jansson writes for it) or escaped by jansson. The text is byte for byte what
/// jansson's compact dump of the same objects writes (tested against it).
///
/// Usage per record: `beginRecord()`, one value call per key in key order, `endRecord()`.
/// Not thread-safe: one writer per thread.
public final class RecordArrayWriter {
    private let buffer: TextBuffer
    /// `{"key":` for the first key, `,"key":` for the others, as jansson escapes the keys.
    private let keyTexts: [[UInt8]]
    /// A jansson string reused to escape the strings that need it.
    private let scratch: UnsafeMutablePointer<json_t>
    private var member = 0
    /// Records written.
    public private(set) var count = 0

    public init(keys: [String], capacity: Int = 0) {
        scratch = json_string("")!
        var texts: [[UInt8]] = []
        for (i, key) in keys.enumerated() {
            texts.append((i == 0 ? [0x7B] : [0x2C]) + JSONCodec.encode(.string(key)) + [0x3A])
        }
        keyTexts = texts
        buffer = TextBuffer(capacity: capacity)
    }

    deinit { wb_json_decref(scratch) }

    var byteCount: Int { buffer.count }

    func appendBytes(to out: inout [UInt8]) { buffer.appendBytes(to: &out) }

    public func beginRecord() {
        precondition(member == 0, "a record was begun before the previous one ended")
        if count > 0 { buffer.append(0x2C) }
    }

    public func endRecord() {
        precondition(member == keyTexts.count, "a record ended before all of its keys were written")
        buffer.append(0x7D)
        member = 0
        count += 1
    }

    /// The next member: a string.
    public func string(_ s: String) {
        nextKey()
        var s = s
        s.withUTF8 { writeString(nil, $0) }
    }

    /// The next member: the string `prefix + s`, written without joining them first.
    public func string(_ prefix: String, _ s: String) {
        nextKey()
        var p = prefix, s = s
        p.withUTF8 { pu in s.withUTF8 { writeString(pu, $0) } }
    }

    /// The next member: an integer.
    public func int(_ v: Int64) {
        nextKey()
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits and a sign
        withUnsafeMutableBytes(of: &digits) { raw in
            let d = raw.bindMemory(to: UInt8.self)
            var i = d.count
            var m = v.magnitude
            repeat {
                i -= 1
                d[i] = UInt8(48 + m % 10)
                m /= 10
            } while m > 0
            if v < 0 { i -= 1; d[i] = 0x2D }
            buffer.append(UnsafeRawBufferPointer(rebasing: raw[i...]))
        }
    }

    /// The next member: a string of `count` ASCII bytes that `write` writes in place. Meant for
    /// text of a fixed alphabet (timestamps, hex digits); anything JSON escapes is escaped by
    /// jansson.
    public func string(count n: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
        nextKey()
        let start = buffer.reserve(n + 2)
        start[0] = 0x22
        write(start + 1)
        start[n + 1] = 0x22
        let body = UnsafeBufferPointer(start: start + 1, count: n)
        precondition(body.allSatisfy { $0 < 0x80 }, "in-place text must be ASCII")
        if BulkStrings.isPlain(body) {
            buffer.commit(n + 2)
        } else {
            let copy = Array(body)
            copy.withUnsafeBufferPointer { escape(nil, $0) }
        }
    }

    private func nextKey() {
        precondition(member < keyTexts.count, "more values than keys in a record")
        keyTexts[member].withUnsafeBytes { buffer.append($0) }
        member += 1
    }

    /// Writes `prefix + s` (prefix optional) as a JSON string.
    private func writeString(_ prefix: UnsafeBufferPointer<UInt8>?, _ s: UnsafeBufferPointer<UInt8>) {
        guard BulkStrings.isPlain(s), prefix.map(BulkStrings.isPlain) ?? true else {
            escape(prefix, s)
            return
        }
        let p = prefix?.count ?? 0
        let out = buffer.reserve(p + s.count + 2)
        out[0] = 0x22
        if let prefix, let base = prefix.baseAddress { (out + 1).update(from: base, count: p) }
        if let base = s.baseAddress { (out + 1 + p).update(from: base, count: s.count) }
        out[p + s.count + 1] = 0x22
        buffer.commit(p + s.count + 2)
    }

    /// Has jansson escape `prefix + s` as one string.
    private func escape(_ prefix: UnsafeBufferPointer<UInt8>?, _ s: UnsafeBufferPointer<UInt8>) {
        var joined = [UInt8]()
        joined.reserveCapacity((prefix?.count ?? 0) + s.count)
        if let prefix { joined.append(contentsOf: prefix) }
        joined.append(contentsOf: s)
        joined.withUnsafeBufferPointer { u in
            let chars = UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
            _ = json_string_setn_nocheck(scratch, chars, u.count)
        }
        buffer.dump(scratch)
    }
}
