import JSON

/// A settings call that cannot be carried out, with a reason a client can act on.
///
/// `dataCode` is the protocol's `error.data.code`: `QuotaExceeded` (data.quota "keys" or
/// "bytes", data.limit, data.size: what the store would hold after the call), `InvalidArgument`
/// (a key that is empty or longer than 64 bytes: data.key, data.limit, data.size) or `IOError`
/// (data.path, data.errno).
public struct SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let dataCode: String
    public let message: String
    public let data: JSONObject

    public init(_ dataCode: String, _ message: String, data: JSONObject = [:]) {
        self.dataCode = dataCode
        self.message = message
        self.data = data
    }

    static func io(_ what: String, errno code: Int32, path: String) -> SettingsError {
        SettingsError("IOError", "\(what) \(path): errno \(code)", data: ["path": .string(path), "errno": .int(Int64(code))])
    }

    public var description: String { "\(dataCode): \(message)" }
}

/// The limits Apple documents for `NSUbiquitousKeyValueStore`, enforced on the merged live
/// values: at most 1,024 keys, 1 MB in total (each key's UTF-8 bytes plus its value's compact
/// JSON), keys of 1 to 64 bytes of UTF-8.
public enum SettingsLimits {
    public static let maxKeys = 1024
    public static let maxTotalBytes = 1 << 20
    public static let maxKeyBytes = 64

    public static func check(key: String) throws(SettingsError) {
        let n = key.utf8.count
        guard n >= 1, n <= maxKeyBytes else {
            let why = n == 0 ? "a key may not be empty" : "the key is \(n) bytes of UTF-8; at most \(maxKeyBytes) are allowed"
            throw SettingsError("InvalidArgument", why, data: ["key": .string(key), "limit": .int(Int64(maxKeyBytes)),
                                                              "size": .int(Int64(n))])
        }
        // A key becomes a JSON object key in the device's file, and jansson cannot read a NUL
        // there back: such a key would make the file unreadable (found by fuzzing the codec).
        guard !key.utf8.contains(0) else {
            throw SettingsError("InvalidArgument", "a key may not contain a NUL character",
                                data: ["key": .string(key), "limit": .int(Int64(maxKeyBytes)), "size": .int(Int64(n))])
        }
    }

    /// The bytes one key-value pair counts for.
    public static func size(key: String, value: JSON) -> Int {
        key.utf8.count + JSONCodec.encode(value).count
    }

    /// Refuses a change that takes the store over a limit, unless it does not grow that measure
    /// (a store already over a limit through merged remote writes can still shrink or be edited).
    static func check(before: SettingsSnapshot, after: SettingsSnapshot) throws(SettingsError) {
        if after.values.count > maxKeys && after.values.count > before.values.count {
            throw SettingsError("QuotaExceeded", "the settings would hold \(after.values.count) keys; at most \(maxKeys) are allowed",
                                data: ["quota": "keys", "limit": .int(Int64(maxKeys)), "size": .int(Int64(after.values.count))])
        }
        if after.totalBytes > maxTotalBytes && after.totalBytes > before.totalBytes {
            throw SettingsError("QuotaExceeded", "the settings would take \(after.totalBytes) bytes; at most \(maxTotalBytes) are allowed",
                                data: ["quota": "bytes", "limit": .int(Int64(maxTotalBytes)), "size": .int(Int64(after.totalBytes))])
        }
    }
}
