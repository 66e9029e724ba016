#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Storage
import Testing

@Suite("Settings migration")
struct SettingsMigrationTests {
    private func manager(_ dir: String) throws -> StorageManager {
        mkdir(dir + "/cloud", 0o755)
        return try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
    }

    @Test("migrate moves the settings with the workspace and leaves none behind in move mode")
    func moveCarriesSettings() throws {
        let dir = tempRoot()
        let m = try manager(dir)
        let device = DeviceIdentity.id(configDirectory: dir + "/config")
        _ = try SettingsStore(rootPath: m.localRoot, device: device).set([("darkMode", true), ("textSize", 16)])
        var options = Migration.Options(to: .cloud)
        options.mode = .move
        let report = try Migration(manager: m, options: options).run(isCancelled: { false }, progress: { _ in })
        #expect(report.switched)
        #expect(try SettingsStore(rootPath: m.cloudRoot!, device: device).snapshot().values == ["darkMode": true, "textSize": 16])
        #expect(try SettingsStore(rootPath: m.localRoot, device: device).snapshot().values.isEmpty)
    }

    @Test("settings already in the target are merged per key: the later write of each key wins")
    func mergeWithTarget() throws {
        let dir = tempRoot()
        let m = try manager(dir)
        // The cloud already has settings from another device, one key older and one newer than local's.
        _ = try store(dir + "/cloud", "device-other", at: 1_000).set([("theme", "old"), ("cloudOnly", 1)])
        _ = try store(dir + "/cloud", "device-other", at: 9_000).set([("textSize", 20)])
        let device = DeviceIdentity.id(configDirectory: dir + "/config")
        _ = try SettingsStore(rootPath: m.localRoot, device: device, now: { 5_000 }).set([("theme", "new"), ("textSize", 12)])
        _ = try Migration(manager: m, options: Migration.Options(to: .cloud)).run(isCancelled: { false }, progress: { _ in })
        let merged = try SettingsStore(rootPath: m.cloudRoot!, device: device).snapshot().values
        #expect(merged == ["theme": "new", "textSize": 20, "cloudOnly": 1])
        // Copy mode keeps the source's settings; the other device's file is untouched (only this device's was written).
        #expect(try SettingsStore(rootPath: m.localRoot, device: device).snapshot().values == ["theme": "new", "textSize": 12])
        #expect(try listFolder(dir + "/cloud/.workspace/settings") == ["\(device).json", "device-other.json"].sorted())
    }
}
