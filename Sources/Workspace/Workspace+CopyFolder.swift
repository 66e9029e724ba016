#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    /// How far a folder copy has got: files and bytes copied so far, out of what the source
    /// folder held when the copy started (counted before copying; files that appear or vanish
    /// meanwhile make the counts approximate, never negative).
    public struct CopyProgress: Sendable, Equatable {
        public var filesCopied: Int
        public var filesTotal: Int
        public var bytesCopied: Int64
        public var bytesTotal: Int64
    }

    /// A folder copied to a destination that must not exist. All or nothing for the caller: the
    /// destination folder is made exclusively (a folder someone else made is never copied into
    /// nor removed), and a cancelled or failed copy removes it again before the error is thrown.
    /// A crash in the middle leaves what was copied so far (every file in it complete).
    func copyFolder(from: WorkspacePath, to: WorkspacePath, isCancelled: () -> Bool,
                    progress: (CopyProgress) -> Void) throws(WorkspaceError) -> CopyResult
    {
        let dst = try root.makeDirectories(to.parent)
        if mkdirat(dst.raw, to.name.onDisk, 0o755) != 0 {
            if errno == EEXIST {
                throw WorkspaceError(.alreadyExists, "'\(to)' already exists; folders are only copied to a new name", path: to.string)
            }
            throw .errno(errno, "copy", path: to.string)
        }
        var state = TreeCopy(total: (0, 0))
        var skipped: [SkippedEntry] = []
        do throws(WorkspaceError) {
            state.total = try countTree(from, isCancelled: isCancelled)
            progress(state.progress)
            try copyTree(from: from, to: to, state: &state, skipped: &skipped, isCancelled: isCancelled, progress: progress)
        } catch {
            try? delete(to, recursive: true, asServer: true)
            throw error
        }
        return CopyResult(status: try status(to), skipped: skipped)
    }

    private struct TreeCopy {
        var total: (files: Int, bytes: Int64)
        var files = 0
        var bytes: Int64 = 0
        var progress: CopyProgress {
            CopyProgress(filesCopied: files, filesTotal: max(total.files, files), bytesCopied: bytes, bytesTotal: max(total.bytes, bytes))
        }
    }

    /// The regular files (and their bytes) a copy of the folder would copy; links and special
    /// files are not counted (they are skipped).
    private func countTree(_ path: WorkspacePath, isCancelled: () -> Bool) throws(WorkspaceError) -> (files: Int, bytes: Int64) {
        if isCancelled() { throw .cancelled(path) }
        let dir = try root.openDirectory(path)
        var files = 0
        var bytes: Int64 = 0
        for name in try DirectoryReader.names(dir, path: path) where !TempName.isTemp(name) {
            guard let st = Sys.lstat(dir.raw, name) else { continue }
            if st.isDirectory {
                let sub = try countTree(path.appending(name), isCancelled: isCancelled)
                files += sub.files
                bytes += sub.bytes
            } else if st.isRegular {
                files += 1
                bytes += Int64(st.st_size)
            }
        }
        return (files, bytes)
    }

    private func copyTree(from: WorkspacePath, to: WorkspacePath, state: inout TreeCopy, skipped: inout [SkippedEntry],
                          isCancelled: () -> Bool, progress: (CopyProgress) -> Void) throws(WorkspaceError)
    {
        if isCancelled() { throw .cancelled(from) }
        _ = try root.makeDirectories(to)
        let dir = try root.openDirectory(from)
        for name in try DirectoryReader.names(dir, path: from) where !TempName.isTemp(name) {
            guard let st = Sys.lstat(dir.raw, name) else { continue }
            let child = from.appending(name)
            if st.isDirectory {
                try copyTree(from: child, to: to.appending(name), state: &state, skipped: &skipped, isCancelled: isCancelled,
                             progress: progress)
            } else if st.isRegular {
                do throws(WorkspaceError) {
                    let copied = try copyFile(from: child, to: to.appending(name), overwrite: false, isCancelled: isCancelled)
                    state.files += 1
                    state.bytes += copied.size
                    progress(state.progress)
                } catch {
                    // Swapped for a special file or a link since it was listed: skipped all the same.
                    guard error.code == .notARegularFile || error.code == .symlinkNotFollowed else { throw error }
                    let now = Sys.lstat(dir.raw, name).map { EntryType(mode: $0.st_mode) } ?? .other
                    skipped.append(SkippedEntry(path: child, type: now))
                }
            } else {
                skipped.append(SkippedEntry(path: child, type: EntryType(mode: st.st_mode)))
            }
        }
    }
}
