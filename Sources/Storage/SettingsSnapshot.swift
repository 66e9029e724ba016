import JSON
import SystemSupport
import Workspace

/// The merged view of every device's settings file at one moment.
public struct SettingsSnapshot: Sendable, Equatable {
    /// For every key ever written: the winning entry (tombstones included).
    public let entries: [String: SettingsEntry]
    /// The live values (keys whose winner is not a tombstone).
    public let values: [String: JSON]
    /// Bytes the live values count for against the 1 MB limit.
    public let totalBytes: Int

    public init(entries: [String: SettingsEntry]) {
        self.entries = entries
        var values: [String: JSON] = [:]
        var bytes = 0
        for (k, e) in entries {
            guard let v = e.value else { continue }
            values[k] = v
            bytes += SettingsLimits.size(key: k, value: v)
        }
        self.values = values
        self.totalBytes = bytes
    }

    /// The greatest clock of any entry: a new write must come after it.
    public var latestClock: SettingsClock? { entries.values.map(\.clock).max() }

    /// When the store last changed (the latest write, removals included), or nil if never.
    public var updatedAt: String? {
        latestClock.map { Timestamp.iso8601(nanos: $0.wallMs * 1_000_000) }
    }

    /// The live values as a JSON object, keys sorted.
    public func json(keys: [String]? = nil) -> JSON {
        var o = JSONObject()
        for k in (keys ?? values.keys.sorted()) where o[k] == nil {
            if let v = values[k] { o[k] = v }
        }
        return .object(o)
    }
}
