#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

/// The ignore files in force during one walk of the workspace, folder by folder: each folder's
/// `.ignore` and `.gitignore`, and the root's `.stignore`. A walk hands each folder it goes into
/// a copy that has `enter`ed it (a value: parallel reads of sibling folders each hold their own).
///
/// Precedence (ripgrep's, which is git's for `.gitignore` alone): a rule of a deeper folder wins
/// over a shallower one; any `.ignore` rule wins over any `.gitignore` rule; within one file,
/// its own syntax decides (git: the last match). `.stignore` is Syncthing's own list: what it
/// ignores is ignored whatever the git-style files say (they cannot re-include it), and the
/// reverse. An ignore file over `FileCap.ignoreFile`, unreadable, or a link, is not honoured.
struct IgnoreMatcher: Sendable {
    private struct Frame {
        /// The number of bytes of the folder's path plus its `/` (0 for the root): the entry's
        /// path from there on is relative to the folder.
        var prefix: Int
        var depth: Int
        var ignore: IgnoreFile?
        var gitignore: IgnoreFile?
    }

    private var frames: [Frame] = []
    private var stignore: IgnoreFile?

    /// A matcher for a walk that starts at `start`: the root's `.stignore` and the ignore files
    /// of every folder from the root down to `start` (which it has entered).
    init(root: SandboxedRoot, start: WorkspacePath) throws(WorkspaceError) {
        var folder = WorkspacePath.root
        let rootDir = try root.openDirectory(.root)
        stignore = Self.load(".stignore", in: rootDir, syntax: .syncthing)
        enter(rootDir, path: .root)
        for component in start.components {
            folder = folder.appending(component)
            guard let dir = try? root.openDirectory(folder) else { break }
            enter(dir, path: folder)
        }
    }

    /// Whether no ignore file is in force.
    var isEmpty: Bool { frames.isEmpty && stignore == nil }

    /// Takes in the ignore files of the folder `dir` at `path`, which the walk goes into.
    mutating func enter(_ dir: FileDescriptor, path: WorkspacePath) {
        let ignore = Self.load(".ignore", in: dir, syntax: .git)
        let gitignore = Self.load(".gitignore", in: dir, syntax: .git)
        guard ignore != nil || gitignore != nil else { return }
        let prefix = path.isRoot ? 0 : path.string.utf8.count + 1
        frames.append(Frame(prefix: prefix, depth: path.components.count, ignore: ignore, gitignore: gitignore))
    }

    /// What a folder's entries' paths start with (its path and a `/`; nothing for the root), for
    /// `isIgnored(name:in:isDirectory:)`.
    static func prefix(of folder: WorkspacePath) -> [UInt8] {
        folder.isRoot ? [] : Array(folder.string.utf8) + [UInt8(ascii: "/")]
    }

    /// Whether the entry `name` (a folder when `isDirectory`) of the folder whose `prefix(of:)`
    /// is `folder` is ignored, in a walk that has entered that folder.
    func isIgnored(name: String, in folder: [UInt8], isDirectory: Bool) -> Bool {
        if isEmpty { return false }
        let bytes = folder + name.utf8
        let name = bytes[folder.count...]
        if gitDecision(bytes, name: name, isDirectory: isDirectory) == true { return true }
        return stignore?.decision(path: bytes[...], name: name, isDirectory: isDirectory) ?? false
    }

    /// What the `.ignore` files say (deepest first), else what the `.gitignore` files say.
    private func gitDecision(_ bytes: [UInt8], name: ArraySlice<UInt8>, isDirectory: Bool) -> Bool? {
        for frame in frames.reversed() {
            if let d = frame.ignore?.decision(path: bytes[frame.prefix...], name: name, isDirectory: isDirectory) { return d }
        }
        for frame in frames.reversed() {
            if let d = frame.gitignore?.decision(path: bytes[frame.prefix...], name: name, isDirectory: isDirectory) { return d }
        }
        return nil
    }

    private static func load(_ name: String, in dir: FileDescriptor, syntax: IgnoreFile.Syntax) -> IgnoreFile? {
        guard case .bytes(let text) = BoundedFile.read(name, .ignoreFile, in: dir.raw, followLinks: false) else { return nil }
        let file = IgnoreFile(text, syntax: syntax)
        return file.isEmpty ? nil : file
    }
}
