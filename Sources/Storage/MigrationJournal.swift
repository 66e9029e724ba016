#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON
import SystemSupport
import Workspace

/// The per-machine record of a migration's finished files: one JSON line per file, appended
/// and flushed before the file counts as done, so a migration killed at any moment resumes
/// without copying a verified file again. A torn last line (the kill came mid-write) is ignored.
struct MigrationJournal {
    struct Entry: Equatable {
        var path: String
        /// Where the file was placed in the target (differs from `path` for keep-both copies).
        var placedAs: String?
        var sha256: String?
        var outcome: String  // "copied", "identical", "skipped"
    }

    let file: String
    private var fd: Int32 = -1

    init(file: String) { self.file = file }

    static func file(configDirectory: String, localRoot: String) -> String {
        MachineSettings.file(configDirectory: configDirectory, localRoot: localRoot)
            .replacingSuffix(".json", with: ".migration.jsonl")
    }

    /// The entries already recorded (nothing when there is no journal). A journal over
    /// `FileCap.migrationJournal` (or not a regular file, or unreadable) is ignored, `warn` told
    /// why: the migration then checks every file again, which costs time, never data.
    func load(warn: (String) -> Void) -> [String: Entry] {
        var out: [String: Entry] = [:]
        let bytes: [UInt8]
        switch BoundedFile.read(file, .migrationJournal) {
        case .absent: return out
        case .bytes(let b): bytes = b
        case .ignored(let why): warn(why); return out
        case .failed(let e): warn("the migration journal \(file) cannot be read: \(describeErrno(e)); ignored"); return out
        }
        for line in bytes.split(separator: 10) {
            guard let j = try? JSONCodec.decode(Array(line)), let path = j["path"]?.stringValue,
                let outcome = j["outcome"]?.stringValue
            else { continue }
            out[path] = Entry(path: path, placedAs: j["placedAs"]?.stringValue, sha256: j["sha256"]?.stringValue, outcome: outcome)
        }
        return out
    }

    mutating func start(fresh: Bool) throws(WorkspaceError) {
        guard let slash = file.lastIndex(of: "/") else { throw WorkspaceError(.invalidArgument, "not an absolute path", path: file) }
        try MachineSettings.makeDirectories(String(file[..<slash]))
        fd = Sys.openRegularHost(file, flags: O_WRONLY | O_CREAT | O_APPEND | (fresh ? O_TRUNC : 0), mode: 0o600)
        guard fd >= 0 else { throw WorkspaceError(.ioError, "cannot open the migration journal \(file): errno \(errno)") }
    }

    /// Appends one entry and flushes it before returning.
    func record(_ e: Entry) throws(WorkspaceError) {
        try append(e)
        try flush()
    }

    /// Appends one entry (not yet durable: call `flush`).
    func append(_ e: Entry) throws(WorkspaceError) {
        var o: JSONObject = ["path": .string(e.path), "outcome": .string(e.outcome)]
        if let p = e.placedAs { o["placedAs"] = .string(p) }
        if let s = e.sha256 { o["sha256"] = .string(s) }
        var line = JSONCodec.encode(.object(o))
        line.append(10)
        guard FileIO.writeAll(fd, line) else { throw WorkspaceError(.ioError, "cannot write the migration journal: errno \(errno)") }
    }

    /// Makes every appended entry durable.
    func flush() throws(WorkspaceError) {
        guard wb_full_fsync(fd) == 0 else { throw WorkspaceError(.ioError, "cannot flush the migration journal: errno \(errno)") }
    }

    mutating func finish(remove: Bool) {
        if fd >= 0 { close(fd); fd = -1 }
        if remove { unlink(file) }
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with other: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + other : self + other
    }
}
