import SystemSupport

/// SHA-256 of bytes as 64 lowercase hex digits (SystemSupport's `SHA256`).
enum Digest {
    static func sha256(_ bytes: [UInt8]) throws(SessionError) -> String {
        try sha256(bytes, replacing: 0..<0, with: [])
    }

    /// SHA-256 of `bytes` with `range` replaced by `replacement`, hashed in place (no copy of
    /// `bytes`: an import checks a file of hundreds of MiB this way).
    static func sha256(_ bytes: [UInt8], replacing range: Range<Int>, with replacement: [UInt8]) throws(SessionError) -> String {
        guard var h = SHA256() else {
            throw SessionError(.ioError, "SHA-256 is unavailable: \(SHA256.unavailableReason)")
        }
        bytes.withUnsafeBytes { raw in
            h.update(UnsafeRawBufferPointer(rebasing: raw[..<range.lowerBound]))
            replacement.withUnsafeBytes { h.update($0) }
            h.update(UnsafeRawBufferPointer(rebasing: raw[range.upperBound...]))
        }
        return h.finalize()
    }
}
