import CWorkspaceShims

/// SHA-256 from the system (libcrypto loaded on first use on Linux, CommonCrypto on Apple):
/// hardware SHA extensions where the CPU has them, and nothing mapped until a hash is asked for.
struct SHA256: ~Copyable {
    private let ctx: UnsafeMutableRawPointer

    init() throws(WorkspaceError) {
        guard let c = wb_sha256_new() else {
            throw WorkspaceError(.ioError, "SHA-256 is unavailable: \(String(cString: wb_sha256_error()))")
        }
        ctx = c
    }

    deinit {
        var scratch = [UInt8](repeating: 0, count: 32)
        wb_sha256_final(ctx, &scratch)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        wb_sha256_update(ctx, base, UInt(bytes.count))
    }

    /// The digest as 64 lowercase hex digits (frees the context).
    consuming func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        wb_sha256_final(ctx, &digest)
        discard self
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in digest { out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
