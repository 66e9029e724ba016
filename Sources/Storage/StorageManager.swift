#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import Workspace

/// Owns the two roots of one user's workspace on this machine and which of them is active.
///
/// The local root always exists (it is created). The cloud root is a folder some sync engine
/// keeps in sync (or the iCloud Drive container); the server never creates it, and when it is
/// missing, unmounted, or replaced after being opened, every operation on it fails with
/// `CloudUnavailable` rather than writing anywhere else. The choice is persisted per machine in
/// the configuration folder. Thread-safe; `choose` and migrations must be serialised by the
/// caller against file operations (the server schedules them as barriers).
public final class StorageManager: Sendable {
    public let localRoot: String
    public let cloudRoot: String?
    public let configDirectory: String
    public let local: Workspace
    /// The layout a root gets the first time it is used (the local root now, the cloud root
    /// when the user chooses it).
    public let template: WorkspaceTemplate

    private struct State {
        var settings: MachineSettings
        var cloud: Workspace?
        var cloudIdentity: (dev: UInt64, ino: UInt64)?
    }
    private let state: Mutex<State>
    /// Serialises writing the settings file with re-reading it (`update`, `reloadChoice`), so a
    /// re-read never puts back a state older than one just written.
    private let writing = Mutex(())
    /// Why a file in the configuration folder was ignored, until `drainWarnings` takes them.
    private let warnings = Mutex<[String]>([])

    public init(localRoot: String, cloudRoot: String?, configDirectory: String,
                template: WorkspaceTemplate = .default) throws(WorkspaceError) {
        self.template = template
        local = try Workspace(rootPath: localRoot, template: template)
        self.localRoot = local.rootPath
        self.cloudRoot = cloudRoot.map(Self.absolute)
        self.configDirectory = configDirectory
        var ignored: [String] = []
        let settings = try MachineSettings.load(configDirectory: configDirectory, localRoot: local.rootPath) { ignored.append($0) }
        state = Mutex(State(settings: settings, cloud: nil, cloudIdentity: nil))
        warnings.withLock { $0 = ignored }
    }

    /// Why files of the configuration folder were ignored since the last call (too large,
    /// damaged, not regular files: each treated as absent), for the caller to log.
    public func drainWarnings() -> [String] {
        warnings.withLock { w in
            defer { w = [] }
            return w
        }
    }

    /// Keeps a warning for `drainWarnings`.
    func warn(_ message: String) { warnings.withLock { $0.append(message) } }

    public var location: StorageLocation { state.withLock { $0.settings.location } }

    /// The workspace file operations act on now.
    public func active() throws(WorkspaceError) -> Workspace {
        switch location {
        case .local: return local
        case .cloud: return try cloudWorkspace()
        }
    }

    /// The workspace at one location (for migrations).
    public func workspace(_ at: StorageLocation) throws(WorkspaceError) -> Workspace {
        at == .local ? local : try cloudWorkspace()
    }

    /// Whether the cloud root is configured and there now.
    public var isCloudAvailable: Bool {
        guard let cloudRoot else { return false }
        var st = stat()
        return stat(cloudRoot, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Opens the cloud workspace on first use, and checks on every use that the folder at the
    /// cloud path is still the one opened: an unmounted, removed or replaced root is unavailable
    /// (a new empty folder at the path is never written to). Choosing the cloud again accepts
    /// the folder now there (`reopen`).
    func cloudWorkspace(bootstrap: Bool = false, reopen: Bool = false) throws(WorkspaceError) -> Workspace {
        guard let cloudRoot else {
            throw WorkspaceError(.cloudUnavailable, "no cloud root is configured (--cloud-root)")
        }
        var st = stat()
        guard stat(cloudRoot, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw WorkspaceError(.cloudUnavailable, "the cloud root \(cloudRoot) is not available (missing or unmounted)",
                                 path: cloudRoot)
        }
        let identity = (dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
        let known = state.withLock { s -> (Workspace, Bool)? in
            guard let ws = s.cloud, let id = s.cloudIdentity else { return nil }
            return (ws, id == identity)
        }
        if let (ws, same) = known, !reopen {
            guard same else {
                throw WorkspaceError(.cloudUnavailable,
                                     "the cloud root \(cloudRoot) was replaced by another folder since it was opened; choose the cloud again to use the new one",
                                     path: cloudRoot)
            }
            if bootstrap { try Workspace.layOutTemplate(in: ws, template: template) }
            return ws
        }
        let ws = try Workspace(rootPath: cloudRoot, bootstrap: bootstrap, template: template)
        state.withLock { s in
            s.cloud = ws
            s.cloudIdentity = identity
        }
        return ws
    }

    /// The first-run choice: `cloud` needs an available cloud root (`CloudUnavailable`
    /// otherwise); `decideLater` uses local and keeps asking. Persisted before it returns.
    /// Returns false when this already was the choice (nothing is written then: a retry is a no-op).
    @discardableResult
    public func choose(_ choice: StorageChoice) throws(WorkspaceError) -> Bool {
        if choice == .cloud { _ = try cloudWorkspace(bootstrap: true, reopen: true) }
        let location: StorageLocation = choice == .cloud ? .cloud : .local
        let needsChoice = choice == .decideLater
        let current = settings
        if current.location == location && current.needsChoice == needsChoice { return false }
        try update { s in
            s.location = location
            s.needsChoice = needsChoice
        }
        return true
    }

    /// Changes the persisted settings (crash-safely) and the in-memory copy together.
    func update(_ change: (inout MachineSettings) -> Void) throws(WorkspaceError) {
        try writing.withLock { _ throws(WorkspaceError) in
            var next = state.withLock { $0.settings }
            change(&next)
            try next.save(localRoot: localRoot, cloudRoot: cloudRoot)
            state.withLock { $0.settings = next }
        }
    }

    /// The file the choice is persisted in (in `configDirectory`): watch it to learn of a
    /// choice made by another process on this machine, then call `reloadChoice`.
    public var settingsFile: String { MachineSettings.file(configDirectory: configDirectory, localRoot: localRoot) }

    /// Re-reads the persisted settings, which another process on this machine (the app choosing
    /// the storage while an MCP server runs) may have changed. Returns whether the active
    /// location changed. Only the choice (`location`, `needsChoice`) is taken: a migration
    /// another process runs stays its own. A file that is missing or cannot be read changes nothing.
    public func reloadChoice() -> Bool {
        writing.withLock { _ in
            guard let loaded = (try? MachineSettings.loadIfPresent(configDirectory: configDirectory, localRoot: localRoot, warn: warn)) ?? nil
            else { return false }
            return state.withLock { s in
                let moved = s.settings.location != loaded.location
                s.settings.location = loaded.location
                s.settings.needsChoice = loaded.needsChoice
                return moved
            }
        }
    }

    /// Creates the configuration folder if missing (so it can be watched before anything is saved).
    public func prepareConfigDirectory() throws(WorkspaceError) {
        try MachineSettings.makeDirectories(configDirectory)
    }

    var settings: MachineSettings { state.withLock { $0.settings } }

    /// The storage facts; `usage` is supplied by the caller (kept current elsewhere).
    public func info(files: Int, bytes: Int64, provider: String?) -> StorageInfo {
        let s = settings
        let available = isCloudAvailable
        var free: Int64 = 0
        var vfs = statvfs()
        let activePath = s.location == .cloud ? (cloudRoot ?? localRoot) : localRoot
        if statvfs(activePath, &vfs) == 0 { free = Int64(vfs.f_bavail) * Int64(vfs.f_frsize) }
        return StorageInfo(
            storageType: s.location, isCloudEnabled: cloudRoot != nil, isCloudAvailable: available,
            isInitialized: !s.needsChoice, needsChoice: s.needsChoice, cloudProvider: cloudRoot == nil ? nil : provider,
            localRoot: localRoot, cloudRoot: cloudRoot, files: files, bytes: bytes, freeBytes: free,
            pendingMigration: s.pendingMigration.flatMap(PendingMigration.init).map { p in
                var p = p
                p.filesDone = MigrationJournal(file: MigrationJournal.file(configDirectory: configDirectory, localRoot: localRoot))
                    .load(warn: warn).count
                return p
            })
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path }
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buf, buf.count) != nil else { return path }
        let cwd = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return cwd + "/" + path
    }
}

extension PendingMigration {
    init?(_ json: JSON) {
        guard let to = json["to"]?.stringValue.flatMap(StorageLocation.init) else { return nil }
        self.init(to: to, mode: json["mode"]?.stringValue ?? "copy", startedAt: json["startedAt"]?.stringValue ?? "",
                  filesTotal: Int(json["filesTotal"]?.intValue ?? 0), filesDone: Int(json["filesDone"]?.intValue ?? 0))
    }
}
