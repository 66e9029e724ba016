#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON
import SystemSupport
import Workspace

/// Per-machine storage settings, kept outside the synced root (like UserDefaults): the storage
/// choice and any migration in progress, for one local root.
///
/// Durability: every change is written to a temp file, flushed, and renamed over the old file,
/// then the folder is flushed, so after a crash the settings are wholly old or wholly new.
/// Not thread-safe by itself: `StorageManager` serialises access.
struct MachineSettings: Equatable {
    var location: StorageLocation = .local
    var needsChoice = true
    /// The migration journal's state while one is unfinished (see `Migration`).
    var pendingMigration: JSON?

    let file: String

    /// The settings file for `localRoot` in `configDirectory`.
    static func file(configDirectory: String, localRoot: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in localRoot.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        let hex = String(h, radix: 16)
        return configDirectory + "/storage-" + String(repeating: "0", count: 16 - hex.count) + hex + ".json"
    }

    /// The persisted settings; the defaults when none were saved yet (or the file is ignored).
    static func load(configDirectory: String, localRoot: String, warn: (String) -> Void) throws(WorkspaceError) -> MachineSettings {
        try loadIfPresent(configDirectory: configDirectory, localRoot: localRoot, warn: warn)
            ?? MachineSettings(file: file(configDirectory: configDirectory, localRoot: localRoot))
    }

    /// The persisted settings; nil when none were saved yet (no file). A file over
    /// `FileCap.storageSettings`, not a regular file, or not a JSON object is ignored as if
    /// absent, with `warn` told why (the server starts with the defaults: a choice to make);
    /// only a failure to read it throws.
    static func loadIfPresent(configDirectory: String, localRoot: String, warn: (String) -> Void) throws(WorkspaceError) -> MachineSettings? {
        let path = file(configDirectory: configDirectory, localRoot: localRoot)
        var s = MachineSettings(file: path)
        let bytes: [UInt8]
        switch BoundedFile.read(path, .storageSettings) {
        case .absent: return nil
        case .bytes(let b): bytes = b
        case .ignored(let why): warn(why); return nil
        case .failed(let e):
            throw WorkspaceError(.ioError, "cannot read the storage settings \(path): \(describeErrno(e))", path: path)
        }
        guard let json = try? JSONCodec.decode(bytes), json.objectValue != nil else {
            warn("the storage settings \(path) are not valid JSON (a JSON object); ignored")
            return nil
        }
        if let l = json["location"]?.stringValue, let loc = StorageLocation(rawValue: l) { s.location = loc }
        if let n = json["needsChoice"]?.boolValue { s.needsChoice = n }
        if let m = json["pendingMigration"], !m.isNull { s.pendingMigration = m }
        return s
    }

    /// The persisted settings, nil when none were saved yet; a file the server ignores (too large,
    /// not a regular file, not a JSON object) throws, saying why: for a caller that reports the
    /// file rather than starting without it (`workspace-bridge doctor`'s `SavedChoice`).
    static func loadIfPresent(configDirectory: String, localRoot: String) throws(WorkspaceError) -> MachineSettings? {
        var ignored: String?
        let s = try loadIfPresent(configDirectory: configDirectory, localRoot: localRoot) { ignored = $0 }
        if let ignored { throw WorkspaceError(.ioError, ignored, path: file(configDirectory: configDirectory, localRoot: localRoot)) }
        return s
    }

    func save(localRoot: String, cloudRoot: String?) throws(WorkspaceError) {
        let json: JSON = [
            "version": 1, "localRoot": .string(localRoot), "cloudRoot": cloudRoot.map(JSON.string) ?? .null,
            "location": .string(location.rawValue), "needsChoice": .bool(needsChoice),
            "pendingMigration": pendingMigration ?? .null,
        ]
        try Self.writeAtomically(file, JSONCodec.encode(json))
    }

    static func writeAtomically(_ path: String, _ bytes: [UInt8]) throws(WorkspaceError) {
        guard let slash = path.lastIndex(of: "/") else { throw WorkspaceError(.invalidArgument, "not an absolute path", path: path) }
        let dir = String(path[..<slash])
        try makeDirectories(dir)
        let tmp = path + ".tmp-\(getpid())"
        let fd = Sys.openRegularHost(tmp, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        guard fd >= 0 else { throw WorkspaceError(.ioError, "cannot write \(tmp): errno \(errno)", path: path) }
        let ok = FileIO.writeAll(fd, bytes) && wb_full_fsync(fd) == 0
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            unlink(tmp)
            throw WorkspaceError(.ioError, "cannot write \(path): errno \(errno)", path: path)
        }
        let d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if d >= 0 { _ = fsync(d); close(d) }
    }

    static func makeDirectories(_ path: String) throws(WorkspaceError) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw WorkspaceError(.ioError, "cannot create \(prefix): errno \(errno)", path: path)
            }
        }
    }
}

