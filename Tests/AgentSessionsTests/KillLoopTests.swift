#if os(Linux)
import SystemSupport
import Glibc
import JSON
import Testing
@testable import AgentSessions

/// SIGKILL at random moments while a child process forks, compacts, rewrites, undoes and imports:
/// after every kill, everything the child acknowledged is there, whole.
///
/// The child is this test binary running `child()` (enabled only with `WB_KILL_LOOP_DIR` set). It
/// writes a line to `acks` after each call returns: what the store acknowledged.
@Suite("Kill loop", .serialized)
struct KillLoopTests {
    static let dirVariable = "WB_KILL_LOOP_DIR"
    static let owner = "kill-loop"

    @Test("child: the workload the kill loop interrupts", .enabled(if: getenv(KillLoopTests.dirVariable) != nil))
    func child() throws {
        let dir = String(cString: getenv(Self.dirVariable))
        let store = SessionStore(directory: dir + "/.workspace/sessions", owner: Self.owner)
        let acks = open(dir + "/acks", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        func ack(_ line: String) { _ = Array((line + "\n").utf8).withUnsafeBytes { write(acks, $0.baseAddress, $0.count) } }
        let known = Self.acks(dir)
        let main: String
        if let m = known.first(where: { $0.hasPrefix("s ") }) { main = String(m.dropFirst(2)) } else {
            main = try store.create(title: "main").id
            ack("s \(main)")
        }
        var k = known.filter { $0.hasPrefix("m ") }.count
        let pad = String(repeating: "x", count: 900)
        let deadline = MonotonicClock.nanos() + 20_000_000_000
        while MonotonicClock.nanos() < deadline {
            _ = try store.appendMessages(id: main, messages: [MessageInput(id: "m\(k)", role: .user, content: .string("\(k) \(pad)"))])
            ack("m m\(k)")
            k += 1
            let view = try store.messages(id: main, limit: 100_000)
            if k % 7 == 0, let last = view.last, last.compaction == nil {
                let c = try store.compact(id: main, throughMessageId: last.id, summary: .string("through \(last.id)"), by: "loop")
                ack("c \(c.id)")
            }
            if k % 11 == 0 { _ = try store.rewrite(id: main) }
            if k % 13 == 0, let c = view.compactMap(\.compaction).first {
                _ = try store.uncompact(id: main, compactionId: c.id)
                ack("u \(c.id)")
            }
            if k % 17 == 0 {
                let fork = try store.fork(id: main)
                ack("f \(fork.id) \(k)")
            }
            if k % 19 == 0 {
                let imported = try store.importSession(try store.export(id: main).bytes)
                ack("i \(imported.session.id) \(k)")
            }
        }
    }

    static func acks(_ dir: String) -> [String] {
        guard let bytes = try? Disk.readFile(dir + "/acks") else { return [] }
        // A line cut by the kill has no newline: it was not acknowledged.
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        return lines
    }

    @Test("SIGKILL at random moments of forks, compactions, rewrites, undos and imports loses nothing acknowledged")
    func killLoop() throws {
        let f = Fixture()
        var exe = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &exe, exe.count - 1)
        try #require(n > 0)
        let path = String(decoding: exe.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var rng = SystemRandomNumberGenerator()
        var kills = 0
        for round in 0..<12 {
            // Killed after a random number of acknowledged steps and a random moment more, not after
            // a random time: a busy machine does less in the same time, and the steps (forks,
            // imports, undos) are what this must interrupt. The child's own 20 s is the hang guard.
            let before = Self.acks(f.root).count
            let steps = Int.random(in: 1...40, using: &rng)
            let pid = try spawn(path, dir: f.root)
            var status: Int32 = 0
            var exited = false
            while Self.acks(f.root).count < before + steps {
                if waitpid(pid, &status, WNOHANG) == pid { exited = true; break }
                usleep(1_000)
            }
            if !exited {
                usleep(UInt32.random(in: 0...20_000, using: &rng))
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
            }
            if (status & 0x7f) == SIGKILL { kills += 1 }
            try verify(f, round: round)
        }
        let acks = Self.acks(f.root)
        let kinds = ["m", "c", "u", "f", "i"].map { k in "\(k) \(acks.filter { $0.hasPrefix(k + " ") }.count)" }
        print("kill loop: \(kills) of 12 children killed mid-work; acknowledged steps checked: \(kinds.joined(separator: ", "))")
        #expect(kills >= 9)
        #expect(acks.contains { $0.hasPrefix("f ") } && acks.contains { $0.hasPrefix("i ") } && acks.contains { $0.hasPrefix("u ") })
    }

    private func verify(_ f: Fixture, round: Int) throws {
        let acks = Self.acks(f.root)
        guard let s = acks.first(where: { $0.hasPrefix("s ") }) else { return }
        let main = String(s.dropFirst(2))
        let store = SessionStore(directory: f.sessionsDirectory, owner: "checker")
        let all = try store.messages(id: main, limit: 100_000, includeCompacted: true)
        let plain = all.filter { $0.compaction == nil }.map(\.id)
        let acked = acks.filter { $0.hasPrefix("m ") }.map { String($0.dropFirst(2)) }
        // Every acknowledged message, once, in order (a message appended but not acknowledged may follow).
        #expect(Array(plain.prefix(acked.count)) == acked, "round \(round)")
        #expect(Set(plain).count == plain.count, "round \(round)")
        let compactions = try store.get(id: main).compactions
        for line in acks where line.hasPrefix("c ") {
            #expect(compactions.contains { $0.id == String(line.dropFirst(2)) }, "round \(round): \(line)")
        }
        for line in acks where line.hasPrefix("u ") {
            #expect(compactions.first { $0.id == String(line.dropFirst(2)) }?.isActive == false, "round \(round): \(line)")
        }
        for line in acks where line.hasPrefix("f ") || line.hasPrefix("i ") {
            let parts = line.split(separator: " ")
            let id = String(parts[1])
            let upTo = Int(parts[2])!
            let ids = try store.messages(id: id, limit: 100_000, includeCompacted: true).filter { $0.compaction == nil }.map(\.id)
            #expect(ids == (0..<upTo).map { "m\($0)" }, "round \(round): \(line)")
        }
        // Every visible session opens whole (no damaged journal; a torn tail only where the child was appending).
        for listed in try store.list(limit: 1000).sessions {
            _ = try store.messages(id: listed.id, limit: 100_000, includeCompacted: true)
        }
        #expect(!store.drainWarnings().contains { $0.message.contains("damaged") }, "round \(round)")
    }

    private func spawn(_ path: String, dir: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let args = [path, "--testing-library", "swift-testing", "--filter", "AgentSessionsTests.KillLoopTests/child"]
        var env = ["\(Self.dirVariable)=\(dir)"]
        if let p = getenv("PATH") { env.append("PATH=" + String(cString: p)) }
        var cargs = args.map { strdup($0) } + [nil]
        var cenv = env.map { strdup($0) } + [nil]
        defer {
            for p in cargs { free(p) }
            for p in cenv { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, &cargs, &cenv)
        try #require(rc == 0)
        return pid
    }
}
#endif
