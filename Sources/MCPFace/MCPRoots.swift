#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BridgeServer
import JSON
import JSONRPC
import Logging
import Synchronization
import SystemSupport
import Workspace

/// MCP roots: the folders the client asks the server to work in, accepted only inside the
/// workspace.
///
/// - The workspace root (from `--local-root` or the storage choice) and the configured folders
///   (`mcp --root`) are the outer bound and never widen. A client's roots are intersected with
///   it: a root inside it narrows what tools and resources reach to that folder; a root that
///   contains the workspace or a configured folder leaves that whole; a root outside it is
///   refused (logged to stderr and to the client as `notifications/message`). Unlike the
///   reference filesystem server, a client's roots never replace the configured folders.
/// - When the client declares no roots capability, lists none, or every root it lists is
///   refused, the scope is the bound (what the server was started with): complete without roots.
/// - The scope is asked for after `notifications/initialized` and again after each
///   `notifications/roots/list_changed`; it applies from when the client's answer is read (a call
///   the client sent before answering runs under the previous scope).
///
/// Thread rules: read from any worker, replaced on the reader thread; a lock guards it.
final class MCPRootScope: Sendable {
    /// Workspace-relative folders; nil means the whole workspace.
    private let folders = Mutex<[WorkspacePath]?>(nil)
    /// The folders configured at startup (`mcp --root`); nil: none, the whole workspace.
    private let configured = Mutex<[WorkspacePath]?>(nil)
    private let configuredOnce = Atomic<Bool>(false)
    private let clientHasRoots = Atomic<Bool>(false)

    func clientDeclaresRoots(_ yes: Bool) { clientHasRoots.store(yes, ordering: .relaxed) }
    var clientSupportsRoots: Bool { clientHasRoots.load(ordering: .relaxed) }

    var isConfigured: Bool { configuredOnce.load(ordering: .acquiring) }

    /// Sets the configured bound (nil: the whole workspace), and the scope to it.
    func setConfigured(_ bound: [WorkspacePath]?) {
        configured.withLock { $0 = bound }
        folders.withLock { $0 = bound }
        configuredOnce.store(true, ordering: .releasing)
    }

    /// The configured bound (`mcp --root`), or nil for the whole workspace.
    var configuredFolders: [WorkspacePath]? { configured.withLock { $0 } }

    /// The accepted folders, or nil for the whole workspace.
    var current: [WorkspacePath]? { folders.withLock { $0 } }

    /// Replaces the scope with the client's `roots/list` result; returns the refused roots with
    /// the reason for each.
    @discardableResult
    func update(fromRootsList result: JSON, workspaceRoot: String) -> [(uri: String, reason: String)] {
        var accepted: [WorkspacePath] = []
        var refused: [(uri: String, reason: String)] = []
        if case .array(let roots)? = result["roots"] {
            for root in roots {
                guard let uri = root["uri"]?.stringValue else {
                    refused.append((uri: "\(root)", reason: "a root needs a string \"uri\""))
                    continue
                }
                switch Self.folder(ofRootURI: uri, workspaceRoot: workspaceRoot) {
                case .success(let folder): accepted.append(folder)
                case .failure(let why): refused.append((uri: uri, reason: why.message))
                }
            }
        }
        let client: [WorkspacePath]? = accepted.isEmpty || accepted.contains(where: \.isRoot) ? nil : accepted
        let bound = configured.withLock { $0 }
        let scope = Self.narrowed(bound, by: client)
        for r in client ?? [] where !(bound ?? [.root]).contains(where: { Self.overlap(r, $0) }) {
            refused.append((uri: r.string, reason: "outside the folders the server was started with"))
        }
        folders.withLock { $0 = scope }
        return refused
    }

    /// The scope a client's roots leave of the configured bound: their intersection (a client
    /// root inside a configured folder narrows to it; one containing a configured folder keeps
    /// that folder, never more of the root). A client that names no folder, or none that meets
    /// the bound, leaves the bound whole: roots narrow, they never replace or widen (nil: the
    /// whole workspace).
    static func narrowed(_ bound: [WorkspacePath]?, by client: [WorkspacePath]?) -> [WorkspacePath]? {
        guard let client else { return bound }
        guard let bound else { return client }
        var scope: [WorkspacePath] = []
        for r in client {
            for b in bound where overlap(r, b) {
                let inner = contains(b, r) ? r : b
                if !scope.contains(inner) { scope.append(inner) }
            }
        }
        return scope.isEmpty ? bound : scope
    }

    /// Whether `outer` is `inner` or one of its parent folders.
    static func contains(_ outer: WorkspacePath, _ inner: WorkspacePath) -> Bool {
        outer.isRoot || inner == outer || inner.string.hasPrefix(outer.string + "/")
    }

    static func overlap(_ a: WorkspacePath, _ b: WorkspacePath) -> Bool { contains(a, b) || contains(b, a) }

    /// Refuses a path outside the accepted folders (`OutsideWorkspace`, naming the roots).
    func check(_ path: WorkspacePath) throws(WorkspaceError) {
        guard let scope = current else { return }
        for folder in scope where Self.contains(folder, path) { return }
        throw WorkspaceError(.outsideWorkspace,
                             "'\(path.string.isEmpty ? "/" : path.string)' is outside the client's roots (\(scope.map(\.string).joined(separator: ", ")))",
                             path: path.string)
    }

    /// Checks every path a tool call names (as its method decoded and claims them; an absent
    /// one is the workspace root).
    func check(paths: [WorkspacePath]) throws {
        for path in paths { try check(path) }
    }

    struct Refusal: Error { var message: String }

    /// The workspace folder a root URI names. The path is resolved with `realpath` when it
    /// exists (so a link inside the workspace cannot smuggle in a folder outside it), lexically
    /// otherwise.
    static func folder(ofRootURI uri: String, workspaceRoot: String) -> Result<WorkspacePath, Refusal> {
        guard uri.hasPrefix("file://") else { return .failure(Refusal(message: "only file:// roots are supported")) }
        var rest = Substring(uri.dropFirst("file://".count))
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
        guard rest.hasPrefix("/"), let decoded = URIText.percentDecoded(String(rest)) else {
            return .failure(Refusal(message: "not an absolute file URI"))
        }
        var path = decoded
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if realpath(path.onDisk, &buf) != nil { path = buf.withUnsafeBufferPointer { $0.baseAddress.map(EscapedName.text(cString:)) } ?? path }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let root = workspaceRoot.hasSuffix("/") && workspaceRoot.count > 1 ? String(workspaceRoot.dropLast()) : workspaceRoot
        if path == root || root.hasPrefix(path == "/" ? "/" : path + "/") { return .success(.root) }
        guard path.hasPrefix(root + "/") else {
            return .failure(Refusal(message: "outside the workspace (\(root))"))
        }
        guard let relative = try? WorkspacePath(String(path.dropFirst(root.count + 1))) else {
            return .failure(Refusal(message: "not a valid workspace path"))
        }
        return .success(relative)
    }
}


extension MCPRootScope: ToolScope {}
