#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import Workspace
import SystemSupport

/// Agent sessions (`.workspace/sessions/<id>/`) and the offline queue (`.workspace/queue/`) travel
/// with the workspace when it migrates, as whole folders, before the storage choice switches.
///
/// Guarantees:
/// - A folder appears in the target whole or not at all: its files are copied into a staging
///   folder, each flushed, then the staging folder is renamed into place and its parent flushed.
/// - Nothing acknowledged is dropped: when the target already has the folder, the journal that
///   holds more is kept. A target journal that is a byte prefix of the source's is replaced (the
///   source has everything it has, and more); a source journal that is a prefix of the target's
///   (or equal) leaves the target as it is; two journals that diverged (the same session changed
///   in both roots) keep the target's, and the source's stays where it is (never removed, even in
///   move mode) and is reported.
/// - Symbolic links are neither followed nor copied. Lease files travel with their session, so
///   this device still owns the sessions it was running.
/// - Idempotent: a resumed migration runs it again with the same result.
///
/// The caller holds the workspace still (`migrate` is a barrier); another process writing a
/// session of the source meanwhile could add records after the copy, as with any file.
public enum AgentDataMigration {
    public struct Outcome: Sendable, Equatable {
        /// Folders (relative to `.workspace/`) now in the target because of this run.
        public var carried: [String] = []
        /// Folders whose journals diverged between the roots: the target's kept, the source's left.
        public var diverged: [String] = []
    }

    static let journal = "journal.jsonl"

    /// Copies the sessions and the queue of `source` (a root path) into `target`.
    public static func carry(from source: String, to target: String) throws(MigrationCopyError) -> Outcome {
        var outcome = Outcome()
        var units: [String] = []
        for name in entries(source + "/.workspace/sessions") where !name.hasPrefix(".") {
            units.append("sessions/" + name)
        }
        if isDirectory(source + "/.workspace/queue") { units.append("queue") }
        for unit in units {
            let from = source + "/.workspace/" + unit
            let to = target + "/.workspace/" + unit
            guard isDirectory(from) else { continue }
            let ours = readAll(from + "/" + journal) ?? []
            if isDirectory(to) {
                let theirs = readAll(to + "/" + journal) ?? []
                if ours.count <= theirs.count && theirs.starts(with: ours) { continue }  // the target has it all
                if !(theirs.count < ours.count && ours.starts(with: theirs)) {
                    outcome.diverged.append(unit)
                    continue
                }
            }
            try place(from: from, to: to)
            outcome.carried.append(unit)
        }
        return outcome
    }

    /// After the switch, in move mode: removes from the source what now lives in the target.
    public static func removeCarried(_ outcome: Outcome, from source: String) {
        for unit in outcome.carried { removeFolder(source + "/.workspace/" + unit) }
    }

    /// Copies `from` into a staging folder beside `to`, then puts it in place of `to`.
    private static func place(from: String, to: String) throws(MigrationCopyError) {
        guard let slash = to.lastIndex(of: "/") else { throw MigrationCopyError("not an absolute path: \(to)", EINVAL) }
        let parent = String(to[..<slash])
        let name = String(to[to.index(after: slash)...])
        let staging = parent + "/." + name + ".wb-incoming"
        let aside = parent + "/." + name + ".wb-replaced"
        mkdirs(parent)
        removeFolder(staging)
        guard mkdir(staging, 0o700) == 0 else { throw .init("cannot create \(staging)", errno) }
        for file in entries(from) {
            var st = stat()
            guard lstat(from + "/" + file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            try copyFile(from + "/" + file, staging + "/" + file)
        }
        try flush(staging)
        removeFolder(aside)
        if isDirectory(to) {
            guard rename(to, aside) == 0 else { throw .init("cannot set \(to) aside", errno) }
        }
        guard rename(staging, to) == 0 else { throw .init("cannot place \(to)", errno) }
        try flush(parent)
        removeFolder(aside)
    }

    private static func copyFile(_ from: String, _ to: String) throws(MigrationCopyError) {
        let src = Sys.openRegularHost(from, flags: O_RDONLY | O_NOFOLLOW)
        guard src >= 0 else { throw .init("cannot open \(from)", errno) }
        defer { close(src) }
        let dst = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard dst >= 0 else { throw .init("cannot create \(to)", errno) }
        defer { close(dst) }
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buf.withUnsafeMutableBytes { FileIO.read(src, into: $0) }
            guard n >= 0 else { throw .init("cannot read \(from)", errno) }
            if n == 0 { break }
            guard buf.withUnsafeBytes({ FileIO.writeAll(dst, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else {
                throw .init("cannot write \(to)", errno)
            }
        }
        guard wb_full_fsync(dst) == 0 else { throw .init("cannot flush \(to)", errno) }
    }

    private static func flush(_ dir: String) throws(MigrationCopyError) {
        guard FileIO.syncFolder(dir) else { throw .init("cannot flush \(dir)", errno) }
    }

    private static func entries(_ dir: String) -> [String] {
        (FileIO.names(inFolder: dir) ?? []).sorted()
    }

    private static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    private static func readAll(_ path: String) -> [UInt8]? {
        let fd = Sys.openRegularHost(path, flags: O_RDONLY | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return FileIO.readToEnd(fd)
    }

    private static func mkdirs(_ path: String) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            mkdir(prefix, 0o755)
        }
    }

    /// Removes a folder of plain files (what this type writes); links inside are removed, not followed.
    private static func removeFolder(_ path: String) {
        guard isDirectory(path) else { return }
        for name in entries(path) {
            let p = path + "/" + name
            if isDirectory(p) { removeFolder(p) } else { unlink(p) }
        }
        rmdir(path)
    }
}

/// A failed system call while carrying agent data, with its errno.
public struct MigrationCopyError: Error, Sendable {
    public var message: String
    public var errno: Int32
    init(_ message: String, _ code: Int32) {
        self.message = message
        self.errno = code
    }
}
