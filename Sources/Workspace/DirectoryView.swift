#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One folder as clients see it: sync engines' temp and internal files hidden, placeholders
/// shown under their real names as `notDownloaded`, originals with conflict copies marked
/// `conflicted` (the copies themselves are reached through `conflicts`), the server's own temp
/// files never shown. Entries are sorted by the bytes of their (real) names.
struct DirectoryView {
    struct Entry {
        /// The name clients see.
        var name: String
        /// The name on disk (differs for placeholders).
        var stored: String
        var stat: stat
        var state: String
        /// A placeholder's real size, when the engine records it.
        var placeholderSize: Int64?

        func status(at path: WorkspacePath) -> FileStatus {
            var s = FileStatus(path: path, stat: stat)
            s.state = state
            if state == "notDownloaded" {
                s.type = .file
                s.size = placeholderSize ?? s.size
            }
            return s
        }
    }

    static func entries(_ dir: FileDescriptor, path: WorkspacePath, includeHidden: Bool) throws(WorkspaceError) -> [Entry] {
        let names = try DirectoryReader.names(dir, path: path)
        var conflicted = Set<String>()
        var present = Set<String>()
        var classified: [(String, SyncArtefact)] = []
        for name in names {
            let a = SyncArtefacts.classify(name)
            classified.append((name, a))
            switch a {
            case .conflictCopy(_, let original, _): conflicted.insert(original)
            case .none: present.insert(name)
            default: break
            }
        }
        var out: [Entry] = []
        for (name, artefact) in classified {
            if TempName.isTemp(name) { continue }
            switch artefact {
            case .hidden, .conflictCopy: continue
            case .placeholder(let engine, let real):
                // A downloaded file of the same name wins over its stale stub.
                if present.contains(real) || (!includeHidden && real.hasPrefix(".")) { continue }
                guard let st = Sys.lstat(dir.raw, name), st.isRegular else { continue }
                var size: Int64?
                if engine == .icloud, st.st_size < 64 << 10, let f = try? openFile(dir, name, path: path) {
                    let bytes = (try? Sys.pread(f.raw, count: Int(st.st_size), offset: 0, path: path.string)) ?? []
                    size = SyncArtefacts.parseICloudStub(bytes)?.size
                }
                out.append(Entry(name: real, stored: name, stat: st, state: "notDownloaded", placeholderSize: size))
            case .none:
                if !includeHidden && name.hasPrefix(".") { continue }
                guard let st = Sys.lstat(dir.raw, name) else { continue }
                var state = conflicted.contains(name) ? "conflicted" : "current"
                if isDataless(st) { state = "notDownloaded" }
                out.append(Entry(name: name, stored: name, stat: st, state: state, placeholderSize: nil))
            }
        }
        out.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return out
    }

    private static func openFile(_ dir: FileDescriptor, _ name: String, path: WorkspacePath) throws(WorkspaceError) -> FileDescriptor {
        let r = openat(dir.raw, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard r >= 0 else { throw .errno(errno, "read", path: path.appending(name).string) }
        return FileDescriptor(r)
    }

    /// macOS Sonoma and later keep not-downloaded iCloud files under their real names, flagged
    /// dataless.
    static func isDataless(_ st: stat) -> Bool {
        #if canImport(Darwin)
        return st.st_flags & 0x4000_0000 != 0  // SF_DATALESS
        #else
        return false
        #endif
    }
}
