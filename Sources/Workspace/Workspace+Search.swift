#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Workspace {
    public struct SearchOptions: Sendable {
        public var query: String
        public var path: WorkspacePath = .root
        public var glob: Glob?
        public var regex = false
        public var caseSensitive = false
        public var includeHidden = false
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
    }

    /// Searches file contents under `path`, in listing order, one entry per matching line.
    /// Binary files (a NUL byte in the first 8 KiB) are skipped; links are never followed.
    /// `progress` is called with the number of files searched so far.
    public func search(_ options: SearchOptions, isCancelled: () -> Bool = { false },
                       progress: (Int) -> Void = { _ in }) throws(WorkspaceError) -> SearchResult
    {
        if !options.path.isRoot { try checkClientPath(options.path) }
        guard !options.query.isEmpty else { throw WorkspaceError(.invalidArgument, "the query is empty") }
        let matcher = try LineMatcher(options)
        var result = SearchResult(matches: [], truncated: false, filesSearched: 0)
        let start = try status(options.path)
        if start.type == .file {
            let file = try root.open(options.path, flags: O_RDONLY)
            try searchFile(file, path: options.path, options: options, matcher: matcher, into: &result)
            return result
        }
        let dir = try root.openDirectory(options.path)
        var buffer: [UInt8] = []
        try searchTree(dir, path: options.path, options: options, matcher: matcher, buffer: &buffer,
                       into: &result, isCancelled: isCancelled, progress: progress)
        return result
    }

    private func searchTree(_ dir: FileDescriptor, path: WorkspacePath, options: SearchOptions, matcher: LineMatcher,
                            buffer: inout [UInt8], into result: inout SearchResult,
                            isCancelled: () -> Bool, progress: (Int) -> Void) throws(WorkspaceError)
    {
        for entry in try DirectoryView.entries(dir, path: path, includeHidden: options.includeHidden)
        where entry.state != "notDownloaded" {
            if result.truncated { return }
            if isCancelled() { throw .cancelled(path) }
            let name = entry.name
            let child = path.appending(name)
            let st = entry.stat
            if st.isDirectory {
                if Workspace.isServerFolder(child) { continue }
                let sub = openat(dir.raw, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard sub >= 0 else { continue }
                try searchTree(FileDescriptor(sub), path: child, options: options, matcher: matcher, buffer: &buffer,
                               into: &result, isCancelled: isCancelled, progress: progress)
                continue
            }
            guard st.isRegular, Int64(st.st_size) <= options.maxFileBytes else { continue }
            let relative = child.components.dropFirst(options.path.components.count).joined(separator: "/")
            if let glob = options.glob, !glob.matches(relativePath: relative, name: name) { continue }
            let raw = openat(dir.raw, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard raw >= 0 else { continue }
            try searchFile(FileDescriptor(raw), path: child, options: options, matcher: matcher, into: &result)
            progress(result.filesSearched)
        }
    }

    private func searchFile(_ file: FileDescriptor, path: WorkspacePath, options: SearchOptions, matcher: LineMatcher,
                            into result: inout SearchResult) throws(WorkspaceError)
    {
        let st = try Sys.fstat(file.raw, path: path.string)
        guard st.isRegular else { return }
        let bytes = try Sys.pread(file.raw, count: Int(min(Int64(st.st_size), options.maxFileBytes)), offset: 0, path: path.string)
        result.filesSearched += 1
        let probe = min(bytes.count, 8192)
        if probe > 0, bytes.withUnsafeBytes({ memchr($0.baseAddress!, 0, probe) != nil }) { return }
        matcher.forEachMatchingLine(in: bytes) { line, column, text in
            if result.matches.count == options.maxResults {
                result.truncated = true
                return false
            }
            result.matches.append(SearchMatch(path: path, line: line, column: column, text: text))
            return true
        }
    }
}
