import FileWatching
import JSON
import JSONRPC
import Logging
import Workspace

/// Sends `workspace/didChangeFiles` to a client that asked for it, from a recursive watcher
/// on the workspace root.
///
/// The watcher (an `OnDemandWatcher` with one subscriber, the client) starts with the first
/// subscription (`initialize` capability or `watchFiles`) and stops with `unwatchFiles`. Changes by anything are reported (this server, another
/// process, a sync engine), coalesced by the watcher; the server's private folder and temp files
/// never appear; a lost-events overflow becomes `{changes: [], rescan: true}`. When the storage
/// choice moves the workspace (`WorkspaceMoves`), the subscription follows it, glob kept.
package final class ChangeNotifier: FollowsWorkspace {
    /// The one subscription of the JSON-RPC face: its filter and where it goes.
    private struct Client: Sendable { let glob: Glob?; let connection: Connection }
    private enum Key: Hashable, Sendable { case client }
    private let watch: OnDemandWatcher<Key, Client>

    init(logger: Logger) {
        watch = OnDemandWatcher(
            ignore: { Self.ignored($0) },
            diagnostics: { [logger] note in logger.debug("watcher: \(note)") },
            deliver: { event, clients in
                for client in clients.values {
                    switch event {
                    case .changes(let raw): Self.deliver(raw, to: client)
                    case .overflow: client.connection.notify("workspace/didChangeFiles", ["changes": [], "rescan": true])
                    }
                }
            })
    }

    var isWatching: Bool { watch.isRunning }

    /// Starts (or re-filters) notifications for `workspace` to `connection`.
    func watch(_ workspace: Workspace, glob: Glob?, connection: Connection) throws {
        try watch.add(.client, Client(glob: glob, connection: connection), root: workspace.rootPath)
    }

    /// Moves a running subscription to another root (after the storage choice changed) and tells
    /// the client to list again (`rescan`: the whole tree is another one now, and a choice made by
    /// another process is news to it); when it cannot be watched there the subscription ends and
    /// the error is thrown.
    package func follow(_ workspace: Workspace) throws {
        do {
            guard try watch.retarget(root: workspace.rootPath) else { return }
        } catch {
            throw error.error
        }
        for client in watch.subscribers.values {
            client.connection.notify("workspace/didChangeFiles", ["changes": [], "rescan": true])
        }
    }

    func unwatch() { watch.remove(.client) }

    /// The server's own files and engines' temp and internal files are never reported.
    package static func ignored(_ path: String) -> Bool {
        if Workspace.isServerPrivate(relativePath: path) { return true }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if case .hidden = SyncArtefacts.classify(name) { return true }
        return false
    }

    /// What a client sees of a raw change: a conflict copy appearing or going is a change of
    /// its original's state; a placeholder is reported under its real name.
    package static func visible(_ c: FileChange) -> FileChange {
        let parts = c.path.split(separator: "/", omittingEmptySubsequences: true)
        guard let last = parts.last else { return c }
        let parent = parts.dropLast().joined(separator: "/")
        func sibling(_ n: String) -> String { parent.isEmpty ? n : parent + "/" + n }
        switch SyncArtefacts.classify(String(last)) {
        case .conflictCopy(_, let original, _): return FileChange(path: sibling(original), kind: .changed)
        case .placeholder(_, let real): return FileChange(path: sibling(real), kind: c.kind == .deleted ? .changed : c.kind)
        default: return c
        }
    }

    private static func deliver(_ raw: [FileChange], to client: Client) {
        let glob = client.glob
        var seen = Set<String>()
        let changes = raw.map(Self.visible).filter { seen.insert($0.path).inserted }
        let shown = changes.filter { c in
            guard let glob else { return true }
            let name = c.path.split(separator: "/").last.map(String.init) ?? c.path
            return glob.matches(relativePath: c.path, name: name)
        }
        guard !shown.isEmpty else { return }
        client.connection.notify("workspace/didChangeFiles", [
            "changes": .array(shown.map { ["path": .string($0.path), "type": .string($0.kind.rawValue)] }),
        ])
    }
}

extension FileWatcherError: DomainError {
    /// No thread for the watcher is the server being busy (retry later), as for any request
    /// that gets no thread; anything else is an I/O failure.
    public var dataCode: String {
        if case .cannotStartThread = self { return "ServerBusy" }
        return "IOError"
    }
    public var message: String { "cannot watch the workspace: \(description)" }
    public var data: JSONObject {
        if case .cannotStartThread(let e) = self { return ["reason": "threadLimit", "errno": .int(Int64(e))] }
        return [:]
    }
}
