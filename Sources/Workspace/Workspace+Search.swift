#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    public struct SearchOptions: Sendable {
        public var query: String
        public var path: WorkspacePath = .root
        public var glob: Glob?
        public var regex = false
        public var caseSensitive = false
        public var includeHidden = false
        /// Search what `.gitignore`, `.ignore` and `.stignore` ignore too (`IgnoreMatcher`).
        public var includeIgnored = false
        public var maxResults = 1000
        /// Files larger than this are skipped (they are rarely text a person searches).
        public var maxFileBytes: Int64 = 256 << 20
        public init(query: String) { self.query = query }
    }

    /// One matching line: 1-based line number, 1-based column (in characters) of the first
    /// match on the line, and the line's text (at most 1,000 characters).
    public struct SearchMatch: Sendable, Equatable {
        public var path: WorkspacePath
        public var line: Int
        public var column: Int
        public var text: String
    }

    public struct SearchResult: Sendable {
        public var matches: [SearchMatch]
        /// True when `maxResults` cut the search short.
        public var truncated: Bool
        public var filesSearched: Int
        /// FIFOs, sockets and devices met under the path: never opened, never searched.
        public var specialFilesSkipped = 0
        /// Entries ignore files left out: files, and folders (each counted once, their contents
        /// not visited).
        public var ignored = 0
    }

    /// Searches file contents under `path`, in listing order, one entry per matching line.
    /// Binary files (a NUL byte in the first 8 KiB) are skipped; links are never followed;
    /// FIFOs, sockets and devices are never opened, only counted (`specialFilesSkipped`).
    /// The walk lists the candidate files, then one thread per core searches them; results are
    /// merged in listing order, so the first `maxResults` matches are the same as a sequential
    /// search would give. `progress` is called with the number of files searched so far.
    public func search(_ options: SearchOptions, isCancelled: @escaping @Sendable () -> Bool = { false },
                       progress: @escaping @Sendable (Int) -> Void = { _ in }) throws(WorkspaceError) -> SearchResult
    {
        if !options.path.isRoot { try checkClientPath(options.path) }
        guard !options.query.isEmpty else { throw WorkspaceError(.invalidArgument, "the query is empty") }
        _ = try options.matcher()  // a bad pattern is reported before any work
        var files: [WorkspacePath] = []
        var special = 0
        var ignored = 0
        let start = try status(options.path)
        if start.type == .file {
            files = [options.path]
        } else if start.type.isSpecial {
            throw .notARegularFile(options.path.string, type: start.type)
        } else {
            let ignore = options.includeIgnored ? nil : try IgnoreMatcher(root: root, start: options.path)
            try collect(try root.openDirectory(options.path), path: options.path, options: options, ignore: ignore, into: &files,
                        special: &special, ignored: &ignored, isCancelled: isCancelled)
        }
        let searcher = ParallelSearch(workspace: self, options: options, files: files)
        try searcher.run(isCancelled: isCancelled, progress: progress)
        var result = searcher.result()
        result.specialFilesSkipped = special
        result.ignored = ignored
        return result
    }

    /// The files a search will read, in listing order.
    private func collect(_ dir: FileDescriptor, path: WorkspacePath, options: SearchOptions, ignore: IgnoreMatcher?,
                         into files: inout [WorkspacePath], special: inout Int, ignored: inout Int,
                         isCancelled: () -> Bool) throws(WorkspaceError)
    {
        if isCancelled() { throw .cancelled(path) }
        for entry in try DirectoryView.entries(dir, path: path, includeHidden: options.includeHidden, ignore: ignore, ignored: &ignored)
        where entry.state != "notDownloaded" {
            let child = path.appending(entry.name)
            let st = entry.stat
            if st.isDirectory {
                if Workspace.isServerFolder(child) { continue }
                let sub = openat(dir.raw, entry.name.onDisk, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard sub >= 0 else { continue }
                let subdir = FileDescriptor(sub)
                var inside = ignore
                inside?.enter(subdir, path: child)
                try collect(subdir, path: child, options: options, ignore: inside, into: &files, special: &special,
                            ignored: &ignored, isCancelled: isCancelled)
                continue
            }
            if EntryType(mode: st.st_mode).isSpecial {
                let relative = child.components.dropFirst(options.path.components.count).joined(separator: "/")
                if options.glob?.matches(relativePath: relative, name: entry.name) ?? true { special += 1 }
                continue
            }
            guard st.isRegular, Int64(st.st_size) <= options.maxFileBytes else { continue }
            let relative = child.components.dropFirst(options.path.components.count).joined(separator: "/")
            if let glob = options.glob, !glob.matches(relativePath: relative, name: entry.name) { continue }
            files.append(child)
        }
    }

    /// Searches one file (never following a link); nil when it is binary or unreadable. A regular
    /// expression asks `isCancelled` as it goes (`RequestCancelled`); one that reaches a bound of
    /// its engine is `LimitExceeded` (`data.reason` `matchLimit`, `data.line`).
    func searchOne(_ path: WorkspacePath, matcher: TextMatcher, limit: Int, maxFileBytes: Int64,
                   isCancelled: () -> Bool = { false }) throws(WorkspaceError) -> [SearchMatch]? {
        guard let file = try? root.openFile(path), let st = try? Sys.fstat(file.raw, path: path.string),
            st.isRegular, let bytes = try? Sys.pread(file.raw, count: Int(min(Int64(st.st_size), maxFileBytes)), offset: 0, path: path.string)
        else { return nil }
        if Self.isBinary(bytes) { return nil }
        var out: [SearchMatch] = []
        do {
            try matcher.forEachMatchingLine(in: bytes, stop: isCancelled) { line, column, text in
                out.append(SearchMatch(path: path, line: line, column: column, text: text))
                return out.count <= limit
            }
        } catch {
            switch error {
            case .stopped: throw .cancelled(path)
            case .overLimit(let line, let why):
                throw WorkspaceError(.limitExceeded, "\(why) (line \(line) of '\(path.string)')", path: path.string,
                                     details: ["reason": .string("matchLimit"), "line": .int(Int64(line))])
            }
        }
        return out
    }
}

extension Workspace.SearchOptions {
    /// The matcher for `query` (the one `session/search` uses too); a bad pattern is `InvalidArgument`.
    func matcher() throws(WorkspaceError) -> TextMatcher {
        do { return try TextMatcher(query: query, regex: regex, caseSensitive: caseSensitive) } catch {
            throw WorkspaceError(.invalidArgument, error.message)
        }
    }
}
