#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CJansson

/// Writes a run of JSON values with jansson, comma-separated, reusing one jansson object for
/// the objects whose members are all scalars.
///
/// A listing page or a search result is thousands of small objects with the same keys. Building
/// a jansson tree for them costs about twenty allocations per object (the object, its hash
/// table, a pair and a copy of each key, each value and its string), which was most of the
/// time such a reply took. Here one jansson object is kept: each flat object's values are set
/// into it in place (a string only when it changed) and jansson dumps it, into one growing
/// buffer. Keys are rebuilt only when an object's keys differ from the previous one's. jansson
/// still writes every byte, so the output is exactly what dumping the values one by one writes.
///
/// Values that are not flat objects (arrays, nested objects, strings at least
/// `BulkStrings.threshold` long) are encoded by `JSONCodec` and copied in.
///
/// Not thread-safe: one writer per thread (`LargeArrays` makes one per part).
final class FlatObjectWriter {
    private let buffer: TextBuffer
    private let object: UnsafeMutablePointer<json_t>
    /// The reused object's members in order; `value` is owned by `object`.
    private var slots: [Slot] = []
    private var count = 0

    private enum Kind { case string, int, real, constant }
    private struct Slot {
        var key: String
        var value: UnsafeMutablePointer<json_t>
        var kind: Kind
    }

    init(capacity: Int) {
        object = json_object()!
        buffer = TextBuffer(capacity: capacity)
    }

    deinit { wb_json_decref(object) }

    /// Appends `value` (after a `,` unless it is the first).
    func append(_ value: JSON) {
        if count > 0 { buffer.append(0x2C) }
        count += 1
        guard case .object(let o) = value, Self.isFlat(o) else {
            JSONCodec.encode(value, splittingArrays: false).withUnsafeBytes { buffer.append($0) }
            return
        }
        load(o)
        buffer.dump(object)
    }

    /// The bytes written so far.
    func bytes() -> [UInt8] { buffer.bytes }

    private static func isFlat(_ o: JSONObject) -> Bool {
        for m in o.members {
            switch m.value {
            case .array, .object: return false
            case .string(let s) where s.utf8.count >= BulkStrings.threshold: return false
            default: continue
            }
        }
        return true
    }

    /// Makes `object` hold `o`'s members, in its order.
    private func load(_ o: JSONObject) {
        let members = o.members
        var sameKeys = members.count == slots.count
        if sameKeys {
            for i in members.indices where members[i].key != slots[i].key {
                sameKeys = false
                break
            }
        }
        if !sameKeys {
            json_object_clear(object)
            slots.removeAll(keepingCapacity: true)
            for m in members {
                let (value, kind) = Self.make(m.value)
                slots.append(Slot(key: m.key, value: value, kind: kind))
                set(m.key, value)
            }
            return
        }
        for i in members.indices {
            let slot = slots[i]
            switch (members[i].value, slot.kind) {
            case (.string(var s), .string):
                s.withUTF8 { u in
                    let n = json_string_length(slot.value)
                    if n == u.count, n == 0 || memcmp(json_string_value(slot.value), u.baseAddress!, n) == 0 { return }
                    _ = json_string_setn_nocheck(slot.value, Self.chars(u), u.count)
                }
            case (.int(let v), .int):
                _ = json_integer_set(slot.value, json_int_t(v))
            case (.double(let d), .real) where d.isFinite:
                _ = json_real_set(slot.value, d)
            default:
                let (value, kind) = Self.make(members[i].value)
                slots[i].value = value
                slots[i].kind = kind
                set(slot.key, value)
            }
        }
    }

    /// Sets `key` to `value` (whose reference `object` takes), in place when the key exists.
    private func set(_ key: String, _ value: UnsafeMutablePointer<json_t>) {
        var key = key
        key.withUTF8 { u in _ = json_object_setn_new_nocheck(object, Self.chars(u), u.count, value) }
    }

    /// A new jansson value for a scalar, as `JSON.makeJansson` makes it.
    private static func make(_ v: JSON) -> (UnsafeMutablePointer<json_t>, Kind) {
        switch v {
        case .string(var s): return (s.withUTF8 { json_stringn_nocheck(chars($0), $0.count) }, .string)
        case .int(let i): return (json_integer(json_int_t(i)), .int)
        case .double(let d) where d.isFinite: return (json_real(d), .real)
        default:
            var unused = BulkStrings()
            return (v.makeJansson(&unused), .constant)
        }
    }

    private static func chars(_ u: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
    }
}
