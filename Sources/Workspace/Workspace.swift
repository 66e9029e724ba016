#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A workspace of files under one root: sandboxed, crash-safe, safe for several processes.
///
/// Every method is synchronous, may block on I/O, and is safe to call from any thread.
/// Ordering between calls is the caller's business (the server orders calls on one path);
/// between processes, writers to one folder are serialised with an advisory lock on it.
/// Knows nothing of JSON or JSON-RPC.
public final class Workspace: Sendable {
    public let root: SandboxedRoot

    /// The server's own folder at the root: hidden from listings and closed to clients.
    public static let privateFolder = ".workspace"

    /// Opens (creating if needed) the workspace at `rootPath`. On first use of a root the
    /// `template` is laid out; leftover temp files of interrupted saves are removed.
    public init(rootPath: String, bootstrap: Bool = true, template: WorkspaceTemplate = .default) throws(WorkspaceError) {
        root = try SandboxedRoot(path: rootPath, create: true)
        if bootstrap { try Template.layOut(in: self, template: template) }
    }

    /// The root's absolute path.
    public var rootPath: String { root.absolutePath }

    /// Refuses paths that clients may not touch: the private folder and temp-file names. The
    /// reserved folders match in every spelling a volume could fold to them (`ReservedNames`).
    func checkClientPath(_ path: WorkspacePath) throws(WorkspaceError) {
        if let first = path.components.first, ReservedNames.isReserved(first) {
            throw WorkspaceError(.permissionDenied, "'\(path)' is reserved for the server", path: path.string)
        }
        if TempName.isTemp(path.name) {
            throw WorkspaceError(.invalidPath, "'\(path.name)' is a name reserved for the server's temp files",
                                 path: path.string)
        }
    }

    /// Whether a change at this relative path is the server's own business (its private folder,
    /// its temp files) and must never be shown to clients.
    public static func isServerPrivate(relativePath: String) -> Bool {
        let first = relativePath.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? relativePath
        if ReservedNames.isReserved(first) { return true }
        let name = relativePath.split(separator: "/").last.map(String.init) ?? relativePath
        return TempName.isTemp(name)
    }

    /// The server's own top-level folders (private data, migration staging) in any spelling a
    /// volume could fold to them: never entered by listings, searches or walks.
    static func isServerFolder(_ path: WorkspacePath) -> Bool {
        path.components.count == 1 && ReservedNames.isReserved(path.components[0])
    }


    /// Whether a sync engine left conflict copies of `name` in this folder (a scan of names only).
    func hasConflictCopies(_ name: String, in dir: FileDescriptor, at path: WorkspacePath) -> Bool {
        guard let names = try? DirectoryReader.names(dir, path: path) else { return false }
        return names.contains { n in
            if case .conflictCopy(_, let original, _) = SyncArtefacts.classify(n) { return original == name }
            return false
        }
    }

    public func status(_ path: WorkspacePath) throws(WorkspaceError) -> FileStatus {
        if path.isRoot {
            let d = try root.openDirectory(.root)
            return FileStatus(path: path, stat: try Sys.fstat(d.raw, path: ""))
        }
        let parent = try root.openDirectory(path.parent)
        guard let st = Sys.lstat(parent.raw, path.name) else {
            let e = errno
            if e == ENOENT, let stub = placeholderName(for: path),
                let entry = try DirectoryView.entries(parent, path: path.parent, includeHidden: true).first(where: { $0.stored == stub })
            {
                return entry.status(at: path)
            }
            throw .errno(e, "inspect", path: path.string)
        }
        var status = FileStatus(path: path, stat: st)
        if DirectoryView.isDataless(st) { status.state = "notDownloaded" }
        return status
    }
}

/// Names of the server's temp files: `.syncthing.<name>.wb-<8 hex pid><8 hex random>.tmp`.
/// Syncthing never propagates `.syncthing.*.tmp`; the other engines get ignore rules from the
/// storage layer. The writer's pid lets a later server remove leftovers of dead writers only.
enum TempName {
    static func make(for name: String) -> String {
        let pid = UInt64(UInt32(truncatingIfNeeded: getpid()))
        let r = pid << 32 | UInt64(UInt32.random(in: .min ... .max))
        let hex = String(r, radix: 16)
        let suffix = ".wb-" + String(repeating: "0", count: 16 - hex.count) + hex + ".tmp"
        let budget = 255 - ".syncthing.".utf8.count - suffix.utf8.count
        var base = name
        while base.utf8.count > budget { base.removeLast() }
        return ".syncthing." + base + suffix
    }

    /// The pid of the process that wrote a temp file, when the name is one of ours.
    static func writer(_ name: String) -> pid_t? {
        guard isTemp(name) else { return nil }
        let u = Array(name.utf8)
        let hex = String(decoding: u[(u.count - 20)..<(u.count - 12)], as: UTF8.self)
        return UInt32(hex, radix: 16).map { pid_t(bitPattern: $0) }
    }

    static func isTemp(_ name: String) -> Bool {
        guard name.hasPrefix(".syncthing."), name.hasSuffix(".tmp") else { return false }
        let u = Array(name.utf8)
        guard u.count >= 11 + 24 else { return false }
        let tail = u[(u.count - 24)...]  // ".wb-" + 16 hex + ".tmp"
        guard Array(tail.prefix(4)) == Array(".wb-".utf8) else { return false }
        return tail.dropFirst(4).prefix(16).allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
