import FileWatching
import JSON
import JSONRPC
import Synchronization
import Workspace

/// Sends `workspace/textDocumentContent/refresh {uri}` (a server-to-client request, LSP 3.18)
/// for each `wsb:` document the client read when what it shows changes: a file or conflict copy
/// (any writer: this server, another process, a sync engine), a session's journal (transcript,
/// export). Only to a client that declared `workspace.textDocumentContent` in `initialize`.
///
/// Bounds: at most `maxDocuments` documents are followed (the oldest read is forgotten first);
/// two watchers, each running only while a document needs it (`OnDemandWatcher`): one on the
/// workspace, one on the sessions' folder. What the client answers a refresh changes nothing
/// here. Documents follow the root they were read in: after the storage choice
/// switches, reading one again follows it in the new root.
package final class ContentRefresh: Sendable {
    static let maxDocuments = 256
    private struct Followed: Sendable {
        let uri: String
        let files: [WorkspacePath]
        let session: String?
        let connection: Connection
    }
    private let enabled = Atomic<Bool>(false)
    /// URIs in the order they were last read (oldest first), to forget the oldest beyond the bound.
    private let order = Mutex<[String]>([])
    private let files: OnDemandWatcher<String, Followed>
    private let sessions: OnDemandWatcher<String, Followed>

    init() {
        files = OnDemandWatcher(ignore: { ChangeNotifier.ignored($0) }) { event, followed in
            Self.refresh(event, followed) { f, changed in f.files.contains { changed.contains($0.string) } }
        }
        // The sessions' folder: `ID/journal.jsonl` (and its rewrites) is what a transcript shows;
        // leases and locks are not.
        sessions = OnDemandWatcher(ignore: { !Self.isJournal($0) }) { event, followed in
            Self.refresh(event, followed) { f, changed in
                changed.contains { $0.split(separator: "/").first.map(String.init) == f.session }
            }
        }
    }

    /// The client declared `workspace.textDocumentContent` (it can be asked to refresh).
    func clientRefreshes(_ yes: Bool) { enabled.store(yes, ordering: .relaxed) }

    /// Follows `uri` (just read) when the client can be asked to refresh it.
    func opened(_ uri: String, _ document: ContentDocument, services: Services, connection: Connection) throws {
        guard enabled.load(ordering: .relaxed) else { return }
        let ws = try services.workspace()
        let followed = Followed(uri: uri, files: document.files, session: document.session, connection: connection)
        let dropped = order.withLock { o -> [String] in
            o.removeAll { $0 == uri }
            o.append(uri)
            let over = max(0, o.count - Self.maxDocuments)
            defer { o.removeFirst(over) }
            return Array(o.prefix(over))
        }
        for old in dropped {
            files.remove(old)
            sessions.remove(old)
        }
        if document.session != nil {
            try sessions.add(uri, followed, root: ws.rootPath + "/" + Workspace.privateFolder + "/sessions")
        } else {
            try files.add(uri, followed, root: ws.rootPath)
        }
    }

    private static func refresh(_ event: OnDemandWatcher<String, Followed>.Event, _ followed: [String: Followed],
                                _ shows: (Followed, Set<String>) -> Bool) {
        let changed: Set<String>?
        switch event {
        case .changes(let c): changed = Set(c.map(\.path))
        case .overflow: changed = nil   // anything may have changed
        }
        for f in followed.values where changed.map({ shows(f, $0) }) ?? true {
            f.connection.request("workspace/textDocumentContent/refresh", ["uri": .string(f.uri)]) { _ in }
        }
    }

    static func isJournal(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return parts.count == 1 || (parts.count == 2 && parts[1].hasPrefix("journal"))
    }
}
