#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FileWatching
import Synchronization
import SystemSupport
import Testing

@Suite("OnDemandWatcher.retarget: the subscribers follow the workspace to another root", .serialized)
struct OnDemandRetargetTests {
    @Test("after a retarget every subscriber hears the new root, restated by `update`, and never the old one")
    func followsToNewRoot() throws {
        let old = TempDir(), new = TempDir(); defer { old.remove(); new.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        try watch.add("a", "a@old", root: old.path)
        try watch.add("b", "b@old", root: old.path)
        #expect(watch.root == old.path)

        let moved = try watch.retarget(root: new.path) { key, _ in "\(key)@new" }
        #expect(moved)
        #expect(watch.root == new.path)
        #expect(watch.isRunning)
        #expect(watch.subscribers == ["a": "a@new", "b": "b@new"])

        writeFile(old.at("in-old.txt"), "x")
        writeFile(new.at("in-new.txt"), "x")
        let d = try #require(got.waitFor(created("in-new.txt")), "\(got.all.map(\.changes))")
        #expect(d.to == ["a": "a@new", "b": "b@new"])
        usleep(300_000)
        #expect(!got.all.contains { $0.changes.contains(created("in-old.txt")) }, "\(got.all.map(\.changes))")

        // The same root again: nothing moves, `update` is not called.
        #expect(try !watch.retarget(root: new.path) { _, _ in "changed" })
        #expect(watch.subscribers == ["a": "a@new", "b": "b@new"])

        watch.remove("a")
        watch.remove("b")
        #expect(!watch.isRunning)
        #expect(watch.root == nil)
    }

    @Test("with no subscriber a retarget starts nothing; the next add watches its own root")
    func nothingToMove() throws {
        let old = TempDir(), new = TempDir(); defer { old.remove(); new.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        #expect(try !watch.retarget(root: new.path))
        #expect(!watch.isRunning)
        try watch.add("a", "a", root: new.path)
        writeFile(new.at("f.txt"), "x")
        #expect(got.waitFor(created("f.txt"))?.to == ["a": "a"])
        watch.remove("a")
    }

    @Test("a new root that cannot be watched drops and names the subscribers; none is left unwatched")
    func failedRetarget() throws {
        let old = TempDir(); defer { old.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        try watch.add("a", "a", root: old.path)
        do {
            try watch.retarget(root: old.at("missing"))
            Issue.record("retarget to a missing root succeeded")
        } catch {
            #expect(error.dropped == ["a": "a"])
        }
        #expect(watch.subscribers.isEmpty)
        #expect(!watch.isRunning)
        writeFile(old.at("after.txt"), "x")
        usleep(300_000)
        #expect(got.all.isEmpty, "\(got.all.map(\.changes))")
        try watch.add("b", "b", root: old.path)
        writeFile(old.at("again.txt"), "x")
        #expect(got.waitFor(created("again.txt"))?.to == ["b": "b"])
        watch.remove("b")
    }

    @Test("subscribers arriving and leaving while retargets flip the root: running iff subscribed, on the last root")
    func retargetRacingChurn() throws {
        let one = TempDir(), two = TempDir(); defer { one.remove(); two.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        for i in 0..<100 {
            let root = i % 2 == 0 ? two.path : one.path
            race({ _ = try? watch.retarget(root: root) }, {
                try? watch.add("k\(i)", "k\(i)", root: root)
                if i % 2 == 1 { watch.remove("k\(i - 1)") }
            })
            #expect(watch.isRunning == !watch.subscribers.isEmpty, "iteration \(i)")
            #expect(watch.root == nil || watch.root == root, "iteration \(i)")
        }
        try watch.retarget(root: two.path)
        got.clear()
        writeFile(two.at("last.txt"), "x")
        #expect(got.waitFor(created("last.txt"))?.to == watch.subscribers)
        for k in watch.subscribers.keys { watch.remove(k) }
        #expect(!watch.isRunning)
    }
}
