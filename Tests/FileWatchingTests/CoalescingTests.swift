@testable import FileWatching
import Testing

@Suite("Coalescing, bookkeeping and decoding (no file system)")
struct CoalescingTests {
    private func fold(_ events: [(String, FileChange.Kind)]) -> [FileChange] {
        var c = ChangeCoalescer()
        for (path, kind) in events { c.add(path, kind) }
        return c.drain()
    }

    @Test("created then changed is created; changed many times is one changed")
    func createdAbsorbsChanges() {
        #expect(fold([("a", .created), ("a", .changed), ("a", .changed)]) == [created("a")])
        #expect(fold(Array(repeating: ("a", .changed), count: 1000)) == [changed("a")])
    }

    @Test("created then deleted is nothing; deleted then created is changed")
    func pairsCancelOrMerge() {
        #expect(fold([("a", .created), ("a", .changed), ("a", .deleted)]) == [])
        #expect(fold([("a", .deleted), ("a", .created)]) == [changed("a")])
        #expect(fold([("a", .changed), ("a", .deleted)]) == [deleted("a")])
        #expect(fold([("a", .created), ("a", .deleted), ("a", .created)]) == [created("a")])
        #expect(fold([("a", .deleted), ("a", .created), ("a", .deleted)]) == [deleted("a")])
    }

    @Test("a batch is sorted by path bytes and drained once")
    func sortedAndDrained() {
        var c = ChangeCoalescer()
        for p in ["b", "a/z", "B", "a", "é", "a-b"] { c.add(p, .changed) }
        #expect(c.drain().map(\.path) == ["B", "a", "a-b", "a/z", "b", "é"])
        #expect(c.isEmpty)
        #expect(c.drain() == [])
    }

    @Test("the watch table relocates a moved subtree and drops replaced ones")
    func watchTableRelocates() {
        var t = WatchTable()
        #expect(t.insert(wd: 1, parent: -1, name: "") == [])
        #expect(t.insert(wd: 2, parent: 1, name: "a") == [])
        #expect(t.insert(wd: 3, parent: 2, name: "b") == [])
        #expect(t.insert(wd: 4, parent: 1, name: "c") == [])
        #expect(t.path(of: 3) == "a/b")
        // Directory 2 shows up as c/moved (its move events not processed yet).
        #expect(t.insert(wd: 2, parent: 4, name: "moved") == [])
        #expect(t.path(of: 2) == "c/moved")
        #expect(t.path(of: 3) == "c/moved/b")
        #expect(t.child(of: 1, named: "a") == nil)
        // A new directory at a recorded name replaces the old subtree.
        #expect(Set(t.insert(wd: 5, parent: 4, name: "moved")) == [2, 3])
        #expect(t.path(of: 3) == nil)
        // Moving an ancestor below its own descendant cannot happen; stale data is dropped.
        #expect(Set(t.insert(wd: 4, parent: 5, name: "loop")) == [4, 5])
        #expect(Set(t.removeSubtree(1)) == [1])
        #expect(t.count == 0)
    }

    #if os(Linux)
    @Test("inotify records decode back from their kernel layout")
    func decodeRecords() {
        let events = [InotifyEvent(wd: 7, mask: InotifyMask.create | InotifyMask.isDir, cookie: 0, name: "dir"),
                      InotifyEvent(wd: 7, mask: InotifyMask.modify, cookie: 0, name: "namé-of-16-bytes"),
                      InotifyEvent(wd: -1, mask: InotifyMask.overflow, cookie: 0, name: ""),
                      InotifyEvent(wd: 3, mask: InotifyMask.movedTo, cookie: 42, name: "x")]
        let bytes = events.flatMap { $0.encoded() }
        var decoded: [InotifyEvent] = []
        bytes.withUnsafeBytes { InotifyEvent.forEach(in: $0) { decoded.append($0) } }
        #expect(decoded == events)
        // A truncated trailing record is not decoded.
        var partial: [InotifyEvent] = []
        bytes.dropLast(2).withUnsafeBytes { InotifyEvent.forEach(in: $0) { partial.append($0) } }
        #expect(partial == Array(events.dropLast()))
    }

    @Test("an inotify name that is not UTF-8 decodes to its escaped text, never dropped")
    func decodeEscapedNames() {
        let events = [InotifyEvent(wd: 2, mask: InotifyMask.create, cookie: 0, name: "caf\\xe9.txt"),
                      InotifyEvent(wd: 2, mask: InotifyMask.create, cookie: 0, name: "a\\x5cb")]
        let bytes = events.flatMap { $0.encoded() }
        // The kernel's bytes, not the text.
        #expect(events[0].encoded().contains(0xE9) && !events[1].encoded().contains(UInt8(ascii: "x")))
        var decoded: [InotifyEvent] = []
        bytes.withUnsafeBytes { InotifyEvent.forEach(in: $0) { decoded.append($0) } }
        #expect(decoded == events)
    }
    #endif
}
