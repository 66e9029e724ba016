#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Workspace {
    /// Removes the temp files of interrupted saves whose writer process is gone (a save in
    /// progress in another live server is left alone). Walks the whole tree without following
    /// links; returns how many files were removed.
    @discardableResult
    public func removeLeftoverTempFiles() -> Int {
        guard let dir = try? root.openDirectory(.root) else { return 0 }
        return sweep(dir, path: .root, depth: 0)
    }

    private func sweep(_ dir: FileDescriptor, path: WorkspacePath, depth: Int) -> Int {
        guard depth < 256, let names = try? DirectoryReader.names(dir, path: path) else { return 0 }
        var removed = 0
        for name in names {
            if let pid = TempName.writer(name) {
                let alive = pid == getpid() || kill(pid, 0) == 0 || errno == EPERM
                if !alive, unlinkat(dir.raw, name, 0) == 0 { removed += 1 }
                continue
            }
            guard let st = Sys.lstat(dir.raw, name), st.isDirectory else { continue }
            let sub = openat(dir.raw, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard sub >= 0 else { continue }
            removed += sweep(FileDescriptor(sub), path: path.appending(name), depth: depth + 1)
        }
        return removed
    }
}
