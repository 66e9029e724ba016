#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BridgeServer
import JSON
import Testing
import Workspace

/// `ListEntries.encoded` (the listing's fast entry writer) must write exactly the bytes of
/// encoding `FileStatus.entry`, the plain definition of a listing entry, with jansson.
@Suite("listFiles entries")
struct ListEntriesTests {
    private func tempRoot() -> String {
        var template = Array("/tmp/wb-unit-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }

    private func touch(_ path: String) {
        let fd = open(path, O_CREAT | O_WRONLY, 0o644)
        if fd >= 0 { _ = write(fd, "abc", 3); close(fd) }
    }

    /// Names at the root, one and two levels down, including quotes, backslashes, control
    /// characters, non-ASCII and names whose paths share a prefix with a sibling folder.
    private func makeTree(_ root: String) {
        let names = ["plain.txt", "quo\"te", "back\\slash", "tab\there", "nl\nname", "caf\u{e9}.md", "\u{1F600}",
                     "del\u{7F}", "long-" + String(repeating: "x", count: 200)]
        for n in names { touch(root + "/" + n) }
        for d in ["a", "a b", "ab", "\u{e9}t\u{e9}"] {
            mkdir(root + "/" + d, 0o755)
            for n in names.prefix(4) { touch(root + "/" + d + "/" + n) }
            mkdir(root + "/" + d + "/sub", 0o755)
            touch(root + "/" + d + "/sub/deep\u{1}.txt")
        }
        symlink("/etc/passwd", root + "/link")
    }

    @Test("entries written from runs are the bytes jansson writes for FileStatus.entry, whole and in parts")
    func sameAsPlainDefinition() throws {
        let root = tempRoot()
        makeTree(root)
        let ws = try Workspace(rootPath: root, bootstrap: false)
        var o = Workspace.ListOptions()
        o.recursive = true
        o.limit = 10_000
        let page = try ws.list(o)
        let entries = page.entries
        #expect(entries.count == 9 + 1 + 4 * (1 + 4 + 1 + 1))
        #expect(page.runs.count > 1)
        let expected = entries.map(\.entry)
        let whole = ListEntries.encoded(page.runs)
        #expect(whole.bytes == JSONCodec.encode(.array(expected)))
        #expect(whole.decoded() == .array(expected))
        // Parts that start and end mid-run (as the parallel halves do), joined in order.
        for cuts in [[0, 1, entries.count], [0, 13, 14, entries.count], [0, entries.count - 1, entries.count]] {
            let parts = zip(cuts, cuts.dropFirst()).map { lo, hi in
                let w = RecordArrayWriter(keys: ListEntries.keys)
                ListEntries.write(page.runs, from: lo, to: hi, into: w)
                return w
            }
            #expect(EncodedJSON.array(parts) == whole)
        }
        // As a member of a result, the text is spliced in as it is.
        #expect(JSONCodec.encode(["entries": .encoded(whole), "n": 1]) == JSONCodec.encode(["entries": .array(expected), "n": 1]))
    }

    @Test("a large page is written on two threads, byte for byte as on one")
    func largePageInParallel() throws {
        let root = tempRoot()
        for d in 0..<30 {
            mkdir(root + "/d\(d)", 0o755)
            for f in 0..<100 { touch(root + "/d\(d)/f\(f)\(f % 7 == 0 ? "\"q" : "")") }
        }
        let ws = try Workspace(rootPath: root, bootstrap: false)
        var o = Workspace.ListOptions()
        o.recursive = true
        o.limit = 10_000
        let page = try ws.list(o)
        #expect(page.count == 30 * 101)
        #expect(page.count >= ListEntries.parallelAt)
        #expect(ListEntries.encoded(page.runs).bytes == JSONCodec.encode(.array(page.entries.map(\.entry))))
    }
}
