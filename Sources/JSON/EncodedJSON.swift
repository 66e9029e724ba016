/// A JSON value already written as compact JSON text, copied into encoded output as it is.
///
/// Only this module makes one (`RecordArrayWriter`), and only with text that is exactly what
/// jansson's compact dump of the value writes, so output holding it is the same bytes as output
/// built from the plain value. Immutable.
public struct EncodedJSON: Sendable, Equatable {
    /// The JSON text.
    public let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The value the text stands for (decoded on each call: meant for tests and rare readers).
    public func decoded() -> JSON {
        guard let value = try? JSONCodec.decode(bytes) else { preconditionFailure("EncodedJSON holds invalid JSON") }
        return value
    }

    /// The array whose elements are the records of `parts`, in order.
    public static func array(_ parts: [RecordArrayWriter]) -> EncodedJSON {
        var out: [UInt8] = [0x5B]
        out.reserveCapacity(parts.reduce(2) { $0 + $1.byteCount + 1 })
        var first = true
        for part in parts where part.count > 0 {
            if !first { out.append(0x2C) }
            first = false
            part.appendBytes(to: &out)
        }
        out.append(0x5D)
        return EncodedJSON(bytes: out)
    }
}
