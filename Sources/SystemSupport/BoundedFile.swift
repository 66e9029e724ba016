#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims

/// A kind of small file a user (or anyone who can write where it lives) can hand the server,
/// and the most bytes of it the server will ever hold: the one table of those caps, so each is
/// documented once (docs/protocol.md, "Files the server reads whole").
///
/// A file over its cap is never read into memory (at most `bytes + 1` bytes are held, whatever
/// its size): it is ignored, treated as absent, with a warning naming it and its cap.
public struct FileCap: Sendable, Equatable {
    /// What the file is, for the warning ("the device conditions").
    public let what: String
    /// The largest content accepted.
    public let bytes: Int

    public init(what: String, bytes: Int) {
        self.what = what
        self.bytes = bytes
    }

    /// `<config>/device-conditions.json`: a few hundred bytes when a host wrote it.
    public static let deviceConditions = FileCap(what: "the device conditions", bytes: 64 << 10)
    /// `<config>/storage-<hash>.json`: the storage choice and a migration in progress (under 1 KiB).
    public static let storageSettings = FileCap(what: "the storage settings", bytes: 1 << 20)
    /// `<config>/storage-<hash>.migration.jsonl`: one line (well under 4 KiB) per finished file;
    /// room for a migration of a few hundred thousand files. Over it, a resumed migration starts over
    /// (it checks again what it had already copied).
    public static let migrationJournal = FileCap(what: "the migration journal", bytes: 256 << 20)
    /// `<config>/pricing.json`: prices per tier and per model.
    public static let pricing = FileCap(what: "the pricing file", bytes: 1 << 20)
    /// `<root>/.workspace/settings/<device>.json`: one device's synced settings.
    public static let syncedSettings = FileCap(what: "a synced settings file", bytes: 16 << 20)
    /// `<root>/.workspace/sessions/<id>/lease.json` (and the queue's): who holds a session, until when.
    public static let lease = FileCap(what: "a session lease", bytes: 64 << 10)
    /// `<root>/.workspace/sessions/retention.json`: the retention policy.
    public static let retentionPolicy = FileCap(what: "the retention policy", bytes: 64 << 10)
    /// A sync engine's ignore list at the cloud root (`.stignore`, `.sync-exclude.lst`), read to
    /// see whether the staging folder is listed already (over the cap it is appended unchecked).
    public static let ignoreList = FileCap(what: "an ignore list", bytes: 1 << 20)
    /// An ignore file a listing or search honours (`.gitignore`, `.ignore` in any folder,
    /// `.stignore` at the root). Over the cap it is not honoured (nothing is hidden by it).
    public static let ignoreFile = FileCap(what: "an ignore file", bytes: 1 << 20)
    /// `/proc/<pid>/stat` (Linux): one line describing a process.
    public static let processStatus = FileCap(what: "a process status", bytes: 4 << 10)
}

/// Reads a file of a `FileCap` kind whole, never more than its cap.
public enum BoundedFile {
    /// What reading gave.
    public enum Content: Equatable, Sendable {
        /// No such file (or a path through something that is not a folder).
        case absent
        case bytes([UInt8])
        /// Over its cap, or not a regular file (a folder, FIFO, socket, device): why, as a
        /// warning to log; the caller treats the file as absent.
        case ignored(String)
        /// Opening or reading failed otherwise (errno).
        case failed(Int32)
    }

    /// The content of `path` (relative to `folder` when given), opened without waiting on what
    /// it turns out to be (a FIFO is refused, not waited on) and, with `followLinks: false`,
    /// without following a link at its last component.
    public static func read(_ path: String, _ cap: FileCap, in folder: Int32 = AT_FDCWD, followLinks: Bool = true) -> Content {
        var type: UInt32 = 0
        let fd = wb_open_regular(folder, path, O_RDONLY | (followLinks ? 0 : O_NOFOLLOW), 0, 0, &type)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT || e == ENOTDIR { return .absent }
            if type != 0 || e == EISDIR || e == ELOOP {
                return .ignored("\(cap.what) \(path) is not a regular file; ignored")
            }
            return .failed(e)
        }
        defer { close(fd) }
        return read(fd: fd, path: path, cap)
    }

    /// The content of an open file from its current position, at most `cap.bytes`.
    public static func read(fd: Int32, path: String, _ cap: FileCap) -> Content {
        if let bytes = FileIO.readToEnd(fd, limit: cap.bytes) { return .bytes(bytes) }
        let e = errno
        guard e == EFBIG else { return .failed(e) }
        return .ignored("\(cap.what) \(path) is larger than \(cap.bytes) bytes (the most accepted); ignored")
    }
}
