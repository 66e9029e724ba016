import BridgeServer
import Workspace

extension MCPRootScope {
    /// Narrows the scope to the folders the server was started with (`mcp --root`: absolute
    /// paths, or paths relative to the workspace root), once, when the MCP session opens. This is
    /// how a client of the 2026-07-28 era narrows (the era has no server-to-client requests, so no
    /// `roots/list`); tool arguments (e.g. `search_files`'s `path`) narrow further per call. A
    /// folder outside the workspace is refused (`OutsideWorkspace`), never widened to.
    func configure(_ paths: [String], workspaceRoot: String) throws {
        guard !paths.isEmpty, !isConfigured else { return }
        var folders: [WorkspacePath] = []
        for p in paths {
            let absolute = p.hasPrefix("/") ? p : (workspaceRoot.hasSuffix("/") ? workspaceRoot : workspaceRoot + "/") + p
            let uri = "file://" + absolute.split(separator: "/", omittingEmptySubsequences: false)
                .map { MCPRootScope.percentEncoded(String($0)) }.joined(separator: "/")
            switch Self.folder(ofRootURI: uri, workspaceRoot: workspaceRoot) {
            case .success(let f): folders.append(f)
            case .failure(let why):
                throw WorkspaceError(.outsideWorkspace, "--root \(p): \(why.message)", path: p)
            }
        }
        setConfigured(folders.contains(where: \.isRoot) ? nil : folders)
    }

    static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let c = Character(Unicode.Scalar(b))
            if b < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) { out.append(c) } else {
                out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
