#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

extension Workspace {
    /// Which lines of a file to read. A line ends after its `\n` (a last line without one is a
    /// line too); 0 lines is an empty window, never "all".
    public enum LineWindow: Sendable, Equatable {
        /// `count` lines (all to the end when nil) from line `line` (1-based).
        case lines(from: Int, count: Int?)
        /// `count` lines (all to the end when nil) from byte `offset`, which a previous window's
        /// `nextOffset` gave (any offset works: the window starts there).
        case linesAt(offset: Int64, count: Int?)
        /// The last `count` lines.
        case last(Int)
    }

    /// A window of whole lines and where the next one starts.
    public struct LinesResult: Sendable {
        public var status: FileStatus
        public var bytes: [UInt8]
        /// The byte offset the window starts at.
        public var offset: Int64
        /// The 1-based number of its first line, when the window was asked by line number.
        public var firstLine: Int?
        /// How many lines it holds.
        public var lineCount: Int
        /// True when the window reached the end of the file; else `nextOffset` (and, when line
        /// numbers are known, `nextLine`) say where the next window starts.
        public var eof: Bool
        public var nextOffset: Int64? { eof ? nil : offset + Int64(bytes.count) }
        public var nextLine: Int? { eof ? nil : firstLine.map { $0 + lineCount } }
    }

    /// Reads a window of whole lines. At most `maxBytes` of lines are returned: a window that
    /// would hold more stops at the last whole line that fits (not at the end: `nextOffset`
    /// says where to go on); a single line longer than that is `TooLarge` (read it by bytes).
    /// With `refuseBinary`, a binary file is `NotText` (see `read`).
    public func readLines(_ path: WorkspacePath, _ window: LineWindow, maxBytes: Int64,
                          refuseBinary: Bool = true) throws(WorkspaceError) -> LinesResult {
        let (file, st) = try openForReading(path, refuseBinary: refuseBinary)
        let size = Int64(st.st_size)
        let scan = LineScan(fd: file.raw, path: path, size: size)
        let start: Int64, count: Int?, firstLine: Int?
        switch window {
        case .lines(let from, let n):
            start = try scan.offsetOfLine(max(1, from))
            count = n
            firstLine = max(1, from)
        case .linesAt(let offset, let n):
            start = min(max(0, offset), size)
            count = n
            firstLine = nil
        case .last(let n):
            start = try scan.offsetOfLastLines(max(0, n), maxBytes: maxBytes)
            count = nil
            firstLine = nil
        }
        let (end, lines) = try scan.endOfLines(from: start, count: count, maxBytes: maxBytes)
        let bytes = try Sys.pread(file.raw, count: Int(end - start), offset: start, path: path.string)
        let after = try Sys.fstat(file.raw, path: path.string)
        return LinesResult(status: FileStatus(path: path, stat: after), bytes: bytes, offset: start, firstLine: firstLine,
                           lineCount: lines, eof: start + Int64(bytes.count) >= Int64(after.st_size))
    }
}

/// Finds line boundaries in an open file by reading it in chunks (never more than one chunk
/// held), so a window anywhere in a large file costs the bytes before it, not the whole file.
private struct LineScan {
    let fd: Int32
    let path: WorkspacePath
    let size: Int64
    static let chunk = 1 << 20

    /// Calls `body` with each chunk from `offset` on and its file offset until it returns false.
    func forEachChunk(from offset: Int64, _ body: ([UInt8], Int64) -> Bool) throws(WorkspaceError) {
        var at = offset
        while at < size {
            let bytes = try Sys.pread(fd, count: Int(min(Int64(Self.chunk), size - at)), offset: at, path: path.string)
            if bytes.isEmpty || !body(bytes, at) { return }
            at += Int64(bytes.count)
        }
    }

    /// The offset where line `line` (1-based) starts; the file's size when it has fewer lines.
    func offsetOfLine(_ line: Int) throws(WorkspaceError) -> Int64 {
        var toSkip = line - 1
        if toSkip == 0 { return 0 }
        var found = size
        try forEachChunk(from: 0) { bytes, at in
            for i in bytes.indices where bytes[i] == 10 {
                toSkip -= 1
                if toSkip == 0 { found = at + Int64(i) + 1; return false }
            }
            return true
        }
        return found
    }

    /// The offset where the last `count` lines start (a final `\n` ends the last line, it does
    /// not start an empty one); no further back than `maxBytes` from the end (the window then
    /// starts at the first whole line within it).
    func offsetOfLastLines(_ count: Int, maxBytes: Int64) throws(WorkspaceError) -> Int64 {
        guard count > 0, size > 0 else { return size }
        var end = size
        let last = try Sys.pread(fd, count: 1, offset: size - 1, path: path.string)
        if last.first == 10 { end -= 1 }  // the last line's own newline
        var remaining = count
        var at = end
        let floor = max(0, size - maxBytes)
        while at > floor {
            let from = max(floor, at - Int64(Self.chunk))
            let bytes = try Sys.pread(fd, count: Int(at - from), offset: from, path: path.string)
            for i in bytes.indices.reversed() where bytes[i] == 10 {
                remaining -= 1
                if remaining == 0 { return from + Int64(i) + 1 }
            }
            at = from
        }
        if floor == 0 { return 0 }
        // Cut by maxBytes: start after the first newline within reach (a whole line).
        var start = size
        try forEachChunk(from: floor) { bytes, at in
            guard let i = bytes.firstIndex(of: 10) else { return true }
            start = at + Int64(i) + 1
            return false
        }
        if start >= size { throw tooLong(at: floor, maxBytes: maxBytes) }
        return start
    }

    /// Where `count` lines from `start` end (all to the end when nil) and how many there are,
    /// cut back to the last whole line within `maxBytes`.
    func endOfLines(from start: Int64, count: Int?, maxBytes: Int64) throws(WorkspaceError) -> (Int64, Int) {
        if count == 0 || start >= size { return (start, 0) }
        let limit = min(size, start + maxBytes)
        var lines = 0
        var end = start
        var done = false
        try forEachChunk(from: start) { bytes, at in
            for i in bytes.indices where bytes[i] == 10 {
                let lineEnd = at + Int64(i) + 1
                if lineEnd > limit { done = true; return false }
                lines += 1
                end = lineEnd
                if lines == count { done = true; return false }
            }
            return at + Int64(bytes.count) < limit
        }
        if !done, size <= limit, end < size {  // a last line without a newline, within reach
            lines += 1
            end = size
        }
        if lines == 0 { throw tooLong(at: start, maxBytes: maxBytes) }
        return (end, lines)
    }

    func tooLong(at offset: Int64, maxBytes: Int64) -> WorkspaceError {
        WorkspaceError(.tooLarge,
                       "'\(path)' has a line longer than \(maxBytes) bytes at byte \(offset): read it in byte ranges with offset and length",
                       path: path.string, details: ["size": .int(size), "limit": .int(maxBytes)])
    }
}
