#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into message bodies, in either framing.
///
/// Feed bytes with `append`, then call `next()` until it returns `nil`. Work and memory are
/// linear in the input: consumed bytes are dropped (compacting only once they make up half the
/// buffer), searches resume where they stopped, and bodies larger than the cap are skipped as
/// they arrive without being stored. After any fault the decoder is already back in sync.
///
/// Not thread-safe: one reader owns it.
public struct FrameDecoder {
    public let maxMessageBytes: Int
    /// The framing in use; `nil` until the first non-whitespace byte under `.auto`.
    public private(set) var framing: Framing?

    static let maxHeaderBytes = 8192
    /// How much of an NDJSON line over the cap is kept (`oversizeHead`).
    public static let oversizeHeadBytes = 4096

    /// The first bytes (at most `oversizeHeadBytes`) of the last NDJSON line refused as too
    /// large: enough to tell whose answer it was (`OversizeHead`), never the whole line.
    public private(set) var oversizeHead: [UInt8] = []

    private var buf: [UInt8] = []
    private var head = 0
    private var scan = 0
    private var skip = 0
    private var discardingLine = false
    private var pendingBody: Int?
    private var resyncing = false

    public init(mode: FramingMode, maxMessageBytes: Int) {
        self.framing = mode.fixed
        self.maxMessageBytes = maxMessageBytes
    }

    public enum Event: Equatable {
        /// A complete body, at this range of the decoder's storage (valid until the next
        /// mutating call; read it with `withBody`).
        case message(Range<Int>)
        case fault(FramingFault)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        // Drop consumed bytes once they are at least half the buffer: amortised O(1) per byte.
        if head > 0 && head * 2 >= buf.count {
            buf.removeSubrange(0..<head)
            scan -= head
            if scan < 0 { scan = 0 }
            head = 0
        }
        // Skip whole chunks of an oversized body without storing them.
        var input = bytes
        if skip > 0 && head == buf.count {
            let n = min(skip, input.count)
            skip -= n
            input = UnsafeRawBufferPointer(rebasing: input[n...])
        }
        buf.append(contentsOf: input)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Calls `body` with the bytes of a message range returned by `next()`.
    public func withBody<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buf.withUnsafeBytes { raw in try body(UnsafeRawBufferPointer(rebasing: raw[range])) }
    }

    /// The number of bytes held (for tests of bounded buffering).
    public var bufferedBytes: Int { buf.count - head }

    public mutating func next() -> Event? {
        while true {
            if skip > 0 {
                let n = min(skip, buf.count - head)
                head += n
                skip -= n
                if skip > 0 { return nil }
            }
            let current: Framing
            if let framing {
                current = framing
            } else {
                while head < buf.count, isSpace(buf[head]) { head += 1 }
                guard head < buf.count else { return nil }
                current = (buf[head] == UInt8(ascii: "{") || buf[head] == UInt8(ascii: "[")) ? .ndjson : .lsp
                framing = current
                scan = head
            }
            let event: Event?
            let again: Bool
            switch current {
            case .ndjson: (event, again) = nextLine()
            case .lsp: (event, again) = nextLSP()
            }
            if let event { return event }
            if !again { return nil }
        }
    }

    // MARK: NDJSON

    private mutating func nextLine() -> (Event?, Bool) {
        if discardingLine {
            guard let nl = find(10, from: head) else { head = buf.count; scan = head; return (nil, false) }
            head = nl + 1
            scan = head
            discardingLine = false
            return (nil, true)
        }
        guard let nl = find(10, from: max(scan, head)) else {
            let pending = buf.count - head
            // One byte of slack: the line may still end in CR LF, and the CR is not in the body.
            if pending > maxMessageBytes + 1 {
                oversizeHead = Array(buf[head..<min(buf.count, head + Self.oversizeHeadBytes)])
                head = buf.count
                scan = head
                discardingLine = true
                return (.fault(.tooLarge(size: nil, limit: maxMessageBytes)), false)
            }
            scan = buf.count
            return (nil, false)
        }
        var end = nl
        if end > head && buf[end - 1] == 13 { end -= 1 }
        let start = head
        head = nl + 1
        scan = head
        // The size check comes first: a partial line over the cap faults before it is known to
        // be blank, so a whole one must too, whatever the chunking.
        if end - start > maxMessageBytes {
            oversizeHead = Array(buf[start..<min(end, start + Self.oversizeHeadBytes)])
            return (.fault(.tooLarge(size: end - start, limit: maxMessageBytes)), true)
        }
        var s = start
        while s < end, isSpace(buf[s]) { s += 1 }
        if s == end { return (nil, true) }  // blank line
        return (.message(start..<end), true)
    }

    // MARK: LSP

    private mutating func nextLSP() -> (Event?, Bool) {
        if let n = pendingBody {
            guard buf.count - head >= n else { return (nil, false) }
            let r = head..<(head + n)
            head += n
            scan = head
            pendingBody = nil
            return (.message(r), true)
        }
        if resyncing {
            guard let at = findContentLength(from: head) else {
                // Keep a tail that might hold the start of the header name.
                head = max(head, buf.count - 15)
                scan = head
                return (nil, false)
            }
            head = at
            scan = at
            resyncing = false
        }
        // Tolerate blank lines between messages.
        while head < buf.count, buf[head] == 13 || buf[head] == 10 { head += 1 }
        if head == buf.count { scan = head; return (nil, false) }
        guard let (headerEnd, bodyStart) = findHeaderEnd() else {
            if buf.count - head > Self.maxHeaderBytes {
                head += 1
                resyncing = true
                return (.fault(.invalidHeader("header block longer than \(Self.maxHeaderBytes) bytes")), true)
            }
            return (nil, false)
        }
        let parsed = parseHeaders(head..<headerEnd)
        head = bodyStart
        scan = head
        switch parsed {
        case .failure(let fault):
            resyncing = true
            return (.fault(fault), true)
        case .success(let (length, charset)):
            if let charset {
                skip = length
                return (.fault(.unsupportedCharset(charset)), true)
            }
            if length > maxMessageBytes {
                skip = length
                return (.fault(.tooLarge(size: length, limit: maxMessageBytes)), true)
            }
            pendingBody = length
            if buf.capacity < head + length { buf.reserveCapacity(head + length) }
            return (nil, true)
        }
    }

    /// Finds the empty line ending the header block; returns (end of headers, start of body).
    private mutating func findHeaderEnd() -> (Int, Int)? {
        var from = max(scan, head)
        while let nl = find(10, from: from) {
            if nl + 1 < buf.count && buf[nl + 1] == 10 { return (nl, nl + 2) }
            if nl + 2 < buf.count && buf[nl + 1] == 13 && buf[nl + 2] == 10 { return (nl, nl + 3) }
            if nl + 2 >= buf.count { scan = nl; return nil }
            from = nl + 1
        }
        scan = max(head, buf.count - 1)
        return nil
    }

    private func parseHeaders(_ range: Range<Int>) -> Result<(Int, String?), FramingFault> {
        var length: Int?
        var badCharset: String?
        var lineStart = range.lowerBound
        while lineStart < range.upperBound {
            var lineEnd = lineStart
            while lineEnd < range.upperBound && buf[lineEnd] != 10 { lineEnd += 1 }
            var e = lineEnd
            if e > lineStart && buf[e - 1] == 13 { e -= 1 }
            if e > lineStart {
                guard let colon = buf[lineStart..<e].firstIndex(of: UInt8(ascii: ":")) else {
                    return .failure(.invalidHeader("header line without a colon"))
                }
                let name = ascii(lineStart..<colon).trimmed.lowercased()
                let value = ascii((colon + 1)..<e).trimmed
                if name == "content-length" {
                    guard !value.isEmpty, value.count <= 18, value.allSatisfy({ $0.isASCII && $0.isNumber }),
                        let n = Int(value)
                    else { return .failure(.invalidHeader("Content-Length is not a byte count: \(value.prefix(40))")) }
                    length = n
                } else if name == "content-type" {
                    for param in value.split(separator: ";").dropFirst() {
                        let kv = param.split(separator: "=", maxSplits: 1)
                        guard kv.count == 2, String(kv[0]).trimmed.lowercased() == "charset" else { continue }
                        var cs = String(kv[1]).trimmed.lowercased()
                        if cs.hasPrefix("\""), cs.hasSuffix("\""), cs.count >= 2 { cs = String(cs.dropFirst().dropLast()) }
                        if cs != "utf-8" && cs != "utf8" { badCharset = cs }
                    }
                }
            }
            lineStart = lineEnd + 1
        }
        guard let length else { return .failure(.invalidHeader("missing Content-Length")) }
        return .success((length, badCharset))
    }

    private func findContentLength(from: Int) -> Int? {
        let needle = Array("content-length".utf8)
        guard buf.count - from >= needle.count else { return nil }
        var i = from
        while i + needle.count <= buf.count {
            var j = 0
            while j < needle.count && (buf[i + j] | 0x20) == needle[j] { j += 1 }
            if j == needle.count { return i }
            i += 1
        }
        return nil
    }

    private func find(_ byte: UInt8, from: Int) -> Int? {
        guard from < buf.count else { return nil }
        return buf.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let p = memchr(base + from, Int32(byte), buf.count - from) else { return nil }
            return base.distance(to: UnsafeRawPointer(p))
        }
    }

    private func ascii(_ r: Range<Int>) -> String {
        String(decoding: buf[r], as: UTF8.self)
    }
}

@inline(__always)
private func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 10 || b == 13 }

extension String {
    var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
