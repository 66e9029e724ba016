#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    /// The on-disk placeholder standing for `path`, when its content is not downloaded.
    func placeholderName(for path: WorkspacePath) -> String? {
        guard !path.isRoot, let dir = try? root.openDirectory(path.parent) else { return nil }
        for candidate in [".\(path.name).icloud", "\(path.name).nextcloud", "\(path.name).owncloud"]
        where Sys.lstat(dir.raw, candidate) != nil {
            if case .placeholder(_, let real) = SyncArtefacts.classify(candidate), real == path.name { return candidate }
        }
        return nil
    }

    static func notDownloaded(_ path: WorkspacePath) -> WorkspaceError {
        WorkspaceError(.notDownloaded, "'\(path)' is in the cloud and not downloaded to this machine yet",
                       path: path.string, details: ["retryAfterMs": .int(1000)])
    }

    /// One original and its conflict copies.
    public struct Conflict: Sendable {
        public var path: WorkspacePath
        public var copies: [(status: FileStatus, device: String?)]
    }

    /// Every original under `path` that has conflict copies from a sync engine, in listing order.
    public func conflicts(under path: WorkspacePath = .root) throws(WorkspaceError) -> [Conflict] {
        if !path.isRoot { try checkClientPath(path) }
        var out: [Conflict] = []
        try collectConflicts(try root.openDirectory(path), path: path, depth: 0, into: &out)
        return out
    }

    private func collectConflicts(_ dir: FileDescriptor, path: WorkspacePath, depth: Int, into out: inout [Conflict]) throws(WorkspaceError) {
        guard depth < 256 else { return }
        var byOriginal: [String: [(FileStatus, String?)]] = [:]
        var folders: [String] = []
        for name in try DirectoryReader.names(dir, path: path) {
            guard let st = Sys.lstat(dir.raw, name) else { continue }
            switch SyncArtefacts.classify(name) {
            case .conflictCopy(_, let original, let device):
                byOriginal[original, default: []].append((FileStatus(path: path.appending(name), stat: st), device))
            case .none where st.isDirectory && !Workspace.isServerFolder(path.appending(name)):
                folders.append(name)
            default: break
            }
        }
        for (original, found) in byOriginal.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            let copies = found.sorted { $0.0.modifiedNanos > $1.0.modifiedNanos }
            out.append(Conflict(path: path.appending(original), copies: copies.map { ($0.0, $0.1) }))
        }
        for name in folders {
            let sub = openat(dir.raw, name.onDisk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard sub >= 0 else { continue }
            try collectConflicts(FileDescriptor(sub), path: path.appending(name), depth: depth + 1, into: &out)
        }
    }

    public enum Keep: String, Sendable, CaseIterable { case current, copy, both }

    /// Settles a conflict: `current` keeps the file and deletes the copies; `copy` puts the chosen
    /// copy (`copyPath`, required when there are several) in the file's place atomically; `both`
    /// turns the copies into ordinary files beside it; `merged` saves the given content crash-safely
    /// and deletes the copies. Returns the file's status afterwards.
    public func resolveConflict(_ path: WorkspacePath, keep: Keep, copyPath: WorkspacePath?, merged: [UInt8]?)
        throws(WorkspaceError) -> FileStatus
    {
        try checkClientPath(path)
        guard let conflict = try conflicts(under: path.parent).first(where: { $0.path == path }) else {
            throw WorkspaceError(.notFound, "'\(path)' has no conflict copies", path: path.string)
        }
        let copies = conflict.copies.map(\.status.path)
        var chosen = copyPath
        if let c = chosen, !copies.contains(c) {
            throw WorkspaceError(.notFound, "'\(c)' is not a conflict copy of '\(path)'", path: c.string)
        }
        if chosen == nil && keep == .copy {
            guard copies.count == 1 else {
                throw WorkspaceError(.invalidArgument, "'\(path)' has \(copies.count) conflict copies: say which with copyPath",
                                     path: path.string)
            }
            chosen = copies[0]
        }
        let dir = try root.openDirectory(path.parent)
        if let merged {
            _ = try save(path, contents: merged)
            for c in copies { unlinkat(dir.raw, c.name.onDisk, 0) }
        } else {
            switch keep {
            case .current:
                for c in copies { unlinkat(dir.raw, c.name.onDisk, 0) }
            case .copy:
                // Set above: the copy named, or the only one.
                guard let chosen else { throw WorkspaceError(.invalidArgument, "say which conflict copy to keep with copyPath", path: path.string) }
                Sys.lock(dir.raw)
                defer { Sys.unlock(dir.raw) }
                if renameat(dir.raw, chosen.name.onDisk, dir.raw, path.name.onDisk) != 0 { throw .errno(errno, "replace", path: path.string) }
                for c in copies where c != chosen { unlinkat(dir.raw, c.name.onDisk, 0) }
            case .both:
                for c in copies {
                    let target = Self.conflictKeepName(for: path, in: dir)
                    if renameat(dir.raw, c.name.onDisk, dir.raw, target.onDisk) != 0 { throw .errno(errno, "rename", path: c.string) }
                }
            }
        }
        try Sys.fsync(dir.raw, path: path.parent.string)
        return try status(path)
    }

    /// `name (conflict).ext`, numbered if taken: an ordinary name no engine treats as a copy.
    private static func conflictKeepName(for path: WorkspacePath, in dir: FileDescriptor) -> String {
        path.labelledSibling("conflict") { Sys.lstat(dir.raw, $0.name) == nil }.name
    }
}
