#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import JSON
import JSONRPC
import Logging
import Storage
import Synchronization
import SystemSupport
import Workspace

/// What method handlers use, passed to each of them (`Call.services`): the configuration, the
/// storage and its active workspace, sessions and the queue, synced settings, change watching,
/// the connection's lifecycle, and the one error mapping. It knows no face: a face keeps its own
/// per-connection state (see `Face`). One value per server (per connection); every member is
/// safe to use from any thread.
package final class Services: Sendable {
    package let configuration: ServerConfiguration
    package let logSink: ClientLogSink
    package let logger: Logger
    package let lifecycle = Lifecycle()
    /// What this server's calls may reach (`ServerConfiguration.grant`), checked by the planner.
    package let grant: Grant
    let changes: ChangeNotifier
    /// The `wsb:` documents the client read, refreshed when they change.
    let contentRefresh = ContentRefresh()
    package let agents: AgentService
    let settings = SettingsService()
    /// Where a change of the active root is announced: every watcher of the workspace follows it.
    let moves: WorkspaceMoves
    private let openStorage = Mutex<StorageService?>(nil)
    /// The connection this server answers on (for notifications that no request triggers).
    private let client = ClientRef()

    init(configuration: ServerConfiguration, logSink: ClientLogSink, logger: Logger) {
        self.configuration = configuration
        self.grant = Grant(configuration.grant)
        self.logSink = logSink
        self.logger = logger
        self.changes = ChangeNotifier(logger: logger)
        let client = self.client
        let lifecycle = self.lifecycle
        let configDir = (try? configuration.resolvedConfigDirectory()) ?? "/tmp/workspace-bridge-\(getuid())"
        self.agents = AgentService(configDirectory: configDir, conditionsMaxAge: configuration.conditionsMaxAge,
                                   hub: configuration.hub?.replica, logger: logger) { method, params in
            // Session and queue notifications are the LSP-style face's, no other face's.
            if let face = lifecycle.chosenFace, face != .lsp { return }
            client.get()?.notify(method, params)
        }
        self.moves = WorkspaceMoves([changes], logger: logger)
    }

    package func attach(_ connection: Connection) { client.set(connection) }

    /// The storage opened by `initialize`.
    package func storage() throws(RPCError) -> StorageService {
        guard let s = openStorage.withLock({ $0 }) else { throw .serverNotInitialized }
        return s
    }

    /// The active workspace (local or cloud, per the storage choice).
    package func workspace() throws -> Workspace {
        try storage().manager.active()
    }

    /// The sessions and queue of the active workspace.
    func stores() throws -> (SessionStore, OfflineQueue) {
        try agents.stores(for: try workspace())
    }

    /// Opens storage: the local root is `--local-root`, else `initializationOptions.localRoot`,
    /// else the embedded default under the user's data folder; the cloud root likewise from
    /// `--cloud-root` or `initializationOptions.cloudRoot`; a root used for the first time gets
    /// `--template`, else `initializationOptions.template`, else the default layout.
    package func openStorage(initializationOptions: Params?) throws -> StorageService {
        let local = try configuration.localRoot ?? initializationOptions?.string("localRoot") ?? configuration.defaultLocalRoot()
        let cloud = try configuration.cloudRoot ?? initializationOptions?.string("cloudRoot")
        let template = try configuration.template
            ?? initializationOptions?.choice("template", WorkspaceTemplate.allCases.map(\.rawValue)).flatMap(WorkspaceTemplate.init)
            ?? .default
        let manager = try StorageManager(localRoot: local, cloudRoot: cloud,
                                         configDirectory: try configuration.resolvedConfigDirectory(), template: template)
        let moves = self.moves
        let service = StorageService(manager: manager, logger: logger) { moved in try moves.announce(moved) }
        openStorage.withLock { $0 = service }
        logger.info("storage: local \(manager.localRoot), cloud \(manager.cloudRoot ?? "none"), active \(manager.location.rawValue)")
        let ws = manager.local
        // Leftovers of interrupted saves are invisible (never listed), so sweeping them can wait.
        let log = logger
        let sweep: @Sendable () -> Void = {
            let n = ws.removeLeftoverTempFiles()
            if n > 0 { log.notice("removed \(n) temp files left by interrupted saves") }
        }
        // Without a thread for it, the sweep runs here.
        do { try OSThread.detach(sweep) } catch { sweep() }
        return service
    }

    /// The one place where any error becomes its protocol form.
    package func mapError(_ error: any Error) -> RPCError {
        if let e = error as? RPCError { return e }
        var error = error
        // Session and queue files live under the root's private folder: their errors name the
        // path relative to the root, like every other error (the host's layout stays private).
        if let s = error as? SessionError, let root = try? workspace().rootPath { error = s.relative(to: root) }
        let e = ErrorMapping.rpcError(for: error)
        if e.code == ErrorCode.internalError { logger.error("internal error: \(error)") }
        return e
    }
}

/// The connection a server notifies, once known (set by `initialize`).
final class ClientRef: Sendable {
    private let connection = Mutex<Connection?>(nil)
    func set(_ c: Connection) { connection.withLock { $0 = c } }
    func get() -> Connection? { connection.withLock { $0 } }
}
