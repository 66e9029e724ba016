#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FileWatching
import Synchronization
import SystemSupport
import Testing

@Suite("FileWatcher on a real directory tree", .serialized)
struct FileWatcherTests {
    @Test("a file created, changed and deleted is reported each time")
    func createChangeDelete() throws {
        let dir = TempDir(); defer { dir.remove() }
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        writeFile(dir.at("f.txt"), "one")
        #expect(c.waitFor(created("f.txt")), "\(c.batches)")

        usleep(100_000)
        appendFile(dir.at("f.txt"), "two")
        #expect(c.waitFor(changed("f.txt")), "\(c.batches)")

        usleep(100_000)
        unlink(dir.at("f.txt"))
        #expect(c.waitFor(deleted("f.txt")), "\(c.batches)")
        #expect(c.callbackThreads.count == 1)
        #expect(!c.callbackThreads.contains(currentThreadID()))
    }

    @Test("1,000 writes to one file in a burst are reported as one entry, not 1,000")
    func burstOfWritesCoalesces() throws {
        let dir = TempDir(); defer { dir.remove() }
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        let fd = open(dir.at("log"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        var byte: UInt8 = 0x61
        for _ in 0..<1000 { _ = write(fd, &byte, 1) }
        close(fd)
        writeFile(dir.at("marker"))
        #expect(c.waitFor(created("marker")))
        usleep(150_000)
        let entries = c.changes.filter { $0.path == "log" }
        #expect(entries.first == created("log"), "\(c.batches)")
        #expect(entries.count <= 2, "a burst may straddle one batch boundary at most: \(c.batches)")
        for batch in c.batches {
            #expect(Set(batch.map(\.path)).count == batch.count, "one entry per path per batch")
            #expect(batch.map(\.path) == batch.map(\.path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        }
    }

    @Test("a file written into a freshly made nested folder (mkdir -p a/b/c) is reported")
    func newNestedFolder() throws {
        let dir = TempDir(); defer { dir.remove() }
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        makeDirectories(dir.at("a/b/c"))
        writeFile(dir.at("a/b/c/f"))
        #expect(c.wait { Set($0).isSuperset(of: [created("a"), created("a/b"), created("a/b/c"), created("a/b/c/f")]) },
                "\(c.batches)")
        // The new folders are watched from now on.
        usleep(100_000)
        appendFile(dir.at("a/b/c/f"), "more")
        writeFile(dir.at("a/b/g"))
        #expect(c.waitFor(changed("a/b/c/f")), "\(c.batches)")
        #expect(c.waitFor(created("a/b/g")), "\(c.batches)")
    }

    @Test("ignored paths (.syncthing.*.tmp names, anything under .workspace/) never appear")
    func ignoredPaths() throws {
        let dir = TempDir(); defer { dir.remove() }
        makeDirectories(dir.at(".workspace/existing"))
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        writeFile(dir.at(".syncthing.x.tmp"))
        appendFile(dir.at(".syncthing.x.tmp"), "y")
        makeDirectories(dir.at("sub"))
        writeFile(dir.at("sub/.syncthing.y.tmp"))
        rename(dir.at(".syncthing.x.tmp"), dir.at("sub/.syncthing.z.tmp"))
        writeFile(dir.at(".workspace/existing/state"))
        makeDirectories(dir.at(".workspace/new/deep"))
        writeFile(dir.at(".workspace/new/deep/journal"))
        writeFile(dir.at("marker"))
        #expect(c.waitFor(created("marker")))
        usleep(150_000)
        let seen = c.changes.map(\.path)
        #expect(!seen.contains { serverIgnore($0) }, "\(seen)")
        #expect(Set(seen) == ["sub", "marker"], "\(c.batches)")
    }

    @Test("a rename is reported as the old path deleted and the new one created")
    func renameIsDeleteAndCreate() throws {
        let dir = TempDir(); defer { dir.remove() }
        writeFile(dir.at("old.txt"))
        makeDirectories(dir.at("folder/inner"))
        writeFile(dir.at("folder/inner/x"))
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        rename(dir.at("old.txt"), dir.at("new.txt"))
        #expect(c.wait { Set($0).isSuperset(of: [deleted("old.txt"), created("new.txt")]) }, "\(c.batches)")

        rename(dir.at("folder"), dir.at("moved"))
        #expect(c.wait { Set($0).isSuperset(of: [deleted("folder"), created("moved"), created("moved/inner/x")]) },
                "\(c.batches)")
        usleep(100_000)
        writeFile(dir.at("moved/inner/y"))
        #expect(c.waitFor(created("moved/inner/y")), "\(c.batches)")
        #expect(!c.changes.contains { $0.path.hasPrefix("folder/") }, "\(c.batches)")
    }

    #if os(Linux)
    @Test("a file renamed over an existing name (an atomic save) is changed, over a new name created")
    func renameOverAnExistingNameIsAChange() throws {
        let dir = TempDir(); defer { dir.remove() }
        writeFile(dir.at("before.txt"), "1")
        makeDirectories(dir.at("sub"))
        writeFile(dir.at("sub/deep.txt"), "1")
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        writeFile(dir.at("made.txt"), "1")                      // known from its own event
        #expect(c.waitFor(created("made.txt")), "\(c.batches)")
        usleep(100_000)
        let mark = c.changes.count
        for name in ["before.txt", "sub/deep.txt", "made.txt"] {
            writeFile(dir.at(name + ".tmp"), "2")
            rename(dir.at(name + ".tmp"), dir.at(name))
        }
        writeFile(dir.at("fresh.txt.tmp"), "2")
        rename(dir.at("fresh.txt.tmp"), dir.at("fresh.txt"))
        #expect(c.wait { Set($0).isSuperset(of: [changed("before.txt"), changed("sub/deep.txt"), changed("made.txt"),
                                                 created("fresh.txt")]) }, "\(c.batches)")
        usleep(100_000)
        for name in ["before.txt", "sub/deep.txt", "made.txt"] {
            #expect(c.changes.dropFirst(mark).filter { $0.path == name }.allSatisfy { $0.kind == .changed }, "\(c.batches)")
        }
        // Gone and back: a name deleted is new again.
        unlink(dir.at("before.txt"))
        #expect(c.waitFor(deleted("before.txt")), "\(c.batches)")
        writeFile(dir.at("again.tmp"), "3")
        rename(dir.at("again.tmp"), dir.at("before.txt"))
        #expect(c.waitFor(created("before.txt")), "\(c.batches)")
    }
    #endif

    @Test("a folder moved in is walked, and one moved out is no longer watched")
    func foldersMovedInAndOut() throws {
        let dir = TempDir(); defer { dir.remove() }
        let outside = TempDir(); defer { outside.remove() }
        makeDirectories(outside.at("incoming/sub"))
        writeFile(outside.at("incoming/sub/file"))
        makeDirectories(dir.at("leaving"))
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        rename(outside.at("incoming"), dir.at("incoming"))
        rename(dir.at("leaving"), outside.at("leaving"))
        #expect(c.wait {
            Set($0).isSuperset(of: [created("incoming"), created("incoming/sub"), created("incoming/sub/file"),
                                    deleted("leaving")])
        }, "\(c.batches)")
        usleep(100_000)
        writeFile(outside.at("leaving/after"))
        writeFile(dir.at("incoming/sub/second"))
        #expect(c.waitFor(created("incoming/sub/second")), "\(c.batches)")
        usleep(100_000)
        #expect(!c.changes.contains { $0.path.hasPrefix("leaving/") }, "\(c.batches)")
    }

    @Test("a symlink to a folder outside the root is reported but never followed")
    func symlinksAreNotFollowed() throws {
        let dir = TempDir(); defer { dir.remove() }
        let outside = TempDir(); defer { outside.remove() }
        makeDirectories(outside.at("sub"))
        #expect(symlink(outside.path, dir.at("early-link")) == 0)
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        #expect(symlink(outside.path, dir.at("link")) == 0)
        #expect(c.waitFor(created("link")), "\(c.batches)")
        usleep(100_000)
        writeFile(outside.at("inside-target"))
        writeFile(outside.at("sub/deeper"))
        makeDirectories(outside.at("sub/newdir"))
        writeFile(dir.at("marker"))
        #expect(c.waitFor(created("marker")))
        usleep(150_000)
        let seen = c.changes.map(\.path)
        #expect(!seen.contains { $0.hasPrefix("link/") || $0.hasPrefix("early-link/") }, "\(seen)")
    }

    @Test("after stop() returns no callback runs, and stop() may be called again")
    func stopStopsCallbacks() throws {
        let dir = TempDir(); defer { dir.remove() }
        let c = Collector()
        let watcher = try startWatcher(dir, c, latency: 0)
        writeFile(dir.at("before"))
        #expect(c.waitFor(created("before")))

        // Stop in the middle of a stream of events.
        for i in 0..<200 { writeFile(dir.at("during-\(i)")) }
        watcher.stop()
        let countAtStop = c.batches.count
        for i in 0..<50 { writeFile(dir.at("after-\(i)")) }
        usleep(300_000)
        #expect(c.batches.count == countAtStop)
        watcher.stop()
    }

    @Test("stop() called from inside a callback stops the watcher without deadlock")
    func stopFromCallback() throws {
        let dir = TempDir(); defer { dir.remove() }
        let c = Collector()
        let box = WatcherBox()
        let watcher = try FileWatcher(root: dir.path, latencyMilliseconds: 10, ignore: { _ in false },
                                      onChanges: { batch in c.onChanges(batch); box.get()?.stop() },
                                      onOverflow: {})
        box.set(watcher)
        writeFile(dir.at("one"))
        #expect(c.waitFor(created("one")))
        usleep(50_000)
        writeFile(dir.at("two"))
        usleep(200_000)
        #expect(c.batches.count == 1)
        box.set(nil)
    }

    @Test("a synthetic IN_Q_OVERFLOW calls onOverflow, and watching continues everywhere")
    func overflowIsReported() throws {
        #if os(Linux)
        let dir = TempDir(); defer { dir.remove() }
        makeDirectories(dir.at("deep/er"))
        let c = Collector()
        let watcher = try startWatcher(dir, c); defer { watcher.stop() }

        watcher.injectForTesting([InotifyEvent(wd: -1, mask: InotifyMask.overflow, cookie: 0, name: "")])
        #expect(c.waitForOverflow())
        #expect(c.overflows == 1)
        writeFile(dir.at("deep/er/after"))
        #expect(c.waitFor(created("deep/er/after")), "\(c.batches)")
        #else
        // FSEvents reports drops through flags; there is no synthetic path to drive here.
        #endif
    }

    @Test("deleting the watched root itself is survived, noted in diagnostics, and stop() still works")
    func rootDeleted() throws {
        let dir = TempDir(); defer { dir.remove() }
        writeFile(dir.at("f"))
        let c = Collector()
        let notes = Mutex<[String]>([])
        let watcher = try FileWatcher(root: dir.path, ignore: { _ in false },
                                      onChanges: { c.onChanges($0) }, onOverflow: { c.onOverflow() },
                                      diagnostics: { note in notes.withLock { $0.append(note) } })
        dir.remove()
        #expect(c.waitFor(deleted("f")), "\(c.batches)")
        #expect(c.wait { _ in notes.withLock { !$0.isEmpty } }, "no diagnostic")
        watcher.stop()
        watcher.stop()
    }

    @Test("a root that does not exist throws a typed error")
    func missingRootThrows() {
        #expect(throws: FileWatcherError.self) {
            _ = try FileWatcher(root: "/nonexistent/fw-test-root", ignore: { _ in false },
                                onChanges: { _ in }, onOverflow: {})
        }
        do {
            _ = try FileWatcher(root: "/nonexistent/fw-test-root", ignore: { _ in false },
                                onChanges: { _ in }, onOverflow: {})
        } catch {
            #expect(error == .cannotOpenRoot(path: "/nonexistent/fw-test-root", errno: ENOENT))
        }
    }
}

/// Lets a callback reach its own watcher.
final class WatcherBox: Sendable {
    private let watcher = Mutex<FileWatcher?>(nil)
    func get() -> FileWatcher? { watcher.withLock { $0 } }
    func set(_ value: FileWatcher?) { watcher.withLock { $0 = value } }
}
