#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import CWorkspaceShims

extension Workspace {
    /// What a copy made, and what it left out.
    public struct CopyResult: Sendable {
        /// The destination.
        public var status: FileStatus
        /// Entries of a copied folder that were not copied (FIFOs, sockets, devices, links), in
        /// listing order.
        public var skipped: [SkippedEntry]
    }

    /// Copies a file (crash-safely, like `save`) or a folder with its contents. Links, FIFOs,
    /// sockets and devices inside a copied folder are skipped, never followed or read, and
    /// reported in `skipped`. Without `overwrite` an existing destination is `AlreadyExists`;
    /// a folder is only copied to a destination that does not exist, and a folder copy that is
    /// cancelled or fails removes what it had made (the destination is absent again). A folder
    /// copy reports `progress` after each file it copied.
    public func copy(from: WorkspacePath, to: WorkspacePath, overwrite: Bool, isCancelled: () -> Bool = { false },
                     progress: (CopyProgress) -> Void = { _ in })
        throws(WorkspaceError) -> CopyResult
    {
        try checkClientPath(from)
        try checkClientPath(to)
        guard !to.isRoot else { throw WorkspaceError(.alreadyExists, "the workspace root already exists", path: "") }
        if to.isWithin(from) { throw WorkspaceError(.invalidArgument, "cannot copy '\(from)' into itself ('\(to)')", path: to.string) }
        let source = try status(from)
        switch source.type {
        case .file:
            return CopyResult(status: try copyFile(from: from, to: to, overwrite: overwrite, isCancelled: isCancelled), skipped: [])
        case .directory:
            return try copyFolder(from: from, to: to, isCancelled: isCancelled, progress: progress)
        case .symlink:
            throw .symlink(from.string)
        default:
            throw .notARegularFile(from.string, type: source.type)
        }
    }

    func copyFile(from: WorkspacePath, to: WorkspacePath, overwrite: Bool, isCancelled: () -> Bool) throws(WorkspaceError) -> FileStatus {
        let input = try root.openFile(from)
        let dst = try root.makeDirectories(to.parent)
        Sys.lock(dst.raw)
        defer { Sys.unlock(dst.raw) }
        return try replace(in: dst, path: to, options: SaveOptions(exclusive: !overwrite)) { out throws(WorkspaceError) in
            try Self.copyBytes(from: input.raw, to: out, path: to.string, isCancelled: isCancelled)
        }
    }

    /// Copies every byte of `input` into `output` (copy_file_range on Linux, which lets the
    /// kernel or file system do it without a trip through user space).
    static func copyBytes(from input: Int32, to output: Int32, path: String, isCancelled: () -> Bool) throws(WorkspaceError) {
        var usedKernel = false
        while true {
            if isCancelled() { throw WorkspaceError(.cancelled, "cancelled", path: path) }
            let n = wb_copy_file_range(input, output, 1 << 30)
            if n > 0 { usedKernel = true; continue }
            if n == 0 { return }
            if errno == EINTR { continue }
            if !usedKernel && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) { break }
            throw .errno(errno, "copy", path: path)
        }
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            if isCancelled() { throw WorkspaceError(.cancelled, "cancelled", path: path) }
            let n = buf.withUnsafeMutableBytes { Sys.read(input, $0) }
            if n < 0 { if errno == EINTR { continue }; throw .errno(errno, "read", path: path) }
            if n == 0 { return }
            var failure: WorkspaceError?
            buf.withUnsafeBytes { b in
                do throws(WorkspaceError) { try Sys.writeAll(output, UnsafeRawBufferPointer(rebasing: b[0..<n]), path: path) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    // MARK: The trusted host's fast paths

    /// Imports a file from an absolute host path, atomically and durably like `save`.
    public func importFile(source: String, to path: WorkspacePath, overwrite: Bool, isCancelled: () -> Bool = { false })
        throws(WorkspaceError) -> FileStatus
    {
        try checkClientPath(path)
        guard source.hasPrefix("/") else { throw WorkspaceError(.invalidArgument, "source must be an absolute path", path: source) }
        // The host path is trusted (links followed), but never waited on: a FIFO is refused at once.
        let input = FileDescriptor(try Sys.openRegular(AT_FDCWD, source, flags: O_RDONLY, path: source))
        let dst = try root.makeDirectories(path.parent)
        Sys.lock(dst.raw)
        defer { Sys.unlock(dst.raw) }
        return try replace(in: dst, path: path, options: SaveOptions(exclusive: !overwrite)) { out throws(WorkspaceError) in
            try Self.copyBytes(from: input.raw, to: out, path: path.string, isCancelled: isCancelled)
        }
    }

    /// Exports a workspace file to an absolute host path: a temp file beside the destination,
    /// flushed and renamed into place. Returns the exported file's size.
    public func exportFile(_ path: WorkspacePath, destination: String, overwrite: Bool, isCancelled: () -> Bool = { false })
        throws(WorkspaceError) -> Int64
    {
        try checkClientPath(path)
        guard destination.hasPrefix("/"), !destination.hasSuffix("/"), let slash = destination.lastIndex(of: "/") else {
            throw WorkspaceError(.invalidArgument, "destination must be an absolute file path", path: destination)
        }
        let input = try root.openFile(path)
        let st = try Sys.fstat(input.raw, path: path.string)
        let dirPath = slash == destination.startIndex ? "/" : String(destination[..<slash])
        let name = String(destination[destination.index(after: slash)...])
        let dirRaw = open(dirPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirRaw >= 0 else { throw .errno(errno, "open the destination folder", path: dirPath) }
        let dir = FileDescriptor(dirRaw)
        if let existing = Sys.lstat(dir.raw, name) {
            if !overwrite { throw WorkspaceError(.alreadyExists, "'\(destination)' already exists", path: destination) }
            // Some program's FIFO, socket or device on the host is never replaced by a file.
            let type = EntryType(mode: existing.st_mode)
            if type.isSpecial { throw .notARegularFile(destination, type: type) }
        }
        let temp = try LiveTempFiles.create(in: dir, for: name, flags: O_WRONLY, mode: 0o644, path: destination)
        defer { LiveTempFiles.forget(temp.token) }
        let (tmp, out) = (temp.name, temp.file)
        var done = false
        defer { if !done { unlinkat(dir.raw, tmp.onDisk, 0) } }
        try Self.copyBytes(from: input.raw, to: out.raw, path: destination, isCancelled: isCancelled)
        try Sys.fsync(out.raw, path: destination)
        if overwrite {
            if renameat(dir.raw, tmp.onDisk, dir.raw, name.onDisk) != 0 { throw .errno(errno, "write", path: destination) }
        } else if linkat(dir.raw, tmp.onDisk, dir.raw, name.onDisk, 0) != 0 {
            throw errno == EEXIST ? WorkspaceError(.alreadyExists, "'\(destination)' already exists", path: destination)
                : .errno(errno, "write", path: destination)
        } else {
            unlinkat(dir.raw, tmp.onDisk, 0)
        }
        done = true
        try Sys.fsync(dir.raw, path: dirPath)
        return Int64(st.st_size)
    }

    /// A `file://` URI for a workspace path (for a host on the same machine).
    /// The path must lead to something inside the workspace without any link on the way (it may
    /// not exist yet, but its folder must).
    public func fileURI(_ path: WorkspacePath) throws(WorkspaceError) -> String {
        if !path.isRoot {
            try checkClientPath(path)
            let parent = try root.openDirectory(path.parent)
            if let st = Sys.lstat(parent.raw, path.name), st.isSymlink { throw .symlink(path.string) }
        }
        // The URI names the bytes on disk: an escaped name's real bytes (`caf\xe9` as `caf%E9`).
        let full = Array(rootPath.utf8) + (path.isRoot ? [] : [UInt8(ascii: "/")] + EscapedName.bytes(path.string))
        var out = "file://"
        for b in full {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
