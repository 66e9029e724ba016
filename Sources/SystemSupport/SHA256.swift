import CWorkspaceShims

/// SHA-256 from the system (libcrypto loaded on first use on Linux, CommonCrypto on Apple):
/// hardware SHA extensions where the CPU has them, and nothing mapped until a hash is asked for.
/// The one SHA-256 of the product: file checksums (Workspace), session exports (AgentSessions),
/// MCP request states (BridgeServer). Each caller turns "unavailable" into its own typed error.
public struct SHA256: ~Copyable {
    private let ctx: UnsafeMutableRawPointer

    /// A new hash; nil when no SHA-256 implementation can be loaded (`unavailableReason` says why).
    public init?() {
        guard let c = wb_sha256_new() else { return nil }
        ctx = c
    }

    deinit {
        var scratch = [UInt8](repeating: 0, count: 32)
        wb_sha256_final(ctx, &scratch)
    }

    /// Why no SHA-256 implementation could be loaded.
    public static var unavailableReason: String { String(cString: wb_sha256_error()) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        wb_sha256_update(ctx, base, UInt(bytes.count))
    }

    /// The 32-byte digest (frees the context).
    public consuming func finalizeBytes() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        wb_sha256_final(ctx, &digest)
        discard self
        return digest
    }

    /// The digest as 64 lowercase hex digits (frees the context).
    public consuming func finalize() -> String { Self.hex(finalizeBytes()) }

    /// SHA-256 of the concatenated `parts`; nil when unavailable.
    public static func digest(_ parts: [[UInt8]]) -> [UInt8]? {
        guard var h = SHA256() else { return nil }
        for part in parts { part.withUnsafeBytes { h.update($0) } }
        return h.finalizeBytes()
    }

    /// Bytes as lowercase hex digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
