#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import Testing

/// A fresh folder under /tmp, removed by `remove()`.
private struct Folder {
    let path: String
    init() {
        var template = Array("/tmp/systemsupport-XXXXXX".utf8CString)
        path = String(cString: mkdtemp(&template)!)
    }
    func remove() {
        for name in FileIO.names(inFolder: path) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }
}

@Suite("FileIO")
struct FileIOTests {
    @Test("what writeAll writes, at the position or at an offset, readToEnd and pread read back")
    func roundTrip() throws {
        let dir = Folder(); defer { dir.remove() }
        let fd = open(dir.path + "/f", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(FileIO.writeAll(fd, big))
        #expect(Array("HELLO".utf8).withUnsafeBytes { FileIO.writeAll(fd, $0, at: 10) })
        var expected = big
        expected.replaceSubrange(10..<15, with: Array("HELLO".utf8))
        lseek(fd, 0, SEEK_SET)
        #expect(FileIO.readToEnd(fd) == expected)
        #expect(FileIO.pread(fd, count: 5, offset: 10) == Array("HELLO".utf8))
        #expect(FileIO.pread(fd, count: 100, offset: Int64(big.count - 3)) == Array(expected.suffix(3)))
        #expect(FileIO.pread(fd, count: 4, offset: Int64(big.count) + 10) == [])
    }

    @Test("readToEnd reads files whose size says 0 (procfs) and pipes, to their end")
    func sizelessFiles() throws {
        let status = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        if status >= 0 {
            defer { close(status) }
            let text = String(decoding: FileIO.readToEnd(status) ?? [], as: UTF8.self)
            #expect(text.hasPrefix("Name:") && text.contains("\nPid:"))
        }
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let payload = Array(repeating: UInt8(ascii: "x"), count: 10_000)
        #expect(FileIO.writeAll(fds[1], payload))
        close(fds[1])
        #expect(FileIO.readToEnd(fds[0]) == payload)
        close(fds[0])
    }

    @Test("failures are reported with errno")
    func failures() {
        errno = 0
        #expect(FileIO.readToEnd(-1) == nil && errno == EBADF)
        errno = 0
        #expect(!FileIO.writeAll(-1, [1, 2, 3]) && errno == EBADF)
        #expect(FileIO.pread(-1, count: 1, offset: 0) == nil)
        #expect(FileIO.names(inFolder: "/nonexistent/folder") == nil)
        #expect(!FileIO.syncFolder("/nonexistent/folder"))
        #expect(describeErrno(ENOENT).hasSuffix("(errno \(ENOENT))"))
    }

    @Test("names lists a folder without . and .., and syncFolder flushes it")
    func folders() {
        let dir = Folder(); defer { dir.remove() }
        for name in ["b", "a", ".hidden"] { close(open(dir.path + "/" + name, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)) }
        #expect(FileIO.names(inFolder: dir.path)?.sorted() == [".hidden", "a", "b"])
        #expect(FileIO.syncFolder(dir.path))
    }
}
