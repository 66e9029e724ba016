#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import Workspace

/// A workspace full of symbolic links (to `/`, to `..`, to absolute and relative paths
/// outside, loops, chains, dangling ones, links to files and folders inside) and special files
/// (FIFOs, a Unix socket, a character device where mknod is allowed, and a link to a FIFO),
/// next to an `outside` folder holding a secret and a FIFO, built once per process.
///
/// Every regular file inside the root holds `inside:<its workspace path>`, so a successful
/// read proves which file was opened; every file outside holds `OUTSIDE`.
final class PathTree: Sendable {
    static let shared = PathTree()

    let base: String
    let root: String
    let outside: String
    let workspace: Workspace
    /// The outside folder's names, to notice a write that escaped.
    let outsideNames: [String]

    static let files = ["top.txt", "a/file", "a/b/c/deep.txt", "a/b/c/.hidden", "sp ace", "ünï/x", "%41/y",
                        ".workspace/private.txt", "a/.syncthing.x.wb-0000000000000000.tmp"]
    static let links: [(String, String)] = [
        ("up", ".."), ("abs", "/"), ("outrel", "../outside"), ("self", "."), ("loop1", "loop2"), ("loop2", "loop1"),
        ("dangling", "does/not/exist"), ("inner", "a/file"), ("innerdir", "a/b"), ("proc", "/proc/self/root"),
        ("etc", "/etc"), ("a/b/up2", "../.."), ("a/b/c/esc", "../../../../outside/secret"),
        ("a/b/c/chain", "../../../up"), ("a/b/c/deeper", "../../../a/b/c"),
    ]

    /// Names the path generator picks from (tree names, links, and hostile spellings).
    static let vocabulary: [String] = [
        "a", "b", "c", "file", "deep.txt", ".hidden", "top.txt", "sp ace", "ünï", "x", "%41", "y", "up", "abs", "out",
        "outrel", "secret", "up2", "esc", "loop1", "loop2", "self", "dangling", "inner", "innerdir", "proc", "etc",
        "chain", "deeper", "outside", "root", "passwd", ".workspace", "private.txt", ".wb-staging.nosync",
        ".syncthing.x.wb-0000000000000000.tmp", "..", ".", "", "%2e%2e", "%2E", "%252e%252e", "%2f", "~", "\\", "C:",
        "new", "self/self", "up/root", "../outside", "pipe", "sock", "null", "pipelink",
    ]

    /// Special files inside the root: FIFOs, a socket, a character device (/dev/null's numbers;
    /// only where mknod is allowed). Opening any of them for bytes must be refused at once.
    static let fifos = ["pipe", "a/b/pipe"]
    static let sockets = ["sock"]
    static let devices = ["null"]

    private init() {
        base = TempFolder.make("paths")
        root = base + "/root"
        outside = base + "/outside"
        for dir in [root, outside, outside + "/sub"] { mkdir(dir, 0o755) }
        Self.writeFile(outside + "/secret", "OUTSIDE")
        Self.writeFile(outside + "/sub/secret2", "OUTSIDE")
        for file in Self.files {
            var prefix = root
            for part in file.split(separator: "/").dropLast() {
                prefix += "/" + part
                mkdir(prefix, 0o755)
            }
            Self.writeFile(root + "/" + file, "inside:" + file)
        }
        for (name, target) in Self.links { symlink(target, root + "/" + name) }
        for fifo in Self.fifos { mkfifo(root + "/" + fifo, 0o644) }
        mkfifo(outside + "/pipe", 0o644)
        for sock in Self.sockets { Self.makeSocket(root + "/" + sock) }
        for device in Self.devices { _ = mknod(root + "/" + device, S_IFCHR | 0o600, dev_t((1 << 8) | 3)) }
        symlink("pipe", root + "/pipelink")
        symlink(outside, root + "/out")
        symlink(outside + "/secret", root + "/a/secret")
        do {
            workspace = try Workspace(rootPath: root, bootstrap: false)
        } catch {
            fatalError("cannot open the fuzz workspace: \(error)")
        }
        outsideNames = Self.names(outside)
    }

    static func writeFile(_ path: String, _ text: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "cannot create \(path)")
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// A Unix socket bound at `path` (nobody listens; the socket file stays after the close).
    static func makeSocket(_ path: String) {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { return }
        defer { close(s) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let fits = withUnsafeMutableBytes(of: &addr.sun_path) { buf -> Bool in
            guard path.utf8.count < buf.count else { return false }
            for (i, b) in path.utf8.enumerated() { buf[i] = b }
            return true
        }
        guard fits else { return }
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    static func names(_ folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    /// What the host file system holds at `components` below the root, looked at with lstat
    /// and never through a link.
    enum Lexical: Equatable {
        case missing
        /// Component number `at` is a symbolic link.
        case link(at: Int)
        /// An entry of this type (`S_IFREG`, `S_IFDIR`, …), no link on the way.
        case entry(mode_t)
    }

    func lexical(_ components: [String]) -> Lexical {
        var path = root
        var type = S_IFDIR
        for (i, c) in components.enumerated() {
            guard type == S_IFDIR else { return .missing }
            path += "/" + c
            var st = stat()
            // A component is a client path's text: a name that is not UTF-8 is spelled escaped.
            guard lstat(EscapedName.cString(path), &st) == 0 else { return .missing }
            type = st.st_mode & S_IFMT
            if type == S_IFLNK { return .link(at: i) }
        }
        return .entry(type)
    }

    /// The realpath of `components` below the root, when it resolves.
    func realPath(_ components: [String]) -> String? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let joined = ([root] + components).joined(separator: "/")
        guard realpath(EscapedName.cString(joined), &buf) != nil else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func isInsideRoot(_ real: String) -> Bool {
        let rootReal = workspace.rootPath
        return real == rootReal || real.hasPrefix(rootReal + "/")
    }
}
