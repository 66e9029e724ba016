import FileWatching
import JSON
import JSONRPC
import Logging
import Storage
import Synchronization
import SystemSupport
import Workspace

/// The server's view of storage: the roots and choice (`StorageManager`) plus a usage tracker
/// kept current by a watcher on the active root, so `getStorageInfo` does not walk the tree.
///
/// A choice made by another process on this machine (the app's `chooseStorage` or `migrate`
/// while this process serves an MCP client on the same configuration folder) is noticed by a
/// watcher of the settings file: the choice is re-read and, when the active root changed,
/// `moved` is called with the new workspace (the server announces it: `WorkspaceMoves`). That
/// watcher is set up on a thread of its own, off the start-up path (adding the first inotify
/// watch of a process can take milliseconds), and the choice is re-read once it watches, so a
/// choice made meanwhile is followed too.
package final class StorageService: Sendable {
    package let manager: StorageManager
    private let logger: Logger
    private struct Usage { var tracker: UsageTracker; var watcher: FileWatcher? }
    private let usage = Mutex<Usage?>(nil)
    private let settingsWatch = Mutex<FileWatcher?>(nil)

    init(manager: StorageManager, logger: Logger, moved: @escaping @Sendable (Workspace) throws -> Void = { _ in }) {
        Self.logWarnings(of: manager, to: logger)
        self.manager = manager
        self.logger = logger
        do {
            try OSThread.detach { [weak self] in
                guard self != nil, let (watcher, reload) = Self.watchChoice(manager, logger: logger, moved: moved) else { return }
                guard let service = self else { watcher.stop(); return }
                service.settingsWatch.withLock { $0 = watcher }
                reload()
            }
        } catch {
            logger.warning("storage: a choice made by another process will not be followed: \(error)")
        }
    }

    /// The watcher of the settings file and what it runs on a change (nil when it cannot watch).
    private static func watchChoice(_ manager: StorageManager, logger: Logger, moved: @escaping @Sendable (Workspace) throws -> Void)
        -> (FileWatcher, @Sendable () -> Void)? {
        let file = manager.settingsFile
        let name = file.split(separator: "/").last.map(String.init) ?? file
        let reload: @Sendable () -> Void = {
            let changed = manager.reloadChoice()
            logWarnings(of: manager, to: logger)
            guard changed else { return }
            do {
                let ws = try manager.active()
                logger.notice("storage: another process chose \(manager.location.rawValue); following to \(ws.rootPath)")
                try moved(ws)
            } catch {
                logger.error("storage: cannot follow the choice made by another process: \(error)")
            }
        }
        do {
            try manager.prepareConfigDirectory()
            let watcher = try FileWatcher(root: manager.configDirectory, ignore: { $0 != name },
                                          onChanges: { _ in reload() }, onOverflow: reload)
            return (watcher, reload)
        } catch {
            logger.warning("storage: a choice made by another process will not be followed: \(error)")
            return nil
        }
    }

    /// Storage facts with current usage (the first call walks the active root once).
    /// When the active root is unavailable (an unmounted cloud), usage is reported as zero and
    /// `isCloudAvailable` tells why: this call never fails for that reason.
    func info() throws -> StorageInfo {
        let (files, bytes) = (try? tracker().totals()) ?? (0, 0)
        defer { logWarnings() }
        return manager.info(files: files, bytes: bytes, provider: provider())
    }

    /// Logs why files of the configuration folder were ignored (each once, as it happens).
    func logWarnings() { Self.logWarnings(of: manager, to: logger) }

    private static func logWarnings(of manager: StorageManager, to logger: Logger) {
        for w in manager.drainWarnings() { logger.warning("storage: \(w)") }
    }

    func provider() -> String? {
        guard let cloud = manager.cloudRoot else { return nil }
        return SyncArtefacts.detectEngine(rootPath: cloud).rawValue
    }

    private func tracker() throws -> UsageTracker {
        let ws = try manager.active()
        if let u = usage.withLock({ $0 }), u.tracker.workspace === ws { return u.tracker }
        let tracker = UsageTracker(workspace: ws)
        let watcher = try? FileWatcher(
            root: ws.rootPath, latencyMilliseconds: 100,
            ignore: { Workspace.isServerPrivate(relativePath: $0) },
            onChanges: { changes in tracker.apply(changedPaths: changes.map(\.path)) },
            onOverflow: { tracker.rescan() })
        let previous = usage.withLock { u -> Usage? in
            defer { u = Usage(tracker: tracker, watcher: watcher) }
            return u
        }
        previous?.watcher?.stop()
        return tracker
    }

    /// The choice made, with whether it already was the choice (`alreadyActive`: nothing written).
    func choose(_ choice: StorageChoice) throws -> (info: StorageInfo, alreadyActive: Bool) {
        let changed = try manager.choose(choice)
        return (try info(), !changed)
    }
}
