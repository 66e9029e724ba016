import SystemSupport

extension SHA256 {
    /// A new hash, or the typed error the file API answers when SHA-256 is unavailable.
    static func started() throws(WorkspaceError) -> SHA256 {
        guard let h = SHA256() else { throw WorkspaceError(.ioError, "SHA-256 is unavailable: \(SHA256.unavailableReason)") }
        return h
    }
}
