/// Settings travel with the workspace when it migrates between roots.
public enum SettingsMigration {
    /// Merges the settings of `source` into this device's file in `target` (per key by clock, so
    /// settings already in the target are kept unless the source has a later write of the key).
    /// Idempotent; does nothing when the source has no settings.
    public static func carry(from source: String, to target: String, configDirectory: String) throws(SettingsError) {
        let from = try SettingsStore(rootPath: source, device: "").snapshot()
        guard !from.entries.isEmpty else { return }
        try SettingsStore(rootPath: target, device: DeviceIdentity.id(configDirectory: configDirectory)).absorb(from.entries)
    }
}
