#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds, without decoding it, a journal record's type and the byte ranges of the messages in its
/// `m` array, so a search decodes only the messages a query can be in, not the whole record (a
/// client that appends 1,000 messages a call makes records of hundreds of KiB).
///
/// It walks the record's structure only: strings are skipped with `memchr` to their closing quote
/// (a quote preceded by an even number of backslashes), so its cost is about the number of JSON
/// tokens outside strings, not the bytes. Nil for a line that is not one JSON object.
struct RecordShape {
    /// The record's `t` (its type), when it is a string at the top level.
    var type: String?
    /// The elements of the top-level `m` array, in order (element `k` is message position `k`).
    var messages: [Range<Int>] = []

    /// A message record's shape known already (see `SessionHandle.recordShapes`).
    init(messages: [Range<Int>]) {
        type = "msg"
        self.messages = messages
    }

    /// Reads `line` up to the end of the message holding byte `through` (the whole line by
    /// default): a search needs no message after its last match.
    init?(_ line: UnsafeRawBufferPointer, through limit: Int = .max) {
        guard let base = line.baseAddress else { return nil }
        let n = line.count
        var i = 0
        var depth = 0
        var lastString: Range<Int>?
        var key: Range<Int>?  // the key whose value comes next, at depth 1
        var inMessages = false
        var elementStart = 0
        func equals(_ r: Range<Int>?, _ text: StaticString) -> Bool {
            guard let r, r.count == text.utf8CodeUnitCount else { return false }
            return memcmp(base + r.lowerBound, text.utf8Start, r.count) == 0
        }
        while i < n {
            switch line[i] {
            case 0x22:  // "
                var j = i + 1
                // Keys and ids end within a few bytes: a plain loop beats a call to memchr there.
                while j < n && j < i + 24 && line[j] != 0x22 && line[j] != 0x5C { j += 1 }
                while j >= n || line[j] != 0x22 {
                    guard j < n, let q = memchr(base + j, 0x22, n - j) else { return nil }
                    let k = base.distance(to: UnsafeRawPointer(q))
                    var slashes = 0
                    while k - 1 - slashes > i && line[k - 1 - slashes] == 0x5C { slashes += 1 }
                    if slashes % 2 == 0 { j = k; break }
                    j = k + 1
                }
                if depth == 1 {
                    if equals(key, "t") && type == nil {
                        type = String(decoding: UnsafeRawBufferPointer(rebasing: line[(i + 1)..<j]), as: UTF8.self)
                    }
                    lastString = (i + 1)..<j
                }
                i = j + 1
                continue
            case 0x3A:  // :
                if depth == 1 { key = lastString }
            case 0x2C:  // ,
                if depth == 1 { key = nil }
            case 0x7B, 0x5B:  // { [
                if depth == 1 && line[i] == 0x5B && equals(key, "m") { inMessages = true }
                if inMessages && depth == 2 { elementStart = i }
                depth += 1
            case 0x7D, 0x5D:  // } ]
                depth -= 1
                if inMessages && depth == 2 {
                    messages.append(elementStart..<(i + 1))
                    if i >= limit { return }
                }
                if inMessages && depth == 1 { inMessages = false }
                if depth < 0 { return nil }
            default:
                break
            }
            i += 1
        }
        if depth != 0 { return nil }
    }

    /// The element holding byte `offset`, if any.
    func message(at offset: Int) -> Int? {
        var lo = 0, hi = messages.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if messages[mid].upperBound <= offset { lo = mid + 1 } else { hi = mid }
        }
        return lo < messages.count && messages[lo].contains(offset) ? lo : nil
    }
}

/// `SessionHandle.recordShapes`: walked records' message ranges for one journal file, at most
/// `maxMessages` ranges in all (16 bytes each), so the cache stays a small fraction of what the
/// session's own index holds.
struct RecordShapeCache: Sendable {
    static let maxMessages = 100_000
    var file: FileKey
    var shapes: [Int64: [Range<Int>]] = [:]
    var messages = 0

    struct FileKey: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
    }

    init(file: FileKey) { self.file = file }

    var isFull: Bool { messages >= Self.maxMessages }

    mutating func add(_ offset: Int64, _ ranges: [Range<Int>]) {
        guard !isFull, shapes[offset] == nil else { return }
        shapes[offset] = ranges
        messages += ranges.count
    }
}
