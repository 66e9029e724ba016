import JSON

/// A settings call that cannot be carried out, with a reason a client can act on: a typed value
/// (the server maps each case to a protocol error, `SettingsService.swift`).
public enum SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store would go over a limit: which one, the limit, and what the store would hold after the call.
    case quotaExceeded(Quota, limit: Int, size: Int)
    /// A key that is empty, longer than `SettingsLimits.maxKeyBytes` or holds a NUL: the key, why,
    /// the limit and the key's size in bytes of UTF-8.
    case invalidKey(String, why: String, limit: Int, size: Int)
    /// A file system call failed: what was being done, errno, the path.
    case io(String, errno: Int32, path: String)

    public enum Quota: String, Sendable { case keys, bytes }

    public var message: String {
        switch self {
        case .quotaExceeded(.keys, let limit, let size): "the settings would hold \(size) keys; at most \(limit) are allowed"
        case .quotaExceeded(.bytes, let limit, let size): "the settings would take \(size) bytes; at most \(limit) are allowed"
        case .invalidKey(_, let why, _, _): why
        case .io(let what, let code, let path): "\(what) \(path): errno \(code)"
        }
    }

    public var description: String { message }
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
            throw .invalidKey(key, why: why, limit: maxKeyBytes, size: n)
        }
        // A key becomes a JSON object key in the device's file, and jansson cannot read a NUL
        // there back: such a key would make the file unreadable (found by fuzzing the codec).
        guard !key.utf8.contains(0) else {
            throw .invalidKey(key, why: "a key may not contain a NUL character", limit: maxKeyBytes, size: n)
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
            throw .quotaExceeded(.keys, limit: maxKeys, size: after.values.count)
        }
        if after.totalBytes > maxTotalBytes && after.totalBytes > before.totalBytes {
            throw .quotaExceeded(.bytes, limit: maxTotalBytes, size: after.totalBytes)
        }
    }
}
