#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FileWatching
import SystemSupport
import Testing

/// In the serialized suite so the timing tests never share the two cores with these.
extension FileWatcherTests {
    @Test("a tree of 10,000 directories is watched in well under a second")
    func tenThousandDirectories() throws {
        let dir = TempDir(); defer { dir.remove() }
        for i in 0..<100 {
            mkdir(dir.at("d\(i)"), 0o755)
            for j in 0..<99 { mkdir(dir.at("d\(i)/e\(j)"), 0o755) }
        }
        let c = Collector()
        let start = MonotonicClock.nanos()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }
        let elapsed = milliseconds(since: start)
        #expect(elapsed < 600, "initial walk took \(elapsed) ms")
        writeFile(dir.at("d99/e98/leaf"))
        #expect(c.waitFor(created("d99/e98/leaf")), "\(c.batches)")
        #expect(c.overflows == 0)
    }

    @Test("100,000 files created in a burst are all reported (or an overflow is) without stalling")
    func hundredThousandFiles() throws {
        let dir = TempDir()
        let c = Collector()
        let watcher = try startWatcher(dir, c)
        for i in 0..<100 { mkdir(dir.at("p\(i)"), 0o755) }
        let start = MonotonicClock.nanos()
        for i in 0..<100_000 {
            let fd = open(dir.at("p\(i % 100)/f\(i)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            close(fd)
        }
        let written = milliseconds(since: start)
        let complete = c.wait(milliseconds: 10_000) { _ in
            c.overflows > 0 || Set(c.changes.lazy.filter { $0.kind == .created }.map(\.path)).count >= 100_100
        }
        let total = milliseconds(since: start)
        #expect(complete, "written in \(written) ms; \(c.changes.count) changes, \(c.overflows) overflows")
        #expect(total < written + 2_000, "reporting lagged: written in \(written) ms, reported by \(total) ms")
        // Still live afterwards.
        writeFile(dir.at("p0/after"))
        #expect(c.waitFor(created("p0/after")))
        watcher.stop()
        dir.remove()
    }
}
