/// How messages are delimited on the byte stream.
public enum Framing: String, Sendable, CaseIterable {
    /// The Language Server Protocol base protocol: `Content-Length` header block, then the body.
    case lsp
    /// Newline-delimited JSON: one message per line.
    case ndjson
}

/// The framing a connection uses: fixed, or decided from the client's first byte.
public enum FramingMode: String, Sendable, CaseIterable {
    case auto, lsp, ndjson

    var fixed: Framing? {
        switch self {
        case .auto: nil
        case .lsp: .lsp
        case .ndjson: .ndjson
        }
    }
}

/// A problem with the byte stream itself (not with the JSON inside a frame).
/// The decoder has already resynchronised when it reports one.
public enum FramingFault: Error, Sendable, Equatable {
    /// A message longer than the cap; `size` is known for LSP frames, not for NDJSON lines.
    case tooLarge(size: Int?, limit: Int)
    /// A header block that cannot be read.
    case invalidHeader(String)
    /// A `Content-Type` naming a charset other than UTF-8.
    case unsupportedCharset(String)
}

extension Framing {
    /// Wraps one encoded message body for the wire.
    package func frame(_ body: [UInt8], into out: inout [UInt8]) {
        switch self {
        case .lsp:
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(body.count, to: &out)
            out.append(contentsOf: [13, 10, 13, 10])
            out.append(contentsOf: body)
        case .ndjson:
            out.append(contentsOf: body)
            out.append(10)
        }
    }
}

@inline(__always)
private func appendDecimal(_ n: Int, to out: inout [UInt8]) {
    if n < 10 { out.append(UInt8(48 + n)); return }
    var digits: [UInt8] = []
    var v = n
    while v > 0 { digits.append(UInt8(48 + v % 10)); v /= 10 }
    out.append(contentsOf: digits.reversed())
}
