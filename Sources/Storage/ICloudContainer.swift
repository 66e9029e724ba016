#if canImport(Darwin) && !os(Linux)
import Foundation

/// The only code that talks to iCloud Drive through Foundation (Apple systems only).
public enum ICloudContainer {
    /// The `Documents` folder of the app's ubiquity container, when iCloud is signed in and the
    /// container is entitled; `nil` otherwise (then the cloud is unavailable).
    public static func documentsPath(identifier: String?) -> String? {
        FileManager.default.url(forUbiquityContainerIdentifier: identifier)?.appendingPathComponent("Documents").path
    }

    /// Asks iCloud to download a placeholder (a `.name.icloud` stub or a dataless file).
    public static func startDownloading(_ path: String) {
        try? FileManager.default.startDownloadingUbiquitousItem(at: URL(fileURLWithPath: path))
    }
}
#else
/// iCloud Drive exists on Apple systems only: here there is no container, so a configured
/// iCloud cloud root is simply unavailable.
public enum ICloudContainer {
    public static func documentsPath(identifier: String?) -> String? { nil }
    public static func startDownloading(_ path: String) {}
}
#endif
