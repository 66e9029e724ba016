#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    /// Removes the temp files of interrupted saves whose writer process is gone (a save in
    /// progress in another live server is left alone). Walks the whole tree without following
    /// links; returns how many files were removed.
    @discardableResult
    public func removeLeftoverTempFiles() -> Int {
        guard let dir = try? root.openDirectory(.root) else { return 0 }
        return sweep(dir, path: .root, depth: 0)
    }

    /// Looks at names only: the directory entry's type says which are folders, so a tree of
    /// any size costs its `getdents` calls, not a `stat` per file (only a file system that
    /// reports no types, DT_UNKNOWN, gets an `lstat`).
    private func sweep(_ dir: FileDescriptor, path: WorkspacePath, depth: Int) -> Int {
        guard depth < 256, let names = try? DirectoryReader.typedNames(dir, path: path) else { return 0 }
        var removed = 0
        for (name, type) in names {
            if let pid = TempName.writer(name) {
                let alive = pid == getpid() || kill(pid, 0) == 0 || errno == EPERM
                if !alive, unlinkat(dir.raw, name.onDisk, 0) == 0 { removed += 1 }
                continue
            }
            switch type {
            case UInt8(DT_DIR): break
            case UInt8(DT_UNKNOWN): guard let st = Sys.lstat(dir.raw, name), st.isDirectory else { continue }
            default: continue
            }
            let sub = openat(dir.raw, name.onDisk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard sub >= 0 else { continue }
            removed += sweep(FileDescriptor(sub), path: path.appending(name), depth: depth + 1)
        }
        return removed
    }
}
