#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BridgeServer
import JSON
import Testing
import Workspace

/// `ListEntries.json` (the listing's fast entry builder) must produce exactly the members,
/// order and bytes of `FileStatus.entry`, the plain definition of a listing entry.
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

    @Test("entries of any page slice equal FileStatus.entry, value and encoded bytes")
    func sameAsPlainDefinition() throws {
        let root = tempRoot()
        makeTree(root)
        let ws = try Workspace(rootPath: root, bootstrap: false)
        var o = Workspace.ListOptions()
        o.recursive = true
        o.limit = 10_000
        let entries = try ws.list(o).entries
        #expect(entries.count == 9 + 1 + 4 * (1 + 4 + 1 + 1))
        let expected = entries.map(\.entry)
        // Whole page, and slices starting mid-folder (as the parallel halves do).
        for start in [0, 1, 13, entries.count - 1] {
            let got = ListEntries.json(entries[start...])
            #expect(got == Array(expected[start...]))
            #expect(JSONCodec.encode(.array(got)) == JSONCodec.encode(.array(Array(expected[start...]))))
        }
    }
}
