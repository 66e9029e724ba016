#if os(Linux)
import CWorkspaceShims
import Glibc
import SystemSupport

/// Turning inotify records into changes, and keeping a watch on every directory.
extension InotifyBackend {
    func handle(_ event: InotifyEvent) {
        let mask = event.mask
        if mask & InotifyMask.overflow != 0 {
            rebuildNeeded = true
            return
        }
        if mask & InotifyMask.ignored != 0 {
            // The kernel dropped the watch (directory deleted, file system unmounted).
            let gone = table.removeSubtree(event.wd)
            unwatch(gone.filter { $0 != event.wd })
            if event.wd >= 0 && gone.first == event.wd && table.rootWd < 0 {
                callbacks.diagnose("file watcher: the root '\(rootPath)' is no longer watched")
            }
            return
        }
        guard let directory = table.path(of: event.wd) else { return }  // stale descriptor
        guard !event.name.isEmpty else { return }  // about the directory itself
        let path = directory.isEmpty ? event.name : directory + "/" + event.name
        if callbacks.ignore(path) { return }
        let isDirectory = mask & InotifyMask.isDir != 0
        if mask & (InotifyMask.delete | InotifyMask.movedFrom) != 0 {
            if isDirectory, let child = table.child(of: event.wd, named: event.name) {
                unwatch(table.removeSubtree(child))
            }
            if !isDirectory { table.forgetFile(event.name, in: event.wd) }
            pending.add(path, .deleted)
        } else if mask & (InotifyMask.create | InotifyMask.movedTo) != 0 {
            // A file renamed over an existing name (an atomic save: temp file, then rename) is
            // a change of that file; the kernel sends no delete for the name it replaced.
            let existed = !isDirectory && table.recordFile(event.name, in: event.wd)
            pending.add(path, existed && mask & InotifyMask.movedTo != 0 ? .changed : .created)
            // A directory created here already in the table was read after its watch was
            // added, so nothing in it can be missing; a moved-in one always needs a walk.
            if isDirectory && (mask & InotifyMask.movedTo != 0
                               || table.child(of: event.wd, named: event.name) == nil) {
                scan(path: path, parent: event.wd, name: event.name, report: true)
            }
        } else if mask & (InotifyMask.modify | InotifyMask.closeWrite | InotifyMask.attrib) != 0 {
            pending.add(path, .changed)
        }
    }

    /// After a queue overflow: drop every watch and walk the tree again (the client is told
    /// to rescan, so nothing found here is reported).
    func rebuild() {
        unwatch(table.removeAll())
        scan(path: "", parent: -1, name: "", report: false)
        overflowPending = true
    }

    func unwatch(_ wds: [Int32]) {
        for wd in wds { inotify_rm_watch(inotifyFd, wd) }
    }

    /// Watches the directory at `path` and every directory below it, depth first without
    /// recursion. Each directory is watched before it is read, so an entry is either seen by
    /// the read or reported by the watch (or both; the coalescer folds those). With `report`,
    /// every entry found is reported `created` (files can land in a new folder before its
    /// watch exists). Ignored entries are neither reported nor descended into; symbolic links
    /// are reported but never followed. Returns 0, or the errno that kept `path` itself
    /// from being watched.
    @discardableResult
    func scan(path: String, parent: Int32, name: String, report: Bool) -> Int32 {
        let rootFd = open(rootPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFd >= 0 else {
            let e = errno
            callbacks.diagnose("file watcher: cannot open the root '\(rootPath)' (errno \(e))")
            return e
        }
        defer { close(rootFd) }
        var stack: [(path: String, parent: Int32, name: String)] = [(path, parent, name)]
        var topError: Int32 = 0
        while let item = stack.popLast() {
            let isTop = item.parent == parent && item.path == path
            let fd = openDirectory(item.path, below: rootFd)
            guard fd >= 0 else {
                let e = errno
                if isTop { topError = e }
                if e != ENOENT && e != ENOTDIR && e != ELOOP && e != EXDEV {
                    callbacks.diagnose("file watcher: cannot open '\(item.path)' (errno \(e))")
                }
                continue
            }
            let wd = addWatch(fd: fd, path: item.path)
            guard wd >= 0 else {
                let e = errno
                close(fd)
                if e == ENOSPC {
                    reportWatchLimit()
                } else if e != ENOENT && e != ENOTDIR {
                    callbacks.diagnose("file watcher: cannot watch '\(item.path)' (errno \(e))")
                }
                if isTop { topError = e }
                continue
            }
            let dropped = table.insert(wd: wd, parent: item.parent, name: item.name)
            unwatch(dropped)
            guard !dropped.contains(wd), let dir = fdopendir(fd) else {
                close(fd)
                continue
            }
            readEntries(dir, of: item.path, wd: wd, report: report, into: &stack)
            closedir(dir)
        }
        return topError
    }

    private func readEntries(_ dir: OpaquePointer, of path: String, wd: Int32, report: Bool,
                             into stack: inout [(path: String, parent: Int32, name: String)]) {
        let fd = dirfd(dir)
        while let entry = readdir(dir) {
            let type = entry.pointee.d_type
            withUnsafePointer(to: &entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { cName in
                    if cName[0] == 0x2E && (cName[1] == 0 || (cName[1] == 0x2E && cName[2] == 0)) { return }
                    let name = EscapedName.text(cString: cName)
                    let childPath = path.isEmpty ? name : path + "/" + name
                    if callbacks.ignore(childPath) { return }
                    if report { pending.add(childPath, .created) }
                    var isDirectory = type == UInt8(DT_DIR)
                    if type == UInt8(DT_UNKNOWN) {
                        var st = stat()
                        isDirectory = fstatat(fd, cName, &st, AT_SYMLINK_NOFOLLOW) == 0
                            && st.st_mode & S_IFMT == S_IFDIR
                    }
                    if isDirectory { stack.append((childPath, wd, name)) } else { table.recordFile(name, in: wd) }
                }
            }
        }
    }

    /// Opens a directory below the root without following any symbolic link on the way
    /// (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; before Linux 5.6, `openat`
    /// with `O_NOFOLLOW`, which guards the last component only).
    private func openDirectory(_ path: String, below rootFd: Int32) -> Int32 {
        if path.isEmpty { return openat(rootFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        if wb_have_openat2() != 0 {
            let fd = wb_openat2_beneath(rootFd, path.onDisk, flags, 0)
            if fd >= 0 || errno != ENOSYS { return fd }
        }
        return openat(rootFd, path.onDisk, flags)
    }

    /// `IN_ONLYDIR` always. Through /proc the magic link must be followed to reach the
    /// descriptor's directory (which was itself opened without following links), so
    /// `IN_DONT_FOLLOW` is only used on the path fallback.
    private func addWatch(fd: Int32, path: String) -> Int32 {
        if watchThroughProc {
            return inotify_add_watch(inotifyFd, "/proc/self/fd/\(fd)",
                                     InotifyMask.watched | InotifyMask.onlyDir)
        }
        let absolute = Array(rootPath.utf8CString.dropLast()) + (path.isEmpty ? [0] : [0x2F] + path.onDisk)
        return inotify_add_watch(inotifyFd, absolute,
                                 InotifyMask.watched | InotifyMask.onlyDir | InotifyMask.dontFollow)
    }

    /// Out of inotify watches (`fs.inotify.max_user_watches`): part of the tree is unwatched.
    /// Reported once per watcher through `onOverflow`, so the client rescans instead of
    /// trusting the stream.
    private func reportWatchLimit() {
        guard !watchLimitReported else { return }
        watchLimitReported = true
        overflowPending = true
    }
}
#endif
