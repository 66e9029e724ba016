import SystemSupport

/// SHA-256 of bytes as 64 lowercase hex digits (SystemSupport's `SHA256`).
enum Digest {
    static func sha256(_ bytes: [UInt8]) throws(SessionError) -> String {
        guard let digest = SHA256.digest([bytes]) else {
            throw SessionError(.ioError, "SHA-256 is unavailable: \(SHA256.unavailableReason)")
        }
        return SHA256.hex(digest)
    }
}
