#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CJansson

/// A growing buffer of JSON text that jansson dumps into and the writers of this module
/// append to. Owned by one writer: not thread-safe.
final class TextBuffer {
    private var raw = wb_json_buffer(data: nil, length: 0, capacity: 0)

    init(capacity: Int = 0) {
        if capacity > 0 { _ = reserve(capacity) }
    }

    deinit { free(raw.data) }

    /// Bytes written so far.
    var count: Int { raw.length }

    /// Room for `n` more bytes at the end; `commit` counts those written there.
    func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        guard let p = wb_json_buffer_reserve(&raw, n) else { fatalError("out of memory writing JSON") }
        return UnsafeMutableRawPointer(p).assumingMemoryBound(to: UInt8.self)
    }

    func commit(_ n: Int) { raw.length += n }

    func append(_ byte: UInt8) {
        reserve(1)[0] = byte
        raw.length += 1
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(reserve(bytes.count)).copyMemory(from: base, byteCount: bytes.count)
        raw.length += bytes.count
    }

    /// Appends jansson's compact dump of `json`.
    func dump(_ json: UnsafeMutablePointer<json_t>) {
        guard wb_json_dump_append(json, &raw) == 0 else { fatalError("jansson could not write a value") }
    }

    func appendBytes(to out: inout [UInt8]) {
        guard let data = raw.data else { return }
        out.append(contentsOf: UnsafeRawBufferPointer(start: data, count: raw.length))
    }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        appendBytes(to: &out)
        return out
    }
}
