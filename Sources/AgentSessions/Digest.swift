import CWorkspaceShims

/// SHA-256 of bytes as 64 lowercase hex digits (the shared C shim: OpenSSL's libcrypto on
/// Linux, CommonCrypto on Apple systems).
enum Digest {
    static func sha256(_ bytes: [UInt8]) throws(SessionError) -> String {
        guard let ctx = wb_sha256_new() else {
            throw SessionError(.ioError, "SHA-256 is unavailable: \(String(cString: wb_sha256_error()))")
        }
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { wb_sha256_update(ctx, base, UInt(raw.count)) }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        wb_sha256_final(ctx, &digest)
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in digest {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
