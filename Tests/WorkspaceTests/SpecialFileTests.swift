#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Workspace

/// The one open of a file's bytes (`wb_open_regular` behind `SandboxedRoot.openFile` and
/// `Sys.openRegular`): never waits on a FIFO, socket or device, names what it found, and hands
/// back a blocking descriptor of a regular file only.
@Suite("Opening special files")
struct SpecialFileTests {
    private func makeSocket(_ path: String) {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in
            for (i, b) in path.utf8.enumerated() where i < buf.count - 1 { buf[i] = b }
        }
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(r == 0, "bind \(path): errno \(errno)")
        close(s)
    }

    private func expectNotRegular(_ type: EntryType, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected NotARegularFile")
        } catch {
            let e = error as? WorkspaceError
            #expect(e?.code == .notARegularFile)
            #expect(e?.details["type"] == .string(type.rawValue))
        }
    }

    @Test("a FIFO is refused at once for reading and for writing, with or without a peer")
    func fifo() throws {
        let rootPath = tempRoot()
        let ws = try Workspace(rootPath: rootPath, bootstrap: false)
        #expect(mkfifo(rootPath + "/pipe", 0o644) == 0)
        let p = try WorkspacePath("pipe")
        expectNotRegular(.fifo) { () throws in _ = try ws.root.openFile(p) }
        expectNotRegular(.fifo) { () throws in _ = try ws.root.openFile(p, flags: O_WRONLY) }
        // With a reader holding the other end, a write open would succeed: fstat still refuses it.
        let reader = open(rootPath + "/pipe", O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        expectNotRegular(.fifo) { () throws in _ = try ws.append(p, contents: Array("leak".utf8)) }
        var byte: UInt8 = 0
        #expect(read(reader, &byte, 1) <= 0, "bytes reached the FIFO")
        expectNotRegular(.fifo) { () throws in _ = try ws.read(p, maxBytes: 1 << 20) }
        expectNotRegular(.fifo) { () throws in _ = try ws.info(p, sha256: true) }
        expectNotRegular(.fifo) { () throws in _ = try ws.save(p, contents: [1]) }
        #expect(try ws.status(p).type == .fifo)
        // The host form answers like open(2): -1 with ENXIO.
        #expect(Sys.openRegularHost(rootPath + "/pipe", flags: O_WRONLY) == -1 && errno == ENXIO)
    }

    @Test("a socket, which open(2) itself refuses with ENXIO, is named a socket")
    func unixSocket() throws {
        let rootPath = tempRoot()
        let ws = try Workspace(rootPath: rootPath, bootstrap: false)
        makeSocket(rootPath + "/s")
        expectNotRegular(.socket) { () throws in _ = try ws.read(try! WorkspacePath("s"), maxBytes: 1 << 20) }
        expectNotRegular(.socket) { () throws in _ = try Sys.openRegular(AT_FDCWD, rootPath + "/s", flags: O_RDONLY, path: "s") }
    }

    @Test("a character device is refused before a byte is read", .enabled(if: geteuid() == 0, "mknod needs root"))
    func characterDevice() throws {
        let rootPath = tempRoot()
        let ws = try Workspace(rootPath: rootPath, bootstrap: false)
        #expect(mknod(rootPath + "/null", S_IFCHR | 0o600, dev_t((1 << 8) | 3)  /* makedev(1, 3): /dev/null */) == 0)
        expectNotRegular(.charDevice) { () throws in _ = try ws.read(try! WorkspacePath("null"), maxBytes: 1 << 20) }
        #expect(try ws.status(try WorkspacePath("null")).type == .charDevice)
    }

    @Test("a regular file opens blocking; a folder is IsADirectory; a link SymlinkNotFollowed")
    func ordinaryEntries() throws {
        let rootPath = tempRoot()
        let ws = try Workspace(rootPath: rootPath, bootstrap: false)
        _ = try ws.save(try WorkspacePath("d/f.txt"), contents: Array("hi".utf8))
        #expect(symlink("f.txt", rootPath + "/d/link") == 0)
        let file = try ws.root.openFile(try WorkspacePath("d/f.txt"))
        #expect(fcntl(file.raw, F_GETFL) & O_NONBLOCK == 0)
        for (path, code) in [("d", WorkspaceError.Code.isADirectory), ("d/link", .symlinkNotFollowed)] {
            do {
                _ = try ws.root.openFile(try WorkspacePath(path))
                Issue.record("\(path) opened")
            } catch {
                #expect(error.code == code, "\(path)")
            }
        }
    }

    @Test("a folder copy and the migration walk report every entry they leave out")
    func skippedEntries() throws {
        let rootPath = tempRoot()
        let ws = try Workspace(rootPath: rootPath, bootstrap: false)
        _ = try ws.save(try WorkspacePath("src/a.txt"), contents: [1])
        #expect(mkfifo(rootPath + "/src/pipe", 0o644) == 0)
        #expect(symlink("a.txt", rootPath + "/src/link") == 0)
        let r = try ws.copy(from: try WorkspacePath("src"), to: try WorkspacePath("dst"), overwrite: false)
        #expect(r.skipped.map(\.path.string) == ["src/link", "src/pipe"])
        #expect(r.skipped.map(\.reason) == [.symlinkNotFollowed, .notARegularFile])
        #expect(access(rootPath + "/dst/a.txt", F_OK) == 0 && access(rootPath + "/dst/pipe", F_OK) != 0)
        var files: [String] = []
        var skipped: [SkippedEntry] = []
        try ws.forEachFile(under: try WorkspacePath("src"), skipped: { skipped.append($0) }) { p, _ in files.append(p.string) }
        #expect(files == ["src/a.txt"])
        #expect(skipped.map(\.type) == [.symlink, .fifo])
    }
}
