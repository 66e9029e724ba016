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
/// - The workspace root (from `--local-root` or the storage choice) is the outer bound and never
///   widens. A client root inside it narrows what tools and resources reach to that folder; a
///   root that contains the whole workspace leaves it whole; a root outside it is refused (logged
///   to stderr and to the client as `notifications/message`).
/// - When the client declares no roots capability, or every root it lists is refused, the scope
///   is the whole workspace (what the server was started with), as the reference servers do.
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
        var scope: [WorkspacePath]? = accepted.isEmpty || accepted.contains(where: \.isRoot) ? nil : accepted
        if let bound = configured.withLock({ $0 }) {
            // A client's roots only narrow the configured folders, never widen them.
            let inside = (scope ?? []).filter { r in bound.contains { r == $0 || r.string.hasPrefix($0.string + "/") } }
            for r in scope ?? [] where !inside.contains(r) { refused.append((uri: r.string, reason: "outside the folders the server was started with")) }
            scope = inside.isEmpty ? bound : inside
        }
        folders.withLock { $0 = scope }
        return refused
    }

    /// Refuses a path outside the accepted folders (`OutsideWorkspace`, naming the roots).
    func check(_ path: WorkspacePath) throws(WorkspaceError) {
        guard let scope = current else { return }
        for folder in scope where path == folder || path.string.hasPrefix(folder.string + "/") { return }
        throw WorkspaceError(.outsideWorkspace,
                             "'\(path.string.isEmpty ? "/" : path.string)' is outside the client's roots (\(scope.map(\.string).joined(separator: ", ")))",
                             path: path.string)
    }

    /// Checks every path argument of a tool call (`Tool.pathArguments`: the arguments that are
    /// WorkspacePaths, or arrays of them, in schema/openrpc.json; an absent one means the workspace root).
    func check(tool: Tool, arguments: Params) throws {
        guard current != nil else { return }
        for name in tool.pathArguments {
            // A path, or an array of them (read_multiple_files' paths): each is checked.
            let raws: [String]
            if case .array(let items)? = arguments.value(name) { raws = items.compactMap(\.stringValue) } else { raws = [try arguments.string(name) ?? ""] }
            for raw in raws {
                guard let path = try? WorkspacePath(raw) else { continue }  // the tool itself reports a bad path
                try check(path)
            }
        }
    }

    struct Refusal: Error { var message: String }

    /// The workspace folder a root URI names. The path is resolved with `realpath` when it
    /// exists (so a link inside the workspace cannot smuggle in a folder outside it), lexically
    /// otherwise.
    static func folder(ofRootURI uri: String, workspaceRoot: String) -> Result<WorkspacePath, Refusal> {
        guard uri.hasPrefix("file://") else { return .failure(Refusal(message: "only file:// roots are supported")) }
        var rest = Substring(uri.dropFirst("file://".count))
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
        guard rest.hasPrefix("/"), let decoded = MCPResources.percentDecoded(String(rest)) else {
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
