/// A value decoded from a binary property list.
enum PropertyListValue: Equatable, Sendable {
    case dictionary([String: PropertyListValue])
    case array([PropertyListValue])
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case data([UInt8])
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
}

/// A reader for Apple's binary property lists ("bplist00"), for untrusted input.
///
/// Layout: the 8-byte magic, the objects, an offset table (one `offsetIntSize`-byte big-endian
/// offset per object), then a 32-byte trailer: 6 unused bytes, offsetIntSize, objectRefSize,
/// numObjects (8 bytes BE), topObject (8 bytes BE), offsetTableOffset (8 bytes BE). Each object
/// starts with a marker byte whose high nibble is its type and low nibble its length (15: the
/// length follows as an integer object).
///
/// Fuzz safety: every count is checked against the bytes left before it is used (with
/// overflow-checked arithmetic), objects must lie between the magic and the offset table,
/// references must name an existing object, nesting deeper than `maxDepth` or a reference
/// back to an object being decoded (a cycle) fails the whole parse, and each object is decoded
/// at most once (shared objects are memoised), so the work is linear in the input. Supported:
/// dictionaries with string keys, arrays, ASCII and UTF-16 strings, integers up to 64 bits
/// (128-bit ones when the value fits), reals, booleans, data and dates; sets, UIDs and null are
/// refused. Duplicate dictionary keys are refused (one plist, one meaning).
struct BinaryPropertyList {
    static let maxDepth = 64

    private let bytes: [UInt8]
    private let offsetIntSize: Int
    private let objectRefSize: Int
    private let objectCount: Int
    private let topObject: Int
    /// Where the offset table starts: the end of the object area.
    private let objectsEnd: Int
    private var decoded: [Int: PropertyListValue] = [:]
    private var inProgress: Set<Int> = []

    /// Decodes the top object of `bytes`, or nil when anything about them is wrong.
    static func parse(_ bytes: [UInt8]) -> PropertyListValue? {
        guard var reader = BinaryPropertyList(bytes) else { return nil }
        return reader.object(reader.topObject, depth: 0)
    }

    private init?(_ bytes: [UInt8]) {
        // Magic, at least one marker byte, a one-entry offset table, the trailer.
        guard bytes.count >= 8 + 1 + 1 + 32, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
        let trailer = bytes.count - 32
        let offsetIntSize = Int(bytes[trailer + 6])
        let objectRefSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetIntSize), (1...8).contains(objectRefSize),
              let count = Self.int(Self.unsigned(bytes, at: trailer + 8, width: 8)),
              let top = Self.int(Self.unsigned(bytes, at: trailer + 16, width: 8)),
              let table = Self.int(Self.unsigned(bytes, at: trailer + 24, width: 8)),
              count >= 1, top < count, table > 8, table <= trailer
        else { return nil }
        let (tableSize, overflow) = count.multipliedReportingOverflow(by: offsetIntSize)
        guard !overflow, tableSize <= trailer - table else { return nil }
        self.bytes = bytes
        self.offsetIntSize = offsetIntSize
        self.objectRefSize = objectRefSize
        self.objectCount = count
        self.topObject = top
        self.objectsEnd = table
    }

    /// Decodes object number `index`.
    private mutating func object(_ index: Int, depth: Int) -> PropertyListValue? {
        guard index >= 0, index < objectCount, depth <= Self.maxDepth else { return nil }
        if let value = decoded[index] { return value }
        guard !inProgress.contains(index) else { return nil }  // a cycle
        let entry = objectsEnd + index * offsetIntSize  // in bounds: checked in init
        guard let start = Self.int(Self.unsigned(bytes, at: entry, width: offsetIntSize)),
              start >= 8, start < objectsEnd else { return nil }
        inProgress.insert(index)
        defer { inProgress.remove(index) }
        guard let value = decode(at: start, depth: depth) else { return nil }
        decoded[index] = value
        return value
    }

    private mutating func decode(at start: Int, depth: Int) -> PropertyListValue? {
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            return marker == 0x08 ? .bool(false) : marker == 0x09 ? .bool(true) : nil
        case 0x1:
            return integer(at: start + 1, width: 1 << min(low, 5)).map { .integer($0) }
        case 0x2:
            guard low == 2 || low == 3, let bits = payload(at: start + 1, count: 1 << low) else { return nil }
            let raw = Self.unsigned(bytes, at: bits.lowerBound, width: bits.count)
            return .real(low == 2 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw))
        case 0x3:
            guard marker == 0x33, let bits = payload(at: start + 1, count: 8) else { return nil }
            return .date(Double(bitPattern: Self.unsigned(bytes, at: bits.lowerBound, width: 8)))
        case 0x4:
            guard let (count, first) = length(low, at: start), let range = payload(at: first, count: count)
            else { return nil }
            return .data(Array(bytes[range]))
        case 0x5:
            guard let (count, first) = length(low, at: start), let range = payload(at: first, count: count),
                  bytes[range].allSatisfy({ $0 < 0x80 }) else { return nil }
            return .string(String(decoding: bytes[range], as: UTF8.self))
        case 0x6:
            guard let (count, first) = length(low, at: start), let range = payload(at: first, count: count, unit: 2)
            else { return nil }
            let units = stride(from: range.lowerBound, to: range.upperBound, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            return String(validating: units, as: UTF16.self).map { .string($0) }
        case 0xA:
            guard let (count, first) = length(low, at: start),
                  let refs = payload(at: first, count: count, unit: objectRefSize) else { return nil }
            var items: [PropertyListValue] = []
            items.reserveCapacity(count)
            for ref in stride(from: refs.lowerBound, to: refs.upperBound, by: objectRefSize) {
                guard let item = reference(at: ref, depth: depth) else { return nil }
                items.append(item)
            }
            return .array(items)
        case 0xD:
            guard let (count, first) = length(low, at: start),
                  payload(at: first, count: count, unit: 2 * objectRefSize) != nil else { return nil }
            var dict: [String: PropertyListValue] = [:]
            dict.reserveCapacity(count)
            for i in 0..<count {
                let keyRef = first + i * objectRefSize
                guard case .string(let key)? = reference(at: keyRef, depth: depth),
                      dict[key] == nil,
                      let value = reference(at: keyRef + count * objectRefSize, depth: depth)
                else { return nil }
                dict[key] = value
            }
            return .dictionary(dict)
        default:
            return nil
        }
    }

    /// Follows the object reference stored at `at`.
    private mutating func reference(at offset: Int, depth: Int) -> PropertyListValue? {
        guard let index = Self.int(Self.unsigned(bytes, at: offset, width: objectRefSize)) else { return nil }
        return object(index, depth: depth + 1)
    }

    /// The element count of a data, string, array or dictionary object whose marker is at
    /// `start`, and where its payload begins.
    private func length(_ low: Int, at start: Int) -> (Int, Int)? {
        if low < 15 { return (low, start + 1) }
        guard start + 1 < objectsEnd else { return nil }
        let marker = bytes[start + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else { return nil }
        let width = 1 << Int(marker & 0x0F)
        guard let count = integer(at: start + 2, width: width), count >= 0, let n = Int(exactly: count)
        else { return nil }
        return (n, start + 2 + width)
    }

    /// The range of `count` units of `unit` bytes from `first`, if it ends inside the object area.
    private func payload(at first: Int, count: Int, unit: Int = 1) -> Range<Int>? {
        let (size, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, first <= objectsEnd, size <= objectsEnd - first else { return nil }
        return first..<first + size
    }

    /// A big-endian integer of `width` bytes (1, 2, 4: unsigned; 8: signed; 16: when it fits).
    private func integer(at first: Int, width: Int) -> Int64? {
        guard [1, 2, 4, 8, 16].contains(width), let range = payload(at: first, count: width) else { return nil }
        if width == 16 {
            let high = Self.unsigned(bytes, at: range.lowerBound, width: 8)
            let low = Int64(bitPattern: Self.unsigned(bytes, at: range.lowerBound + 8, width: 8))
            return (high == 0 && low >= 0) || (high == .max && low < 0) ? low : nil
        }
        let raw = Self.unsigned(bytes, at: range.lowerBound, width: width)
        return width == 8 ? Int64(bitPattern: raw) : Int64(raw)
    }

    /// `width` (≤ 8) bytes at `offset` as a big-endian number; the caller checked the bounds.
    private static func unsigned(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in offset..<offset + width { value = value << 8 | UInt64(bytes[i]) }
        return value
    }

    private static func int(_ value: UInt64) -> Int? { Int(exactly: value) }
}
