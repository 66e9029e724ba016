#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import SystemSupport
import Workspace

/// The folder `<root>/.workspace/settings/` on disk: one file per device, plus any conflict copies
/// a sync engine made of them.
///
/// Guarantees: the folder and the files in it are opened without following links (a link planted
/// by a synced peer is never followed); a file is replaced crash-safely (a temp file named
/// `.syncthing.<name>.wb-<pid><random>.tmp`, which no engine propagates, then fsync, rename and a
/// flush of the folder), so readers on any device see a whole old or whole new file; writers on
/// one machine are serialised by an exclusive `flock` on the folder.
struct SettingsFolder {
    let path: String
    let fd: Int32

    /// Opens the folder of `rootPath`, creating `.workspace/settings` when `create` is set;
    /// nil when it does not exist and `create` is not set.
    static func open(rootPath: String, create: Bool) throws(SettingsError) -> SettingsFolder? {
        var dir = openFolder(rootPath, at: AT_FDCWD, follow: true)
        guard dir >= 0 else { throw .io("cannot open the workspace root", errno: errno, path: rootPath) }
        var path = rootPath
        for name in [Workspace.privateFolder, "settings"] {
            path += "/" + name
            var sub = openFolder(name, at: dir, follow: false)
            if sub < 0 && errno == ENOENT && create {
                if mkdirat(dir, name, 0o755) != 0 && errno != EEXIST {
                    let e = errno
                    posixClose(dir)
                    throw .io("cannot create", errno: e, path: path)
                }
                sub = openFolder(name, at: dir, follow: false)
            }
            let e = errno
            posixClose(dir)
            if sub < 0 {
                if e == ENOENT && !create { return nil }
                throw .io("cannot open", errno: e, path: path)
            }
            dir = sub
        }
        return SettingsFolder(path: path, fd: dir)
    }

    func close() { posixClose(fd) }

    func lock() { while flock(fd, LOCK_EX) != 0 && errno == EINTR {} }
    func unlock() { _ = flock(fd, LOCK_UN) }

    /// The names of the regular entries in the folder.
    func names() -> [String] {
        let d = dup(fd)
        guard d >= 0, let dirp = fdopendir(d) else { return [] }
        defer { closedir(dirp) }
        rewinddir(dirp)
        var out: [String] = []
        while let e = readdir(dirp) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    /// A file's bytes (regular files only, not through a link, at most `FileCap.syncedSettings`), or nil.
    func read(_ name: String) -> [UInt8]? {
        guard case .bytes(let bytes) = BoundedFile.read(name, .syncedSettings, in: fd, followLinks: false) else { return nil }
        return bytes
    }

    /// Replaces `name` with `bytes` crash-safely.
    func write(_ name: String, _ bytes: [UInt8]) throws(SettingsError) {
        let tmp = Self.tempName(for: name)
        let f = openat(fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard f >= 0 else { throw .io("cannot create", errno: errno, path: path + "/" + tmp) }
        var ok = FileIO.writeAll(f, bytes)
        ok = ok && wb_full_fsync(f) == 0
        let e = errno
        posixClose(f)
        guard ok else {
            unlinkat(fd, tmp, 0)
            throw .io("cannot write", errno: e, path: path + "/" + name)
        }
        guard renameat(fd, tmp, fd, name) == 0 else {
            let e = errno
            unlinkat(fd, tmp, 0)
            throw .io("cannot replace", errno: e, path: path + "/" + name)
        }
        _ = fsync(fd)
    }

    func remove(_ name: String) { unlinkat(fd, name, 0) }

    /// Removes temp files that writers on this machine left when they died mid-write.
    func sweepTempFiles() {
        for name in names() where name.hasPrefix(".syncthing.") && name.hasSuffix(".tmp") {
            let u = Array(name.utf8)
            guard u.count >= 35, Array(u[(u.count - 24)..<(u.count - 20)]) == Array(".wb-".utf8),
                let pid = UInt32(String(decoding: u[(u.count - 20)..<(u.count - 12)], as: UTF8.self), radix: 16)
            else { continue }
            if kill(pid_t(bitPattern: pid), 0) != 0 && errno == ESRCH { remove(name) }
        }
    }

    /// The workspace's temp-name convention: the writer's pid, then random bits.
    static func tempName(for name: String) -> String {
        let pid = UInt64(UInt32(truncatingIfNeeded: getpid()))
        let hex = String(pid << 32 | UInt64(UInt32.random(in: .min ... .max)), radix: 16)
        return ".syncthing." + name + ".wb-" + String(repeating: "0", count: 16 - hex.count) + hex + ".tmp"
    }
}

private func posixClose(_ fd: Int32) { _ = close(fd) }

/// `open(2)` of a folder relative to `dir`, refusing a link at the last component unless `follow`.
private func openFolder(_ name: String, at dir: Int32, follow: Bool) -> Int32 {
    openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW))
}
