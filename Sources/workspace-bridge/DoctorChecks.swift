#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BridgeServer
import JSON
import SessionHub
import Storage
import Workspace

/// What `workspace-bridge doctor` checks, for the configuration `serve` would run with: the
/// jansson library, the config folder, the local and cloud roots (with the sync engine keeping
/// the cloud root), their permissions, and the storage choice saved for the local root.
/// Read-only: nothing is created or changed, so it can run before the first start.
struct DoctorChecks {
    let configuration: ServerConfiguration
    /// The session hub to check (`--hub`, `WORKSPACE_BRIDGE_HUB`), if any.
    var hub: HubAddress? = nil

    func run() -> [DoctorFinding] {
        var findings = [jansson()]
        let config = configFolder(&findings)
        let local = localRoot(&findings)
        let cloudAvailable = cloudRoot(&findings)
        if let config, let local { storageChoice(&findings, config: config, local: local, cloudAvailable: cloudAvailable) }
        findings.append(hubFinding())
        return findings
    }

    private func jansson() -> DoctorFinding {
        let (running, built) = (JanssonVersion.running, JanssonVersion.builtAgainst)
        guard !JanssonVersion.runningIsOlder else {
            return .problem("jansson", "libjansson \(running) is older than the \(built) this binary was built against",
                            fix: "install jansson \(built) or newer (Debian: apt-get install libjansson4; macOS: brew upgrade jansson)")
        }
        return .ok("jansson", "libjansson \(running) (built against \(built))")
    }

    /// The config folder's finding; its path when it exists or will be created.
    private func configFolder(_ findings: inout [DoctorFinding]) -> String? {
        guard let path = try? configuration.resolvedConfigDirectory() else {
            findings.append(.problem("config folder", "neither --config-dir, XDG_CONFIG_HOME nor HOME says where it is",
                                     fix: "set HOME, or pass --config-dir DIR"))
            return nil
        }
        let finding = Self.folder("config folder", path, option: "--config-dir", isDefault: configuration.configDirectory == nil)
        findings.append(finding)
        return finding.severity == .problem ? nil : path
    }

    /// The local root's finding; its resolved path when it exists (the settings are named after it).
    private func localRoot(_ findings: inout [DoctorFinding]) -> String? {
        let given = configuration.localRoot
        guard let path = given ?? (try? configuration.defaultLocalRoot()) else {
            findings.append(.problem("local root", "neither --local-root, XDG_DATA_HOME nor HOME says where it is",
                                     fix: "set HOME, or pass --local-root DIR"))
            return nil
        }
        let finding = Self.folder("local root", path, option: "--local-root", isDefault: given == nil)
        findings.append(finding)
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard finding.severity != .problem, realpath(path, &buf) != nil else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The cloud root's findings (and the sync engine's); whether it is there now.
    private func cloudRoot(_ findings: inout [DoctorFinding]) -> Bool {
        guard let path = configuration.cloudRoot else {
            findings.append(.ok("cloud root", "none (no --cloud-root: files stay on this machine)"))
            return false
        }
        guard case .folder = Self.inspect(path) else {
            findings.append(.problem("cloud root", "\(path) is missing, not mounted or not a folder",
                                     fix: "mount it or start the sync engine that keeps it (the server never creates a cloud root), or leave out --cloud-root"))
            return false
        }
        let finding = Self.folder("cloud root", path, option: "--cloud-root")
        findings.append(finding)
        let engine = SyncArtefacts.detectEngine(rootPath: path)
        if engine == .folder {
            findings.append(.warning("sync engine", "none known keeps \(path) (no .stfolder, .dropbox, .unison, Nextcloud journal or rclone marker at its top)",
                                     fix: "share the folder with your sync engine (Syncthing adds .stfolder; for rclone bisync create .rclone-bisync), or ignore this if another tool syncs it"))
        } else {
            findings.append(.ok("sync engine", "\(engine.rawValue) keeps \(path)"))
        }
        return finding.severity != .problem
    }

    private func storageChoice(_ findings: inout [DoctorFinding], config: String, local: String, cloudAvailable: Bool) {
        let file = SavedChoice.file(configDirectory: config, localRoot: local)
        let saved: SavedChoice?
        do {
            saved = try SavedChoice.load(configDirectory: config, localRoot: local)
        } catch {
            findings.append(.problem("storage choice", "\(error.message)",
                                     fix: "remove \(file) (the storage choice is asked again at the next start)"))
            return
        }
        guard let saved else {
            findings.append(.ok("storage choice", "not made yet (the client is asked: getStorageInfo says needsChoice)"))
            return
        }
        if saved.location == .cloud && !cloudAvailable {
            findings.append(.problem("storage choice", "cloud (saved in \(file)), but the cloud root is not available: file requests answer CloudUnavailable",
                                     fix: "pass --cloud-root with the synced folder (mounted), or choose local storage again (chooseStorage)"))
        } else {
            findings.append(.ok("storage choice", "\(saved.location.rawValue)\(saved.needsChoice ? " for now (decide later)" : "") (saved in \(file))"))
        }
        if saved.migrating {
            findings.append(.warning("migration", "a migration was started and not finished",
                                     fix: "call migrate again with the same to and mode: it resumes without copying verified files again"))
        }
    }

    // MARK: Folders

    enum Entry: Equatable {
        case folder(mode: mode_t)
        case notFolder
        case missing
        case unreadable(Int32)
    }

    /// What is at `path`, links followed (as the server opens its roots).
    static func inspect(_ path: String) -> Entry {
        var st = stat()
        if stat(path, &st) != 0 { return errno == ENOENT ? .missing : .unreadable(errno) }
        return (st.st_mode & S_IFMT) == S_IFDIR ? .folder(mode: st.st_mode & 0o7777) : .notFolder
    }

    /// A folder the server writes in: there, writable and not writable by every user, or
    /// missing with a writable nearest existing ancestor (then the server creates it).
    static func folder(_ subject: String, _ path: String, option: String, isDefault: Bool = false) -> DoctorFinding {
        let which = isDefault ? "the default, " : ""
        switch inspect(path) {
        case .folder(let mode):
            let octal = "0" + String(mode, radix: 8)
            guard access(path, W_OK | X_OK) == 0 else {
                return .problem(subject, "\(path) is not writable by this user (mode \(octal))",
                                fix: "chmod u+rwx \(path) as its owner, or pass \(option) with a folder of yours")
            }
            if mode & S_IWOTH != 0 && mode & S_ISVTX == 0 {
                return .problem(subject, "\(path) is writable by every user of this machine (mode \(octal))",
                                fix: "chmod go-w \(path)")
            }
            return .ok(subject, "\(path) (\(which)writable, mode \(octal))")
        case .notFolder:
            return .problem(subject, "\(path) exists but is not a folder",
                            fix: "move it away (mv \(path) \(path).old), or pass \(option) with another folder")
        case .unreadable(let e):
            return .problem(subject, "cannot look at \(path): \(String(cString: strerror(e)))",
                            fix: "make its parent folders searchable (chmod u+x), or pass \(option) with another folder")
        case .missing:
            var ancestor = path
            repeat {
                ancestor = ancestor.lastIndex(of: "/").map { String(ancestor[..<$0]) } ?? "."
                if ancestor.isEmpty { ancestor = "/" }
            } while inspect(ancestor) == .missing && ancestor != "/" && ancestor != "."
            guard case .folder = inspect(ancestor), access(ancestor, W_OK | X_OK) == 0 else {
                return .problem(subject, "\(path) is missing and cannot be created (\(ancestor) is not a writable folder)",
                                fix: "mkdir -p \(path) as a user who may, or pass \(option) with a folder of yours")
            }
            return .ok(subject, "\(path) (\(which)missing: created at the first start)")
        }
    }
}
