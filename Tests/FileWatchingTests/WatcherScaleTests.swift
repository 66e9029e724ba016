#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FileWatching
import SystemSupport
import Testing

/// Big trees, in the serialized suite so they never share the inotify limits with the other
/// watcher tests. How fast they are watched is measured by `make bench` (Benchmarks/watch_bench.py),
/// not here: the waits are hang guards.
extension FileWatcherTests {
    @Test("a tree of 10,000 directories is watched whole: a file made in each one is reported")
    func tenThousandDirectories() throws {
        let dir = TempDir(); defer { dir.remove() }
        var folders: [String] = []
        for i in 0..<100 {
            mkdir(dir.at("d\(i)"), 0o755)
            folders.append("d\(i)")
            for j in 0..<99 { mkdir(dir.at("d\(i)/e\(j)"), 0o755); folders.append("d\(i)/e\(j)") }
        }
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }
        for f in folders { writeFile(dir.at(f + "/leaf")) }
        let leaves = Set(folders.map { $0 + "/leaf" })
        let all = c.wait(milliseconds: 60_000) { changes in
            leaves.isSubset(of: Set(changes.lazy.filter { $0.kind == .created }.map(\.path)))
        }
        #expect(all, "\(leaves.subtracting(c.changes.map(\.path)).count) of 10,000 folders' files not reported")
        #expect(c.overflows == 0)
    }

    @Test("100,000 files created in a burst are all reported (or an overflow is) without stalling")
    func hundredThousandFiles() throws {
        let dir = TempDir()
        let c = Collector()
        let watcher = try startWatcher(dir, c)
        for i in 0..<100 { mkdir(dir.at("p\(i)"), 0o755) }
        for i in 0..<100_000 {
            let fd = open(dir.at("p\(i % 100)/f\(i)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            close(fd)
        }
        let complete = c.wait(milliseconds: 120_000) { _ in
            c.overflows > 0 || Set(c.changes.lazy.filter { $0.kind == .created }.map(\.path)).count >= 100_100
        }
        #expect(complete, "\(c.changes.count) changes, \(c.overflows) overflows")
        // Still live afterwards.
        writeFile(dir.at("p0/after"))
        #expect(c.waitFor(created("p0/after")))
        watcher.stop()
        dir.remove()
    }
}
