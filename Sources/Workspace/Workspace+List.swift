#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Workspace {
    public struct ListOptions: Sendable {
        public var path: WorkspacePath = .root
        public var recursive = false
        /// 1 lists the folder's own entries; nil with `recursive` means no limit.
        public var maxDepth: Int?
        public var glob: Glob?
        public var includeHidden = false
        public var limit = 5000
        /// The last path of the previous page.
        public var after: WorkspacePath?
        public init() {}
    }

    public struct ListPage: Sendable {
        public var entries: [FileStatus]
        /// Present when more entries follow: pass it back as `after`.
        public var next: WorkspacePath?
    }

    /// Lists a folder in a stable depth-first order (siblings sorted by their names' bytes),
    /// a page at a time. Links are listed as links and never descended into; a link's target
    /// is never inspected. The private folder is listed (with `includeHidden`) but not entered.
    public func list(_ options: ListOptions, isCancelled: () -> Bool = { false }) throws(WorkspaceError) -> ListPage {
        if !options.path.isRoot { try checkClientPath(options.path) }
        let dir = try root.openDirectory(options.path)
        let depthLimit = options.recursive ? (options.maxDepth ?? 256) : min(options.maxDepth ?? 1, 1)
        var page = ListPage(entries: [], next: nil)
        var walker = Walker(options: options, depthLimit: max(1, depthLimit))
        try walker.visit(dir, path: options.path, depth: 1, page: &page, isCancelled: isCancelled)
        return page
    }

    private struct Walker {
        let options: ListOptions
        let depthLimit: Int
        var full = false

        mutating func visit(_ dir: FileDescriptor, path: WorkspacePath, depth: Int, page: inout ListPage,
                            isCancelled: () -> Bool) throws(WorkspaceError) {
            if isCancelled() { throw .cancelled(path) }
            for entry in try DirectoryView.entries(dir, path: path, includeHidden: options.includeHidden) {
                let name = entry.name
                let child = path.appending(name)
                let st = entry.stat
                let after = options.after
                let seen = after.map { child <= $0 } ?? false
                if !seen, options.glob?.matches(relativePath: relative(child), name: name) ?? true {
                    if page.entries.count == options.limit {
                        page.next = page.entries.last?.path
                        full = true
                        return
                    }
                    page.entries.append(entry.status(at: child))
                }
                guard st.isDirectory, entry.stored == name, depth < depthLimit else { continue }
                if Workspace.isServerFolder(child) { continue }
                // Skip a subtree that lies wholly before the cursor.
                if seen, let after, !after.isWithin(child) { continue }
                let sub = openat(dir.raw, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard sub >= 0 else { continue }  // replaced or unreadable: listed, not entered
                try visit(FileDescriptor(sub), path: child, depth: depth + 1, page: &page, isCancelled: isCancelled)
                if full { return }
            }
        }

        func relative(_ p: WorkspacePath) -> String {
            p.components.dropFirst(options.path.components.count).joined(separator: "/")
        }
    }
}
