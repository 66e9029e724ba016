import JSON

/// One key's state as one write left it: a value, or a tombstone (`value == nil`) when the write
/// removed the key, stamped with the clock of that write.
public struct SettingsEntry: Sendable, Equatable {
    public var value: JSON?
    public var clock: SettingsClock

    public init(value: JSON?, clock: SettingsClock) {
        self.value = value
        self.clock = clock
    }

    public var isTombstone: Bool { value == nil }
}

/// The per-key merge: for every key, the entry with the greatest clock wins (a later tombstone
/// beats an earlier value and the other way round). Commutative, associative and idempotent,
/// so files can be merged in any order, any number of times.
public enum SettingsMerge {
    public static func merge(_ into: inout [String: SettingsEntry], _ other: [String: SettingsEntry]) {
        for (key, entry) in other {
            if let mine = into[key], !(mine.clock < entry.clock) { continue }
            into[key] = entry
        }
    }
}

/// The on-disk form of one device's file (`.workspace/settings/<device>.json`):
/// `{"version": 1, "device": D, "entries": {key: {"value": V, "at": ms, "n": counter, "by": device}
/// or {"deleted": true, "at", "n", "by"}}}`. Decoding skips malformed entries (and keys or clocks
/// no valid write can have) rather than failing the whole file.
enum SettingsFileFormat {
    /// 9999-12-31T23:59:59.999Z: the latest time a `Timestamp` can show.
    static let maxWallMs: Int64 = 253_402_300_799_999

    static func encode(device: String, entries: [String: SettingsEntry]) -> [UInt8] {
        var out = JSONObject()
        out.reserveCapacity(entries.count)
        for (key, e) in entries.sorted(by: { $0.key < $1.key }) {
            var o: JSONObject = ["at": .int(e.clock.wallMs), "n": .int(e.clock.counter), "by": .string(e.clock.device)]
            if let v = e.value { o["value"] = v } else { o["deleted"] = true }
            out[key] = .object(o)
        }
        return JSONCodec.encode(["version": 1, "device": .string(device), "entries": .object(out)])
    }

    /// The entries of a file, or nil when the bytes are not a settings file.
    static func decode(_ bytes: [UInt8]) -> [String: SettingsEntry]? {
        guard let json = try? JSONCodec.decode(bytes), let entries = json["entries"]?.objectValue else { return nil }
        var out: [String: SettingsEntry] = [:]
        for (key, raw) in entries.members {
            guard (try? SettingsLimits.check(key: key)) != nil, let at = raw["at"]?.intValue, (0...maxWallMs).contains(at),
                let n = raw["n"]?.intValue, n >= 0, let by = raw["by"]?.stringValue
            else { continue }
            let clock = SettingsClock(wallMs: at, counter: n, device: by)
            if raw["deleted"]?.boolValue == true {
                out[key] = SettingsEntry(value: nil, clock: clock)
            } else if let v = raw["value"], !v.isNull {
                out[key] = SettingsEntry(value: v, clock: clock)
            }
        }
        return out
    }
}
