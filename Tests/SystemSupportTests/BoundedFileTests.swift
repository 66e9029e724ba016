#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import Testing

@Suite("BoundedFile")
struct BoundedFileTests {
    private static func folder() -> String {
        var template = Array("/tmp/bounded-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }

    private static func remove(_ dir: String) {
        for name in FileIO.names(inFolder: dir) ?? [] {
            if unlink(dir + "/" + name) != 0 { rmdir(dir + "/" + name) }
        }
        rmdir(dir)
    }

    private static func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        _ = FileIO.writeAll(fd, bytes)
        close(fd)
    }

    /// The process's peak resident memory, in KiB.
    private static func peakKiB() -> Int {
        var u = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &u)
        return Int(u.ru_maxrss) / 1024  // bytes there
        #else
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Int(u.ru_maxrss)
        #endif
    }

    @Test("readToEnd with a limit gives a file of exactly the limit, and EFBIG for one byte more (file or pipe)")
    func limit() throws {
        let dir = Self.folder(); defer { Self.remove(dir) }
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0) }
        Self.write(dir + "/f", bytes)
        let fd = open(dir + "/f", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(FileIO.readToEnd(fd, limit: 10_000) == bytes)
        lseek(fd, 0, SEEK_SET)
        errno = 0
        #expect(FileIO.readToEnd(fd, limit: 9_999) == nil && errno == EFBIG)
        lseek(fd, 0, SEEK_SET)
        #expect(FileIO.readToEnd(fd, limit: 0) == nil && errno == EFBIG)

        var fds: [Int32] = [0, 0]  // a pipe has no size to go by
        try #require(pipe(&fds) == 0)
        #expect(FileIO.writeAll(fds[1], Array(repeating: 7, count: 5_000)))
        close(fds[1])
        errno = 0
        #expect(FileIO.readToEnd(fds[0], limit: 4_096) == nil && errno == EFBIG)
        close(fds[0])
    }

    @Test("a 64 GiB sparse file is refused without holding more than its cap")
    func sparse() throws {
        let dir = Self.folder(); defer { Self.remove(dir) }
        let path = dir + "/device-conditions.json"
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        try #require(ftruncate(fd, 64 << 30) == 0)
        close(fd)
        let before = Self.peakKiB()
        guard case .ignored(let why) = BoundedFile.read(path, .deviceConditions) else {
            Issue.record("a 64 GiB file was not ignored")
            return
        }
        #expect(why.contains("the device conditions") && why.contains(path) && why.contains("larger than 65536 bytes"))
        #expect(Self.peakKiB() - before < 8 << 10)
    }

    @Test("absent, a regular file, and what is not one (folder, FIFO without waiting, a link when not followed)")
    func kinds() throws {
        let dir = Self.folder(); defer { Self.remove(dir) }
        let cap = FileCap(what: "a test file", bytes: 16)
        #expect(BoundedFile.read(dir + "/missing", cap) == .absent)
        #expect(BoundedFile.read(dir + "/missing/below", cap) == .absent)
        Self.write(dir + "/small", Array("{\"a\":1}".utf8))
        #expect(BoundedFile.read(dir + "/small", cap) == .bytes(Array("{\"a\":1}".utf8)))
        Self.write(dir + "/file", [])
        #expect(BoundedFile.read(dir + "/file/below", cap) == .absent)  // ENOTDIR
        mkdir(dir + "/folder", 0o700)
        try #require(mkfifo(dir + "/fifo", 0o600) == 0)
        try #require(symlink(dir + "/small", dir + "/link") == 0)
        for name in ["folder", "fifo"] {
            guard case .ignored(let why) = BoundedFile.read(dir + "/" + name, cap) else {
                Issue.record("\(name) was not ignored")
                continue
            }
            #expect(why.contains("not a regular file"))
        }
        #expect(BoundedFile.read(dir + "/link", cap) == .bytes(Array("{\"a\":1}".utf8)))
        guard case .ignored = BoundedFile.read(dir + "/link", cap, followLinks: false) else {
            Issue.record("a link was followed")
            return
        }
        let d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(d) }
        #expect(BoundedFile.read("small", cap, in: d, followLinks: false) == .bytes(Array("{\"a\":1}".utf8)))
    }
}

@Suite("ProcessIdentity")
struct ProcessIdentityTests {
    @Test("this process is known, running, and the same every time; another start time is another process")
    func current() throws {
        #if os(Linux) || canImport(Darwin)
        let me = try #require(ProcessIdentity.current)
        #expect(me.pid == getpid() && !me.start.isEmpty)
        #expect(ProcessIdentity.of(getpid()) == me && me.isRunning)
        #expect(!ProcessIdentity(pid: me.pid, start: me.start + "0").isRunning)
        #expect(ProcessIdentity.of(0) == nil && ProcessIdentity.of(-1) == nil)
        #endif
    }

    @Test("a process that ended (and was reaped) is no longer running")
    func ended() throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("read x"), nil]
        defer { for a in argv { free(a) } }
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])  // else the child holds its own input open
        defer { posix_spawn_file_actions_destroy(&actions) }
        try #require(posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0)
        close(fds[0])
        let child = try #require(ProcessIdentity.of(pid))
        #expect(child.isRunning && child != ProcessIdentity.current)
        close(fds[1])  // `read` sees the end of input: the child exits
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        #expect(!child.isRunning && ProcessIdentity.of(pid) == nil)
    }
}
