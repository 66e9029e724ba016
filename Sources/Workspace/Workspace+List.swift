#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    public struct ListOptions: Sendable {
        public var path: WorkspacePath = .root
        public var recursive = false
        /// 1 lists the folder's own entries; nil with `recursive` means no limit.
        public var maxDepth: Int?
        public var glob: Glob?
        public var includeHidden = false
        /// List what `.gitignore`, `.ignore` and `.stignore` ignore too (`IgnoreMatcher`).
        public var includeIgnored = false
        public var limit = 5000
        /// The last path of the previous page.
        public var after: WorkspacePath?
        public init() {}
    }

    public struct ListPage: Sendable {
        /// The page's entries in order, folder by folder, each with its full status.
        public var entries: [FileStatus] = []
        /// Present when more entries follow: pass it back as `after`.
        public var next: WorkspacePath?

        /// How many entries the page holds.
        public var count: Int { entries.count }

        /// The path of the last entry.
        var lastPath: WorkspacePath? { entries.last?.path }
    }

    /// Lists a folder in a stable depth-first order (siblings sorted by their names' bytes),
    /// a page at a time. Links are listed as links and never descended into; a link's target
    /// is never inspected. The private folder is listed (with `includeHidden`) but not entered.
    ///
    /// Subfolders are read ahead in small batches on all cores (`ListPrefetch`), each read
    /// relative to its parent's open descriptor; the page is still assembled in order on the
    /// calling thread, so pages and cursors are the same as a sequential walk's.
    public func list(_ options: ListOptions, isCancelled: () -> Bool = { false }) throws(WorkspaceError) -> ListPage {
        if !options.path.isRoot { try checkClientPath(options.path) }
        let dir = try root.openDirectory(options.path)
        let depthLimit = options.recursive ? (options.maxDepth ?? 256) : min(options.maxDepth ?? 1, 1)
        var page = ListPage()
        var walker = Walker(options: options, depthLimit: max(1, depthLimit))
        // Without a glob, no page takes more than `limit` entries of one folder: with the
        // cursor's own entry and one more to tell the walk that the folder goes on, the rest
        // of a large folder needs no `stat`.
        let atMost = options.glob == nil ? options.limit + 2 : nil
        let ignore = options.includeIgnored ? nil : try IgnoreMatcher(root: root, start: options.path)
        let listing = ListPrefetch.read(dir, path: options.path, includeHidden: options.includeHidden, after: options.after,
                                        atMost: atMost, ignore: ignore)
        try walker.visit(listing, in: dir, path: options.path, depth: 1, page: &page, isCancelled: isCancelled)
        return page
    }

    private struct Walker {
        let options: ListOptions
        let depthLimit: Int
        var full = false
        /// Entries and folders read so far, to size read-ahead batches to the room left.
        var readEntries = 0
        var readFolders = 0

        /// Lists `listing`, the entries of the open folder `dir` at `path`, and walks into its subfolders.
        mutating func visit(_ listing: ListPrefetch.Listing, in dir: FileDescriptor, path: WorkspacePath, depth: Int, page: inout ListPage,
                            isCancelled: () -> Bool) throws(WorkspaceError) {
            if isCancelled() { throw .cancelled(path) }
            let entries = try listing.entries.get()
            readEntries += entries.count
            readFolders += 1
            // Entries are compared with the cursor only in a folder that does not sort wholly
            // after it (in depth-first order, a folder after the cursor holds nothing before
            // it: only folders on the cursor's own path do); the glob needs each entry's path.
            let compares = options.after.map { !($0 < path) } ?? false
            let perEntryPath = compares || options.glob != nil
            var ahead: [Int: ListPrefetch.Listing] = [:]
            for i in entries.indices {
                let entry = entries[i]
                let isFolder = entry.stat.isDirectory
                let child: WorkspacePath? = perEntryPath || isFolder ? path.appending(entry.name) : nil
                var listed = true
                if compares, let after = options.after, let child, child <= after { listed = false }
                if listed, let glob = options.glob, let child, !glob.matches(relativePath: relative(child), name: entry.name) { listed = false }
                if listed {
                    if page.count == options.limit {
                        page.next = page.lastPath
                        full = true
                        return
                    }
                    page.entries.append(entry.status(at: child ?? path.appending(entry.name)))
                }
                guard isFolder, let child, enters(entry, at: child, depth: depth) else { continue }
                if ahead[i] == nil {
                    let batch = readAheadBatch(from: i, in: entries, path: path, depth: depth, room: options.limit - page.count)
                    let read = ListPrefetch.read(batch.map { (entries[$0].name, path.appending(entries[$0].name)) }, in: dir,
                                                 includeHidden: options.includeHidden, after: options.after,
                                                 atMost: options.glob == nil ? options.limit + 2 : nil, ignore: listing.ignore)
                    for (k, j) in batch.enumerated() { ahead[j] = read[k] }
                }
                guard let sub = ahead.removeValue(forKey: i), let subDir = sub.fd else { continue }  // replaced or unreadable: listed, not entered
                try visit(sub, in: subDir, path: child, depth: depth + 1, page: &page, isCancelled: isCancelled)
                if full { return }
            }
        }

        /// Whether the walk goes into `entry`: a real folder (not a placeholder, not the
        /// server's own), within the depth limit, and not wholly before the cursor.
        func enters(_ entry: DirectoryView.Entry, at child: WorkspacePath, depth: Int) -> Bool {
            guard entry.stat.isDirectory, entry.stored == entry.name, depth < depthLimit else { return false }
            if Workspace.isServerFolder(child) { return false }
            if let after = options.after, child <= after, !after.isWithin(child) { return false }
            return true
        }

        /// The entries from `start` on that the walk will enter next: about as many folders as
        /// the page still has room for at the average folder size seen so far (at least one,
        /// at most 32), so little is read past the page's end.
        func readAheadBatch(from start: Int, in entries: [DirectoryView.Entry], path: WorkspacePath, depth: Int, room: Int) -> [Int] {
            let average = max(1, readEntries / max(1, readFolders))
            let want = min(32, max(1, room / average + 1))
            var batch: [Int] = []
            var j = start
            while j < entries.count && batch.count < want {
                if entries[j].stat.isDirectory, enters(entries[j], at: path.appending(entries[j].name), depth: depth) { batch.append(j) }
                j += 1
            }
            return batch
        }

        func relative(_ p: WorkspacePath) -> String {
            p.components.dropFirst(options.path.components.count).joined(separator: "/")
        }
    }
}

/// Reads folders for `Workspace.list`, several at once on all cores.
///
/// Each folder is opened relative to its parent's descriptor with `O_NOFOLLOW | O_DIRECTORY`
/// (a link swapped in is refused, never followed) and read through `DirectoryView` (names,
/// `fstatat`, sync states) on the reading thread. Results come back in the order asked for, so
/// callers assemble output exactly as a sequential walk would.
enum ListPrefetch {
    /// One folder read: its descriptor (nil when it could not be opened: listed, not entered)
    /// and its entries but those wholly before the cursor (neither listed nor entered), or the
    /// error reading it.
    struct Listing: @unchecked Sendable {
        var fd: FileDescriptor?
        /// The ignore files in force inside the folder (nil: none honoured).
        var ignore: IgnoreMatcher?
        var entries: Result<[DirectoryView.Entry], WorkspaceError> = .success([])
    }

    /// Reads the open folder `dir` at `path`.
    static func read(_ dir: FileDescriptor, path: WorkspacePath, includeHidden: Bool, after: WorkspacePath?,
                     atMost: Int? = nil, ignore: IgnoreMatcher?) -> Listing {
        var out = Listing(fd: dir, ignore: ignore)
        do throws(WorkspaceError) {
            // Only a folder on the cursor's own path holds entries wholly before it: those
            // whose names sort before the cursor's next component (plain ones are not even
            // stat'ed; a placeholder's real name is compared below).
            var bound: String?
            if let after, after.components.count > path.components.count, after.isWithin(path) {
                bound = after.components[path.components.count]
            }
            var ignored = 0
            var entries = try DirectoryView.entries(dir, path: path, includeHidden: includeHidden, skipBefore: bound,
                                                    atMost: atMost, ignore: ignore, ignored: &ignored)
            // Placeholders are kept under their real names, which may sort before the bound.
            if let bound { entries.removeAll { $0.name.utf8.lexicographicallyPrecedes(bound.utf8) } }
            out.entries = .success(entries)
        } catch {
            out.entries = .failure(error)
        }
        return out
    }

    /// Opens and reads the subfolders `folders` (stored name, workspace path) of `parent`, in
    /// parallel when there are several; results in the same order. `ignore` is the parent's
    /// (each subfolder's own ignore files are added for it).
    static func read(_ folders: [(String, WorkspacePath)], in parent: FileDescriptor, includeHidden: Bool,
                     after: WorkspacePath?, atMost: Int? = nil, ignore: IgnoreMatcher?) -> [Listing] {
        let slots = Slots(folders.count)
        let work = UncheckedBox((folders, parent))
        let workers = min(Parallel.cores, folders.count)
        Parallel.run(workers) { worker in
            let (folders, parent) = work.value
            for i in stride(from: worker, to: folders.count, by: workers) {
                let (name, path) = folders[i]
                let raw = openat(parent.raw, name.onDisk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard raw >= 0 else { slots.put(i, Listing(fd: nil)); continue }
                let dir = FileDescriptor(raw)
                var inside = ignore
                inside?.enter(dir, path: path)
                slots.put(i, read(dir, path: path, includeHidden: includeHidden, after: after, atMost: atMost, ignore: inside))
            }
        }
        return slots.take()
    }

    /// Result slots written by index from several threads (each index by exactly one), read
    /// after all have joined.
    private final class Slots: @unchecked Sendable {
        private let buffer: UnsafeMutableBufferPointer<Listing?>
        init(_ n: Int) {
            buffer = .allocate(capacity: n)
            buffer.initialize(repeating: nil)
        }
        func put(_ i: Int, _ value: Listing) { buffer[i] = value }
        func take() -> [Listing] { buffer.map { $0 ?? Listing(fd: nil) } }
        deinit {
            _ = buffer.deinitialize()
            buffer.deallocate()
        }
    }

    private struct UncheckedBox<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }
}
