#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Workspace

/// Path resolution through the workspace API, against `PathTree` (a root full of links).
///
/// Input: byte 0 picks the operation (read, info, info with SHA-256, list, recursive list,
/// exclusive save, or with bit 6 an empty append) and options; each further byte is a literal ASCII character (below 0x80)
/// or a name from `PathTree.vocabulary` (0x80–0xBF: the name, 0xC0–0xFF: the name and `/`).
/// Invariants:
/// - a path is refused only with a typed `WorkspaceError`; an accepted path has no empty,
///   `.` or `..` component and none holding `/` or NUL;
/// - a read succeeds only for a regular file reached without any link, and returns exactly
///   that file's bytes (so no link was followed, in or out); its realpath is inside the root;
/// - info succeeds only for an entry reached without a link before its last component, and
///   reports the entry itself (a link as a link);
/// - a listing succeeds only for a folder reached without a link, and lists only entries
///   beneath it, never entering a link;
/// - a save lands on a new regular file inside the root (then deleted), and the folder
///   outside never changes; an append succeeds only on a regular file reached without a link
///   (or a new one, then deleted);
/// - a FIFO, socket or device reached without a link is never opened: a read, a SHA-256 and an
///   append answer `NotARegularFile` naming its type (and promptly: a hang is a libFuzzer timeout);
/// - conversely, a client path to a plain file or folder reached without links is never
///   refused (the sandbox does not over-refuse); the server's private names always are.
public enum PathTarget: FuzzTarget {
    public static let name = "paths"

    public static func check(_ input: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var reader = ByteReader(input)
        let op = reader.byte()
        var raw = ""
        while !reader.isAtEnd {
            let b = reader.byte()
            if b < 0x80 {
                raw.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                raw += PathTree.vocabulary[Int(b & 0x3F) % PathTree.vocabulary.count]
                if b >= 0xC0 { raw += "/" }
            }
        }
        let path: WorkspacePath
        do { path = try WorkspacePath(raw) } catch { return }
        try require(path.components.allSatisfy { c in
            !c.isEmpty && c != "." && c != ".." && !c.contains("/") && !c.utf8.contains(0)
        }, "WorkspacePath accepted '\(raw)' as \(path.components)")

        let tree = PathTree.shared
        let lexical = tree.lexical(path.components)
        let reserved = !path.isRoot && Workspace.isServerPrivate(relativePath: path.string)
        switch op % 6 {
        case 0: try checkRead(path, lexical, reserved, tree)
        case 1, 2: try checkInfo(path, lexical, reserved, tree, sha256: op % 6 == 2)
        case 3, 4: try checkList(path, lexical, reserved, tree, recursive: op % 6 == 4, hidden: op & 0x80 != 0)
        default:
            if op & 0x40 != 0 { try checkAppend(path, lexical, reserved, tree) } else { try checkSave(path, lexical, reserved, tree) }
        }
    }

    static func checkRead(_ path: WorkspacePath, _ lexical: PathTree.Lexical, _ reserved: Bool, _ tree: PathTree) throws(FuzzFailure) {
        switch Result(catching: { try tree.workspace.read(path, maxBytes: 1 << 16) }) {
        case .success(let result):
            try require(!reserved, "read the server's private '\(path)'")
            try require(lexical == .entry(S_IFREG), "read '\(path)' succeeded, but the path is \(lexical)")
            try require(result.bytes == Array("inside:\(path.string)".utf8),
                        "read '\(path)' returned another file: \(String(decoding: result.bytes.prefix(100), as: UTF8.self))")
            try requireInside(path, tree)
        case .failure(let error):
            try require(error is WorkspaceError, "read '\(path)' threw an untyped error: \(error)")
            try require(reserved || lexical != .entry(S_IFREG), "reading the plain file '\(path)' was refused: \(error)")
            if !reserved { try requireNotRegularAnswer(error as? WorkspaceError, path, lexical, "read") }
        }
    }

    static func checkInfo(_ path: WorkspacePath, _ lexical: PathTree.Lexical, _ reserved: Bool, _ tree: PathTree,
                          sha256: Bool) throws(FuzzFailure) {
        let lastIsLink = !path.isRoot && lexical == .link(at: path.components.count - 1)
        switch Result(catching: { () throws(WorkspaceError) in try tree.workspace.info(path, sha256: sha256) }) {
        case .success(let (status, hash)):
            try require(!reserved, "info on the server's private '\(path)'")
            try require(status.path == path, "info on '\(path)' reported '\(status.path)'")
            switch lexical {
            case .entry(let type):
                try require(status.type == EntryType(mode: type), "info on '\(path)' says \(status.type)")
                if sha256 { try require(type == S_IFREG && hash?.utf8.count == 64, "a SHA-256 of '\(path)', a \(status.type)") }
            case .link where lastIsLink:
                try require(status.type == .symlink && !sha256, "info on the link '\(path)' says \(status.type)")
            default:
                throw FuzzFailure("info on '\(path)' succeeded, but the path is \(lexical)")
            }
        case .failure(let error):
            guard case .entry(let type) = lexical, !reserved else { return }
            try require(sha256 && type != S_IFREG, "info on '\(path)' (no link on the way) was refused: \(error)")
            try requireNotRegularAnswer(error, path, lexical, "SHA-256")
        }
    }

    static func checkList(_ path: WorkspacePath, _ lexical: PathTree.Lexical, _ reserved: Bool, _ tree: PathTree,
                          recursive: Bool, hidden: Bool) throws(FuzzFailure) {
        var options = Workspace.ListOptions()
        options.path = path
        options.recursive = recursive
        options.maxDepth = 4
        options.includeHidden = hidden
        switch Result(catching: { () throws(WorkspaceError) in try tree.workspace.list(options) }) {
        case .success(let page):
            try require(!reserved, "listed the server's private '\(path)'")
            try require(lexical == .entry(S_IFDIR), "listing '\(path)' succeeded, but the path is \(lexical)")
            for entry in page.entries {
                try require(entry.path.isWithin(path) && entry.path != path, "listing '\(path)' holds '\(entry.path)'")
                try require(!Workspace.isServerPrivate(relativePath: entry.path.string) || (hidden && entry.path.components.count == 1),
                            "listing '\(path)' shows the server's '\(entry.path)'")
                switch tree.lexical(entry.path.components) {
                case .entry: break
                case .link(let at) where at == entry.path.components.count - 1:
                    try require(entry.type == .symlink, "the link '\(entry.path)' is listed as \(entry.type)")
                case let other: throw FuzzFailure("listing '\(path)' entered a link: '\(entry.path)' is \(other)")
                }
            }
        case .failure(let error):
            try require(reserved || lexical != .entry(S_IFDIR), "listing the folder '\(path)' was refused: \(error)")
        }
    }

    static func checkSave(_ path: WorkspacePath, _ lexical: PathTree.Lexical, _ reserved: Bool, _ tree: PathTree) throws(FuzzFailure) {
        let options = Workspace.SaveOptions(createParents: false, exclusive: true)
        let saved = Result(catching: { () throws(WorkspaceError) in
            try tree.workspace.save(path, contents: Array("inside:\(path.string)".utf8), options: options)
        })
        if case .success = saved {
            try require(!reserved, "saved the server's private '\(path)'")
            try require(lexical == .missing, "an exclusive save over '\(path)' succeeded, but the path was \(lexical)")
            try require(tree.lexical(path.components) == .entry(S_IFREG), "the saved '\(path)' is not a plain file")
            try requireInside(path, tree)
            do { try tree.workspace.delete(path, recursive: false) } catch {
                throw FuzzFailure("cannot delete the saved '\(path)': \(error)")
            }
        }
        // A refusal is fine; what matters is that nothing happened outside.
        try require(PathTree.names(tree.outside) == tree.outsideNames, "the folder outside the root changed")
    }

    static func checkAppend(_ path: WorkspacePath, _ lexical: PathTree.Lexical, _ reserved: Bool, _ tree: PathTree) throws(FuzzFailure) {
        let before = tree.lexical(path.components)
        switch Result(catching: { () throws(WorkspaceError) in try tree.workspace.append(path, contents: [], createParents: false) }) {
        case .success(let status):
            try require(!reserved, "appended to the server's private '\(path)'")
            try require(lexical == .entry(S_IFREG) || lexical == .missing, "an append to '\(path)' succeeded, but the path was \(lexical)")
            try require(status.type == .file, "the appended '\(path)' is a \(status.type)")
            try requireInside(path, tree)
            if lexical == .missing {
                do { try tree.workspace.delete(path, recursive: false) } catch {
                    throw FuzzFailure("cannot delete the appended '\(path)': \(error)")
                }
            }
        case .failure(let error):
            try require(reserved || lexical != .entry(S_IFREG), "appending to the plain file '\(path)' was refused: \(error)")
            if !reserved { try requireNotRegularAnswer(error, path, lexical, "append") }
        }
        try require(tree.lexical(path.components) == before || before == .missing, "an append changed what '\(path)' is")
        try require(PathTree.names(tree.outside) == tree.outsideNames, "the folder outside the root changed")
    }

    /// A FIFO, socket or device reached without a link is refused as NotARegularFile, naming its type.
    private static func requireNotRegularAnswer(_ error: WorkspaceError?, _ path: WorkspacePath, _ lexical: PathTree.Lexical,
                                                _ what: String) throws(FuzzFailure) {
        guard case .entry(let type) = lexical, EntryType(mode: type).isSpecial else { return }
        try require(error?.code == .notARegularFile && error?.details["type"] == .string(EntryType(mode: type).rawValue),
                    "\(what) of the special file '\(path)' (\(EntryType(mode: type))) answered \(String(describing: error))")
    }

    private static func requireInside(_ path: WorkspacePath, _ tree: PathTree) throws(FuzzFailure) {
        guard let real = tree.realPath(path.components) else { throw FuzzFailure("'\(path)' has no realpath") }
        try require(tree.isInsideRoot(real), "'\(path)' resolves outside the root, to \(real)")
    }
}
