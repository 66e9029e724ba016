#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import Storage
import Testing
import Workspace

private func tempDir() -> String {
    var template = Array("/tmp/wb-storage-XXXXXX".utf8CString)
    return String(cString: mkdtemp(&template)!)
}

@Suite("Storage")
struct StorageTests {
    @Test("the storage choice is persisted per machine and survives a restart")
    func choicePersists() throws {
        let dir = tempDir()
        mkdir(dir + "/cloud", 0o755)
        let first = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        #expect(first.location == .local)
        #expect(first.info(files: 0, bytes: 0, provider: nil).needsChoice)
        try first.choose(.cloud)
        let second = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        #expect(second.location == .cloud)
        #expect(!second.info(files: 0, bytes: 0, provider: nil).needsChoice)
    }

    @Test("an oversized or damaged settings file (or migration journal) is ignored as absent, with a warning to drain")
    func oversizedSettingsAreIgnored() throws {
        let dir = tempDir()
        mkdir(dir + "/cloud", 0o755)
        let first = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        try first.choose(.cloud)
        #expect(first.drainWarnings().isEmpty)
        let settings = first.settingsFile
        #expect(truncate(settings, 64 << 30) == 0)  // the valid settings, then 64 GiB of zeros
        let second = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        #expect(second.location == .local && second.info(files: 0, bytes: 0, provider: nil).needsChoice)
        let warnings = second.drainWarnings()
        #expect(warnings.count == 1 && warnings[0].contains("larger than 1048576 bytes") && warnings[0].contains(settings))
        #expect(second.drainWarnings().isEmpty)
        #expect(!second.reloadChoice() && second.drainWarnings().count == 1)  // re-read: ignored again, said again
        // A caller that reports the file instead of starting without it is told why.
        #expect(throws: WorkspaceError.self) { try MachineSettings.loadIfPresent(configDirectory: dir + "/config", localRoot: second.localRoot) }

        let journal = MigrationJournal(file: MigrationJournal.file(configDirectory: dir + "/config", localRoot: second.localRoot))
        let fd = open(journal.file, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && ftruncate(fd, 1 << 40) == 0)
        close(fd)
        var said: [String] = []
        #expect(journal.load { said.append($0) }.isEmpty)
        #expect(said.count == 1 && said[0].contains("the migration journal"))

        #expect(truncate(settings, 0) == 0)  // not JSON at all
        let third = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        #expect(third.location == .local && third.drainWarnings().first?.contains("not valid JSON") == true)
        try third.choose(.cloud)  // the next choice replaces the ignored file
        let fourth = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        #expect(fourth.location == .cloud && fourth.drainWarnings().isEmpty)
    }

    @Test("choosing what is already chosen writes nothing and says so; a real change says it changed")
    func chooseAgain() throws {
        let dir = tempDir()
        mkdir(dir + "/cloud", 0o755)
        let m = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        #expect(try m.choose(.cloud))
        var before = stat()
        let settings = try #require(Self.onlyFile(in: dir + "/config"))
        #expect(stat(settings, &before) == 0)
        #expect(try !m.choose(.cloud))
        var after = stat()
        #expect(stat(settings, &after) == 0 && after.st_ino == before.st_ino)  // settings are saved by rename: not rewritten
        #expect(try m.choose(.decideLater))  // local, and ask again: a change
        #expect(try !m.choose(.decideLater))
    }

    @Test("a migration to the active root with nothing pending does nothing and reports alreadyActive")
    func migrateToActiveRoot() throws {
        let dir = tempDir()
        mkdir(dir + "/cloud", 0o755)
        let m = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/cloud", configDirectory: dir + "/config")
        let report = try Migration(manager: m, options: .init(to: .local)).run(isCancelled: { false }) { _ in }
        #expect(report.alreadyActive && !report.switched && report.copied == 0 && report.verified == 0)
        #expect(m.location == .local)
        #expect(m.info(files: 0, bytes: 0, provider: nil).pendingMigration == nil)
    }

    /// The one regular file somewhere under `dir` (the machine settings), by path.
    static func onlyFile(in dir: String) -> String? {
        guard let d = opendir(dir) else { return nil }
        defer { closedir(d) }
        var found: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            var st = stat()
            let path = dir + "/" + name
            guard stat(path, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR { if let inner = onlyFile(in: path) { found.append(inner) } } else { found.append(path) }
        }
        return found.count == 1 ? found[0] : nil
    }

    @Test("choosing a missing cloud root fails with CloudUnavailable and changes nothing")
    func missingCloud() throws {
        let dir = tempDir()
        let m = try StorageManager(localRoot: dir + "/local", cloudRoot: dir + "/nowhere", configDirectory: dir + "/config")
        #expect { try m.choose(.cloud) } throws: { ($0 as? WorkspaceError)?.code == .cloudUnavailable }
        #expect(m.location == .local)
        #expect(!m.isCloudAvailable)
    }

    @Test("usage follows changes applied path by path, without walking again")
    func usageTracking() throws {
        let dir = tempDir()
        let ws = try Workspace(rootPath: dir + "/ws", bootstrap: false)
        let tracker = UsageTracker(workspace: ws)
        #expect(tracker.totals().files == 0)
        _ = try ws.save(try WorkspacePath("a/b.txt"), contents: Array(repeating: 1, count: 100))
        tracker.apply(changedPaths: ["a"])
        #expect(tracker.totals() == (1, 100))
        try ws.delete(try WorkspacePath("a"), recursive: true)
        tracker.apply(changedPaths: ["a"])
        #expect(tracker.totals() == (0, 0))
    }

    @Test("keep-both copies get a free, labelled name")
    func keepBothNames() throws {
        let ws = try Workspace(rootPath: tempDir() + "/ws", bootstrap: false)
        _ = try ws.save(try WorkspacePath("n/x.md"), contents: [1])
        _ = try ws.save(try WorkspacePath("n/x (from local).md"), contents: [1])
        #expect(Migration.freeName(for: try WorkspacePath("n/x.md"), in: ws, from: "local").string == "n/x (from local 2).md")
    }
}
