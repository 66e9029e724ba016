#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    /// Calls `body` with every regular file under `path` and its size, depth first, never
    /// following links, skipping the server's private folders, its temp files, and sync engines'
    /// internal files (`.stfolder`, `.stignore`, engine temp files…). Placeholders and conflict
    /// copies are included under their names on disk, names that are not UTF-8 under their
    /// escaped texts. Links, FIFOs, sockets and devices are not files to carry: each is passed to
    /// `skipped` instead, and so is a folder that cannot be read (or lies deeper than
    /// `walkDepth`) and an entry only spelled like a reserved folder, so a caller that moves what
    /// it is given knows everything it leaves behind.
    public func forEachFile(under path: WorkspacePath = .root, skipped: (SkippedEntry) -> Void = { _ in },
                            _ body: (WorkspacePath, Int64) -> Void) throws(WorkspaceError) {
        let dir = try root.openDirectory(path)
        walkFiles(dir, path: path, depth: 0, skipped: skipped, body)
    }

    private func walkFiles(_ dir: FileDescriptor, path: WorkspacePath, depth: Int, skipped: (SkippedEntry) -> Void,
                           _ body: (WorkspacePath, Int64) -> Void) {
        guard depth < Self.walkDepth else { return skipped(SkippedEntry(path: path, type: .directory, reason: .tooLarge)) }
        let names: [String]
        do { names = try DirectoryReader.names(dir, path: path) } catch {
            return skipped(SkippedEntry(path: path, type: .directory, reason: error.code))
        }
        for name in names where !TempName.isTemp(name) {
            if case .hidden = SyncArtefacts.classify(name) { continue }
            let child = path.appending(name)
            if Workspace.isServerFolder(child) {
                // Only spelled like the server's own (another entry on a volume that keeps case
                // apart, not what the reserved names resolve to): closed to clients, so reported,
                // never carried or dropped silently.
                if let st = Sys.lstat(dir.raw, name), !ReservedNames.folders.contains(where: { folder in
                    Sys.lstat(dir.raw, folder).map { $0.st_ino == st.st_ino && $0.st_dev == st.st_dev } ?? false
                }) {
                    skipped(SkippedEntry(path: child, type: EntryType(mode: st.st_mode), reason: .permissionDenied))
                }
                continue
            }
            guard let st = Sys.lstat(dir.raw, name) else { continue }
            if st.isRegular {
                body(child, Int64(st.st_size))
            } else if st.isDirectory {
                let sub = openat(dir.raw, name.onDisk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard sub >= 0 else {
                    // Gone since it was listed: nothing left behind. Unreadable: reported.
                    if errno != ENOENT {
                        skipped(SkippedEntry(path: child, type: .directory, reason: WorkspaceError.errno(errno, "list", path: "").code))
                    }
                    continue
                }
                walkFiles(FileDescriptor(sub), path: child, depth: depth + 1, skipped: skipped, body)
            } else {
                skipped(SkippedEntry(path: child, type: EntryType(mode: st.st_mode)))
            }
        }
    }
}

extension Workspace {
    /// How deep walks go below their start.
    static let walkDepth = 256

    /// Every folder under `path` (not following links, skipping the server's and engines' own), parents first.
    public func folders(under path: WorkspacePath = .root) throws(WorkspaceError) -> [WorkspacePath] {
        var out: [WorkspacePath] = []
        try collectFolders(try root.openDirectory(path), path: path, depth: 0, into: &out)
        return out
    }

    private func collectFolders(_ dir: FileDescriptor, path: WorkspacePath, depth: Int, into out: inout [WorkspacePath]) throws(WorkspaceError) {
        guard depth < 256 else { return }
        for name in try DirectoryReader.names(dir, path: path) {
            if case .hidden = SyncArtefacts.classify(name) { continue }
            let child = path.appending(name)
            guard !Workspace.isServerFolder(child), let st = Sys.lstat(dir.raw, name), st.isDirectory else { continue }
            out.append(child)
            let sub = openat(dir.raw, name.onDisk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard sub >= 0 else { continue }
            try collectFolders(FileDescriptor(sub), path: child, depth: depth + 1, into: &out)
        }
    }
}
