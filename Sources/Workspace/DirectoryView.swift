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

    /// The folder's entries, sorted by the bytes of their (real) names.
    ///
    /// Costs per entry one classification and one `fstatat` relative to `dir`; the name sets
    /// that resolve placeholders and conflict copies are built only when the folder holds such
    /// artefacts, and the sort is skipped when the names are already in order (they come
    /// sorted from `DirectoryReader`; only placeholders' real names can move).
    ///
    /// With `skipBefore`, plain entries whose names sort before it are left out without a
    /// `stat` (a listing page that resumes after a cursor needs none of them), so paging
    /// through a large folder costs each page its own entries, not the whole folder's. With
    /// `atMost`, a folder without sync artefacts (whose order is its names' order) stops after
    /// that many entries.
    ///
    /// With `ignore`, entries its ignore files ignore are left out (before `atMost` counts) and
    /// counted in `ignored`.
    static func entries(_ dir: FileDescriptor, path: WorkspacePath, includeHidden: Bool,
                        skipBefore: String? = nil, atMost: Int? = nil) throws(WorkspaceError) -> [Entry] {
        var ignored = 0
        return try entries(dir, path: path, includeHidden: includeHidden, skipBefore: skipBefore, atMost: atMost, ignore: nil,
                           ignored: &ignored)
    }

    static func entries(_ dir: FileDescriptor, path: WorkspacePath, includeHidden: Bool, skipBefore: String? = nil,
                        atMost: Int? = nil, ignore: IgnoreMatcher?, ignored: inout Int) throws(WorkspaceError) -> [Entry] {
        let ignore = ignore?.isEmpty == false ? ignore : nil
        let folder = ignore == nil ? [] : IgnoreMatcher.prefix(of: path)
        let names = try DirectoryReader.names(dir, path: path)
        var artefacts: [(index: Int, artefact: SyncArtefact)] = []
        var kinds = [SyncArtefact?](repeating: nil, count: names.count)
        for (i, name) in names.enumerated() {
            let a = SyncArtefacts.classify(name)
            if a != .none { artefacts.append((i, a)); kinds[i] = a }
        }
        // Only artefacts need these: the originals that have conflict copies, and the names
        // present for real (a downloaded file wins over its stale placeholder).
        var conflicted = Set<String>()
        var present = Set<String>()
        if !artefacts.isEmpty {
            for (_, a) in artefacts { if case .conflictCopy(_, let original, _) = a { conflicted.insert(original) } }
            if artefacts.contains(where: { if case .placeholder = $0.artefact { true } else { false } }) {
                for (i, name) in names.enumerated() where kinds[i] == nil { present.insert(name) }
            }
        }
        let cap = artefacts.isEmpty ? atMost ?? Int.max : Int.max
        var out: [Entry] = []
        out.reserveCapacity(min(names.count, cap))
        var inOrder = true
        for (i, name) in names.enumerated() {
            if out.count >= cap { break }
            if TempName.isTemp(name) { continue }
            switch kinds[i] ?? .none {
            case .hidden, .conflictCopy: continue
            case .placeholder(let engine, let real):
                if present.contains(real) || (!includeHidden && real.hasPrefix(".")) { continue }
                guard let st = Sys.lstat(dir.raw, name), st.isRegular else { continue }
                if let ignore, ignore.isIgnored(name: real, in: folder, isDirectory: false) { ignored += 1; continue }
                var size: Int64?
                if engine == .icloud, st.st_size < 64 << 10, let f = try? openFile(dir, name, path: path) {
                    let bytes = (try? Sys.pread(f.raw, count: Int(st.st_size), offset: 0, path: path.string)) ?? []
                    size = SyncArtefacts.parseICloudStub(bytes)?.size
                }
                inOrder = false
                out.append(Entry(name: real, stored: name, stat: st, state: "notDownloaded", placeholderSize: size))
            case .none:
                if !includeHidden && name.hasPrefix(".") { continue }
                if let skipBefore, name.utf8.lexicographicallyPrecedes(skipBefore.utf8) { continue }
                guard let st = Sys.lstat(dir.raw, name) else { continue }
                if let ignore, ignore.isIgnored(name: name, in: folder, isDirectory: st.isDirectory) { ignored += 1; continue }
                var state = !conflicted.isEmpty && conflicted.contains(name) ? "conflicted" : "current"
                if isDataless(st) { state = "notDownloaded" }
                out.append(Entry(name: name, stored: name, stat: st, state: state, placeholderSize: nil))
            }
        }
        // Placeholders shown under their real names may sort elsewhere: checking the order is
        // linear, sorting only when needed.
        if inOrder {
            for i in out.indices.dropFirst() where !out[i - 1].name.utf8.lexicographicallyPrecedes(out[i].name.utf8) {
                inOrder = false
                break
            }
        }
        if !inOrder { out.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) } }
        return out
    }

    private static func openFile(_ dir: FileDescriptor, _ name: String, path: WorkspacePath) throws(WorkspaceError) -> FileDescriptor {
        FileDescriptor(try Sys.openRegular(dir.raw, name, flags: O_RDONLY | O_NOFOLLOW, path: path.appending(name).string))
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
