#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import SystemSupport
import Workspace

/// Moves or copies the workspace between the local and the cloud root, verified and resumable.
///
/// Order of work: a manifest of the source (path, size) → a free-space check → for each file:
/// copy into a staging folder inside the target (hashed on the way), flush, re-hash, rename into
/// place, record it in the journal (flushed), and in `move` mode delete the source file only
/// then → switch the storage choice at the very end, in the same atomic settings write that
/// clears the pending migration. Killed at any moment, the next run resumes from the journal
/// without copying a verified file again, and the choice switches exactly once.
public struct Migration: Sendable {
    public enum Mode: String, Sendable, CaseIterable { case copy, move }
    public enum OnConflict: String, Sendable, CaseIterable { case keepBoth, skip, overwrite, fail }

    public struct Options: Sendable {
        public var to: StorageLocation
        public var mode: Mode = .copy
        public var onConflict: OnConflict = .keepBoth
        public var dryRun = false
        public init(to: StorageLocation) { self.to = to }
    }

    public struct Progress: Sendable {
        public var filesDone: Int
        public var filesTotal: Int
        public var bytesDone: Int64
        public var bytesTotal: Int64
        public var currentPath: String
    }

    public struct Report: Sendable, Equatable {
        public var copied = 0
        public var skipped = 0
        public var conflicts = 0
        public var bytes: Int64 = 0
        public var verified = 0
        public var durationMs = 0
        public var switched = false
        public var resumed = false
        /// `to` already was the active root and no migration was pending: nothing was done
        /// (what a client's retry of a finished migration gets).
        public var alreadyActive = false
        /// Placeholders in the source whose content is not on this machine: not migrated.
        public var notDownloaded: [String] = []
        /// Links, FIFOs, sockets and devices in the source: not migrated, and in move mode left
        /// where they were (never deleted), each reported.
        public var skippedEntries: [SkippedEntry] = []
        /// Keep-both conflicts: where each source file was placed instead.
        public var renamed: [(from: String, to: String)] = []

        public static func == (a: Report, b: Report) -> Bool {
            a.copied == b.copied && a.skipped == b.skipped && a.conflicts == b.conflicts && a.bytes == b.bytes
                && a.verified == b.verified && a.switched == b.switched && a.notDownloaded == b.notDownloaded
                && a.alreadyActive == b.alreadyActive
                && a.skippedEntries == b.skippedEntries
        }
    }

    let manager: StorageManager
    let options: Options

    public init(manager: StorageManager, options: Options) {
        self.manager = manager
        self.options = options
    }

    /// Files are copied by several workers at once (fsync latency overlaps); each file is still
    /// staged, flushed, verified, placed and journaled before its source may be removed.
    public static let workers = 4

    public func run(isCancelled: @escaping @Sendable () -> Bool,
                    progress: @escaping @Sendable (Progress) -> Void) throws(WorkspaceError) -> Report {
        let started = MonotonicClock.nanos()
        let from: StorageLocation = options.to == .local ? .cloud : .local
        let pending = manager.settings.pendingMigration.flatMap(PendingMigration.init)
        if manager.location == options.to && pending == nil {
            // A retry of a migration that finished (its answer lost, or the client crashed):
            // nothing to copy, nothing to switch. Success, and the report says why.
            var report = Report()
            report.alreadyActive = true
            report.durationMs = Int((MonotonicClock.nanos() - started) / 1_000_000)
            return report
        }
        let source = try manager.workspace(from)
        let target = try manager.workspace(options.to)

        // The manifest.
        var files: [(path: WorkspacePath, size: Int64)] = []
        var report = Report()
        var skippedEntries: [SkippedEntry] = []
        try source.forEachFile(skipped: { skippedEntries.append($0) }) { p, n in
            switch SyncArtefacts.classify(p.name) {
            case .none, .conflictCopy: files.append((p, n))
            case .placeholder(_, let real): report.notDownloaded.append(p.parent.appending(real).string)
            case .hidden: break
            }
        }
        report.skippedEntries = skippedEntries
        let resuming = pending.map { $0.to == options.to && $0.mode == options.mode.rawValue } ?? false
        var journal = MigrationJournal(file: MigrationJournal.file(configDirectory: manager.configDirectory, localRoot: manager.localRoot))
        let done = resuming ? journal.load(warn: manager.warn) : [:]
        report.resumed = resuming && !done.isEmpty

        // Conflicts and space, decided before anything is written.
        var conflicts: Set<WorkspacePath> = []
        var needed: Int64 = 0
        for f in files where done[f.path.string] == nil {
            if let existing = try? target.status(f.path) {
                if Self.same(f.path, source, target, sizes: (f.size, existing.size)) || target.isPristineTemplate(f.path) {
                    needed += f.size
                } else {
                    conflicts.insert(f.path)
                }
            } else {
                needed += f.size
            }
        }
        report.conflicts = conflicts.count
        if options.onConflict == .fail, let first = conflicts.min() {
            throw WorkspaceError(.alreadyExists, "\(conflicts.count) files already exist in the target (onConflict: fail)",
                                 path: first.string, details: ["conflicts": .int(Int64(conflicts.count))])
        }
        let free = Self.freeBytes(target.rootPath)
        if needed > free - (16 << 20) {
            throw WorkspaceError(.insufficientSpace, "the target needs \(needed) bytes and has \(free) free",
                                 path: target.rootPath, details: ["needed": .int(needed), "free": .int(free)])
        }
        if options.dryRun {
            report.copied = files.count - done.count - conflicts.count
            report.bytes = needed
            report.durationMs = Int((MonotonicClock.nanos() - started) / 1_000_000)
            return report
        }

        try journal.start(fresh: !resuming)
        defer { journal.finish(remove: report.switched) }
        if !resuming {
            try manager.update { s in
                s.pendingMigration = ["to": .string(options.to.rawValue), "mode": .string(options.mode.rawValue),
                                      "startedAt": .string(Timestamp.iso8601(nanos: WallClock.nanos())),
                                      "filesTotal": .int(Int64(files.count)), "filesDone": 0]
            }
        }
        IgnoreRules.protectStaging(in: target)

        let bytesTotal = files.reduce(Int64(0)) { $0 + $1.size }
        let loop = MigrationLoop(report: report, journal: journal)
        let manifest = files
        let verifiedBefore = done
        let next = Atomic<Int>(0)
        let mode = options.mode
        Parallel.run(min(Self.workers, max(1, manifest.count))) { [self] worker in
            while loop.failure == nil {
                if isCancelled() {
                    loop.fail(WorkspaceError(.cancelled, "migration cancelled", path: ""))
                    return
                }
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < manifest.count else { return }
                let f = manifest[i]
                do throws(WorkspaceError) {
                    if let entry = verifiedBefore[f.path.string] {
                        // Verified before the interruption; in move mode the source may still need removing.
                        if mode == .move && entry.outcome != "skipped" { try? source.delete(f.path, recursive: false) }
                        loop.finished(f.size, verified: entry.outcome == "copied")
                    } else {
                        var delta = Report()
                        let entry = try migrateOne(f.path, from: source, to: target, isCancelled: isCancelled, report: &delta)
                        try loop.record(entry)
                        if mode == .move && entry.outcome != "skipped" { try source.delete(f.path, recursive: false) }
                        loop.merge(delta, bytes: f.size)
                    }
                } catch {
                    loop.fail(error)
                    return
                }
                if worker == 0 {
                    let (n, b) = loop.progress
                    progress(Progress(filesDone: n, filesTotal: manifest.count, bytesDone: b, bytesTotal: bytesTotal,
                                      currentPath: f.path.string))
                }
            }
        }
        if let failure = loop.failure { throw failure }
        report = loop.report
        // Folders travel too (empty ones included), so the layout is the same on the other side.
        for folder in try source.folders() where (try? target.status(folder)) == nil {
            _ = try target.createFolder(folder)
        }
        if options.mode == .move { Self.removeEmptyFolders(source) }
        target.removeStaging()
        // Synced settings live in the private folder, which the walk skips: merge them into the
        // target's (per key, the later write wins) before switching; idempotent, so a resumed run redoes it.
        do throws(SettingsError) {
            try SettingsMigration.carry(from: source.rootPath, to: target.rootPath, configDirectory: manager.configDirectory)
        } catch {
            throw WorkspaceError(.ioError, "cannot carry the synced settings: \(error.message)", path: target.rootPath)
        }
        // Agent sessions and the offline queue too: whole folders, the fuller journal kept.
        let agentData: AgentDataMigration.Outcome
        do throws(MigrationCopyError) {
            agentData = try AgentDataMigration.carry(from: source.rootPath, to: target.rootPath)
        } catch {
            throw WorkspaceError.errno(error.errno, "carry the agent sessions into", path: "")
        }
        try manager.update { s in
            s.location = options.to
            s.needsChoice = false
            s.pendingMigration = nil
        }
        report.switched = true
        if options.mode == .move {
            SettingsStore(rootPath: source.rootPath, device: "").removeAll()
            AgentDataMigration.removeCarried(agentData, from: source.rootPath)
        }
        report.durationMs = Int((MonotonicClock.nanos() - started) / 1_000_000)
        return report
    }

    private func migrateOne(_ path: WorkspacePath, from source: Workspace, to target: Workspace,
                            isCancelled: () -> Bool, report: inout Report) throws(WorkspaceError) -> MigrationJournal.Entry
    {
        var destination = path
        var overwrite = false
        if let existing = try? target.status(path) {
            if Self.same(path, source, target, sizes: ((try? source.status(path).size) ?? -1, existing.size)) {
                report.skipped += 1
                return .init(path: path.string, placedAs: nil, sha256: nil, outcome: "identical")
            }
            if target.isPristineTemplate(path) {
                overwrite = true
            } else { switch options.onConflict {
            case .skip:
                report.skipped += 1
                return .init(path: path.string, placedAs: nil, sha256: nil, outcome: "skipped")
            case .overwrite: overwrite = true
            case .keepBoth, .fail: destination = Self.freeName(for: path, in: target, from: options.to == .local ? "cloud" : "local")
            } }
        }
        let received = try target.receive(path, from: source, to: destination, overwrite: overwrite, isCancelled: isCancelled)
        report.copied += 1
        report.verified += 1
        report.bytes += received.bytes
        if destination != path { report.renamed.append((path.string, destination.string)) }
        return .init(path: path.string, placedAs: destination == path ? nil : destination.string, sha256: received.sha256,
                     outcome: "copied")
    }

    /// Whether a file has the same content in both workspaces (sizes first, then SHA-256).
    static func same(_ path: WorkspacePath, _ a: Workspace, _ b: Workspace, sizes: (Int64, Int64)) -> Bool {
        guard sizes.0 == sizes.1 else { return false }
        guard let x = try? a.sha256(path), let y = try? b.sha256(path) else { return false }
        return x == y
    }

    /// `name (from local).ext`, numbered if that exists too.
    static func freeName(for path: WorkspacePath, in ws: Workspace, from: String) -> WorkspacePath {
        path.labelledSibling("from \(from)") { (try? ws.status($0)) == nil }
    }

    static func freeBytes(_ path: String) -> Int64 {
        var vfs = statvfs()
        return statvfs(path, &vfs) == 0 ? Int64(vfs.f_bavail) * Int64(vfs.f_frsize) : 0
    }

    /// After a move, the source's folders that are now empty are removed (deepest first).
    static func removeEmptyFolders(_ ws: Workspace) {
        let folders = (try? ws.folders()) ?? []
        for f in folders.sorted(by: { $0.components.count > $1.components.count }) {
            try? ws.delete(f, recursive: false)
        }
    }
}

/// The shared state of a migration's workers: the report, the journal (one writer at a time;
/// each worker flushes after its own record), and the first failure.
final class MigrationLoop: Sendable {
    private struct State { var report: Migration.Report; var files = 0; var bytes: Int64 = 0; var failure: WorkspaceError? }
    private let state: Mutex<State>
    private let journalLock = Mutex(())
    private let journal: MigrationJournal

    init(report: Migration.Report, journal: MigrationJournal) {
        state = Mutex(State(report: report))
        self.journal = journal
    }

    var failure: WorkspaceError? { state.withLock { $0.failure } }
    var report: Migration.Report { state.withLock { $0.report } }
    var progress: (Int, Int64) { state.withLock { ($0.files, $0.bytes) } }

    func fail(_ e: WorkspaceError) { state.withLock { if $0.failure == nil { $0.failure = e } } }

    func record(_ e: MigrationJournal.Entry) throws(WorkspaceError) {
        try journalLock.withLock { _ throws(WorkspaceError) in try journal.append(e) }
        try journal.flush()
    }

    func finished(_ size: Int64, verified: Bool) {
        state.withLock { s in
            s.files += 1
            s.bytes += size
            if verified { s.report.verified += 1 }
        }
    }

    func merge(_ d: Migration.Report, bytes: Int64) {
        state.withLock { s in
            s.files += 1
            s.bytes += bytes
            s.report.copied += d.copied
            s.report.skipped += d.skipped
            s.report.verified += d.verified
            s.report.bytes += d.bytes
            s.report.renamed += d.renamed
        }
    }
}
