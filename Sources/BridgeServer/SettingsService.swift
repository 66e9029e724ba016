#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileWatching
import JSON
import JSONRPC
import Logging
import Storage
import Synchronization
import Workspace

/// The synced settings of one connection: the store of the active root, and `settings/didChange`
/// for changes this connection did not make itself.
///
/// Notifications start with the connection's first `settings/*` request (as an app reads its
/// `NSUbiquitousKeyValueStore` at launch): from then on a watcher on `.workspace/settings/` of
/// the active root (and of the other root when the server has used it) compares the merged
/// values with what the client last saw. A change is reported once, with `source` `"local"` when
/// the winning write was made on this device (another process sharing the configuration
/// folder) and `"remote"` when it came from another device's file. The connection's own
/// `settings/set` and `settings/remove` are never echoed: their answers carry the new values.
final class SettingsService: Sendable {
    private struct State {
        var device: String?
        var manager: StorageManager?
        var connection: Connection?
        var logger: Logger?
        var stores: [String: SettingsStore] = [:]
        var watchers: [String: FileWatcher] = [:]
        /// The live values the client has seen (nil before its first settings request).
        var seen: [String: JSON]?
    }
    private let state = Mutex(State())
    /// Serialises read-compare-record, so a notification never overtakes or repeats an answer.
    private let ordering = Mutex(())

    /// Runs `body` on the active root's store; `shown` names the keys whose values the answer
    /// shows the client (nil: all of them), which are then not notified again.
    func serve(_ call: Call, shown: [String]?,
               _ body: (SettingsStore) throws -> SettingsSnapshot) throws -> SettingsSnapshot {
        let manager = try call.services.storage().manager
        let root = try manager.active().rootPath
        let store = open(root: root, manager: manager, connection: try call.connection(), logger: call.services.logger)
        watchRoots(manager)
        return try ordering.withLock { _ in
            let snap = try body(store)
            state.withLock { s in
                var seen = s.seen ?? snap.values
                for k in shown ?? Array(Set(seen.keys).union(snap.values.keys)) { seen[k] = snap.values[k] }
                s.seen = seen
            }
            return snap
        }
    }

    private func open(root: String, manager: StorageManager, connection: Connection, logger: Logger) -> SettingsStore {
        state.withLock { s in
            let device = s.device ?? DeviceIdentity.id(configDirectory: manager.configDirectory)
            s.device = device
            s.manager = manager
            s.connection = connection
            s.logger = logger
            if let store = s.stores[root] { return store }
            let store = SettingsStore(rootPath: root, device: device)
            s.stores[root] = store
            return store
        }
    }

    /// Watches the active root, and the other root once the server has used it (it has a
    /// `.workspace/` folder): no folder is created in a root the user has not chosen.
    private func watchRoots(_ manager: StorageManager) {
        var roots = [manager.localRoot]
        if manager.isCloudAvailable, let cloud = try? manager.workspace(.cloud).rootPath { roots.append(cloud) }
        let active = try? manager.active().rootPath
        for root in roots where root == active || Self.isDirectory(root + "/" + Workspace.privateFolder) {
            guard let (store, logger) = state.withLock({ s -> (SettingsStore, Logger?)? in
                guard s.watchers[root] == nil, let device = s.device else { return nil }
                return (s.stores[root] ?? SettingsStore(rootPath: root, device: device), s.logger)
            }) else { continue }
            do {
                try store.prepare()
                let watcher = try FileWatcher(
                    root: store.folderPath, latencyMilliseconds: 50,
                    ignore: { $0.hasPrefix(".syncthing.") && $0.hasSuffix(".tmp") },
                    onChanges: { [weak self] _ in self?.refresh(root: root) },
                    onOverflow: { [weak self] in self?.refresh(root: root) })
                let extra = state.withLock { s -> FileWatcher? in
                    if s.watchers[root] != nil { return watcher }
                    s.watchers[root] = watcher
                    s.stores[root] = s.stores[root] ?? store
                    return nil
                }
                extra?.stop()
            } catch {
                logger?.warning("settings: cannot watch \(store.folderPath): \(error)")
            }
        }
    }

    /// A settings file changed in `root`: tell the client what changed in the values it saw,
    /// when `root` is the active root.
    private func refresh(root: String) {
        ordering.withLock { _ in
            let (store, manager, connection, seen) = state.withLock { s in (s.stores[root], s.manager, s.connection, s.seen) }
            guard let store, let manager, let connection, let seen, (try? manager.active().rootPath) == root,
                let snap = try? store.snapshot()
            else { return }
            var changed: [String: JSONObject] = [:]
            for key in Set(seen.keys).union(snap.values.keys).sorted() where seen[key] != snap.values[key] {
                let source = snap.entries[key]?.clock.device == store.device ? "local" : "remote"
                changed[source, default: JSONObject()][key] = snap.values[key] ?? .null
            }
            state.withLock { $0.seen = snap.values }
            for source in ["local", "remote"] {
                if let c = changed[source] { connection.notify("settings/didChange", ["changed": .object(c), "source": .string(source)]) }
            }
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}

/// Settings errors as the protocol says them: `QuotaExceeded` (data.quota "keys" or "bytes",
/// data.limit, data.size), `InvalidArgument` (data.key, data.limit, data.size), `IOError`
/// (data.path, data.errno).
extension SettingsError: DomainError {
    public var dataCode: String {
        switch self {
        case .quotaExceeded: "QuotaExceeded"
        case .invalidKey: "InvalidArgument"
        case .io: "IOError"
        }
    }

    public var data: JSONObject {
        switch self {
        case .quotaExceeded(let quota, let limit, let size):
            ["quota": .string(quota.rawValue), "limit": .int(Int64(limit)), "size": .int(Int64(size))]
        case .invalidKey(let key, _, let limit, let size): ["key": .string(key), "limit": .int(Int64(limit)), "size": .int(Int64(size))]
        case .io(_, let code, let path): ["path": .string(path), "errno": .int(Int64(code))]
        }
    }
}
