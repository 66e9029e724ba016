import JSON
import Workspace

/// Synced settings: a small key-value store in `<root>/.workspace/settings/` that follows the
/// user across devices through whatever keeps the root in sync (like `NSUbiquitousKeyValueStore`).
///
/// Guarantees:
/// - Each device writes only its own file (`<device>.json`), so a sync engine never sees two
///   devices edit one file and never makes a conflict copy of it. Conflict copies that appear
///   anyway (a restored backup, two machines sharing one configuration folder) are read and
///   merged like any file, and the owner folds copies of its own file back in on its next write.
/// - Reading merges every file per key by hybrid logical clock (`SettingsClock`): the latest
///   write of a key wins on every device, a later removal beats an earlier value, and a key
///   written on one device is never lost because another device wrote other keys.
/// - Every change is checked against `SettingsLimits` on the merged result before anything is
///   written; a refused change writes nothing.
/// - Safe for several threads and processes on one machine (writers hold a `flock` on the folder
///   and re-read the files under it).
public final class SettingsStore: Sendable {
    public let rootPath: String
    public let device: String
    private let now: @Sendable () -> Int64

    /// `now` gives the wall clock in milliseconds (tests pass their own).
    public init(rootPath: String, device: String, now: @escaping @Sendable () -> Int64 = { SettingsClock.wallNow() }) {
        self.rootPath = rootPath
        self.device = device
        self.now = now
    }

    public var folderPath: String { rootPath + "/" + Workspace.privateFolder + "/settings" }
    var ownFile: String { DeviceIdentity.fileName(device) }

    /// Creates the folder (so it can be watched before the first write).
    public func prepare() throws(SettingsError) {
        try SettingsFolder.open(rootPath: rootPath, create: true)?.close()
    }

    /// The merged view of every device's file now.
    public func snapshot() throws(SettingsError) -> SettingsSnapshot {
        guard let folder = try SettingsFolder.open(rootPath: rootPath, create: false) else { return SettingsSnapshot(entries: [:]) }
        defer { folder.close() }
        return SettingsSnapshot(entries: Self.read(folder).merged)
    }

    /// Sets each key to its value (a value of any JSON type but null). Returns the merged view after.
    public func set(_ values: [(String, JSON)]) throws(SettingsError) -> SettingsSnapshot {
        for (k, _) in values { try SettingsLimits.check(key: k) }
        return try change { before, clock in
            var out: [String: SettingsEntry] = [:]
            for (k, v) in values { out[k] = SettingsEntry(value: v, clock: clock) }
            return out
        }
    }

    /// Removes the keys that have a value (others are left alone). Returns the merged view after.
    public func remove(_ keys: [String]) throws(SettingsError) -> SettingsSnapshot {
        for k in keys { try SettingsLimits.check(key: k) }
        return try change { before, clock in
            var out: [String: SettingsEntry] = [:]
            for k in keys where before.values[k] != nil { out[k] = SettingsEntry(value: nil, clock: clock) }
            return out
        }
    }

    /// Merges entries written elsewhere (another root's settings, during a migration) into this
    /// device's file, keeping their clocks: the merged view afterwards is the per-key union.
    public func absorb(_ entries: [String: SettingsEntry]) throws(SettingsError) {
        guard !entries.isEmpty else { return }
        _ = try change(checkLimits: false) { _, _ in entries }
    }

    /// Removes every settings file in the folder (the source of a move).
    public func removeAll() {
        guard let folder = try? SettingsFolder.open(rootPath: rootPath, create: false) else { return }
        defer { folder.close() }
        folder.lock()
        defer { folder.unlock() }
        for name in Self.settingsFiles(folder).map(\.name) { folder.remove(name) }
    }

    /// Read, decide and write under the folder lock. `make` gets the merged view before and the
    /// clock for this write, and returns the entries to write into this device's file.
    private func change(checkLimits: Bool = true,
                        _ make: (SettingsSnapshot, SettingsClock) -> [String: SettingsEntry]) throws(SettingsError) -> SettingsSnapshot {
        guard let folder = try SettingsFolder.open(rootPath: rootPath, create: true) else { return try snapshot() }
        defer { folder.close() }
        folder.lock()
        defer { folder.unlock() }
        let state = Self.read(folder, own: ownFile)
        let before = SettingsSnapshot(entries: state.merged)
        let clock = SettingsClock.next(after: before.latestClock, nowMs: now(), device: device)
        let written = make(before, clock)
        if written.isEmpty && state.ownCopies.isEmpty { return before }
        var merged = state.merged
        SettingsMerge.merge(&merged, written)
        let after = SettingsSnapshot(entries: merged)
        if checkLimits { try SettingsLimits.check(before: before, after: after) }
        var own = state.own
        SettingsMerge.merge(&own, written)
        try folder.write(ownFile, SettingsFileFormat.encode(device: device, entries: own))
        for copy in state.ownCopies { folder.remove(copy) }
        folder.sweepTempFiles()
        return after
    }

    /// What the folder holds: the merged entries of every file; this device's file merged with
    /// the conflict copies of it; and the names of those copies.
    struct FolderState {
        var merged: [String: SettingsEntry] = [:]
        var own: [String: SettingsEntry] = [:]
        var ownCopies: [String] = []
    }

    static func read(_ folder: SettingsFolder, own: String? = nil) -> FolderState {
        var state = FolderState()
        for (name, original) in settingsFiles(folder) {
            guard let bytes = folder.read(name), let entries = SettingsFileFormat.decode(bytes) else { continue }
            SettingsMerge.merge(&state.merged, entries)
            if original == own {
                SettingsMerge.merge(&state.own, entries)
                if name != own { state.ownCopies.append(name) }
            }
        }
        return state
    }

    /// Device files and conflict copies of them (`name` and the file it is a copy of); temp
    /// files, engines' internal files and placeholders are left out.
    static func settingsFiles(_ folder: SettingsFolder) -> [(name: String, original: String)] {
        folder.names().compactMap { name in
            guard name.hasSuffix(".json") || name.contains(".json") else { return nil }
            switch SyncArtefacts.classify(name) {
            case .none: return name.hasSuffix(".json") && !name.hasPrefix(".") ? (name, name) : nil
            case .conflictCopy(_, let original, _): return original.hasSuffix(".json") ? (name, original) : nil
            case .hidden, .placeholder: return nil
            }
        }
    }
}
