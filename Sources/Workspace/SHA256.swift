import CCrypto

/// SHA-256 through the system's libcrypto (hardware SHA extensions where the CPU has them).
struct SHA256: ~Copyable {
    private let ctx: OpaquePointer

    init() {
        ctx = EVP_MD_CTX_new()
        EVP_DigestInit_ex(ctx, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(ctx) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(ctx, base, bytes.count)
    }

    /// The digest as 64 lowercase hex digits.
    consuming func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &digest, &len)
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in digest { out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
