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

    /// The persisted settings; the defaults when none were saved yet.
    static func load(configDirectory: String, localRoot: String) throws(WorkspaceError) -> MachineSettings {
        try loadIfPresent(configDirectory: configDirectory, localRoot: localRoot)
            ?? MachineSettings(file: file(configDirectory: configDirectory, localRoot: localRoot))
    }

    /// The persisted settings; nil when none were saved yet (no file).
    static func loadIfPresent(configDirectory: String, localRoot: String) throws(WorkspaceError) -> MachineSettings? {
        let path = file(configDirectory: configDirectory, localRoot: localRoot)
        var s = MachineSettings(file: path)
        let fd = Sys.openRegularHost(path, flags: O_RDONLY)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw WorkspaceError(.ioError, "cannot read the storage settings \(path): errno \(errno)", path: path)
        }
        defer { close(fd) }
        guard let bytes = FileIO.readToEnd(fd) else {
            throw WorkspaceError(.ioError, "cannot read the storage settings \(path): errno \(errno)", path: path)
        }
        guard let json = try? JSONCodec.decode(bytes) else {
            throw WorkspaceError(.ioError, "the storage settings \(path) are not valid JSON", path: path)
        }
        if let l = json["location"]?.stringValue, let loc = StorageLocation(rawValue: l) { s.location = loc }
        if let n = json["needsChoice"]?.boolValue { s.needsChoice = n }
        if let m = json["pendingMigration"], !m.isNull { s.pendingMigration = m }
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
        let slash = path.lastIndex(of: "/")!
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

