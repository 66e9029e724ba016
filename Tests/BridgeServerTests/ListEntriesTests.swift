#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BridgeServer
@testable import JSON
import Testing
import Workspace

/// A `listFiles` result is the plain entries (`ListEntry`) encoded by jansson: every
/// name, however tricky, comes back as it is on disk, and the bytes are those of one jansson dump
/// of the whole result, also when a large page is dumped in parts on every core.
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

    @Test("a page's entries carry tricky names exactly and encode as one jansson dump of the plain entries")
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
        let names = Set(entries.map(\.path.name))
        for n in ["quo\"te", "back\\x5cslash", "tab\there", "nl\nname", "caf\u{e9}.md", "\u{1F600}", "del\u{7F}", "deep\u{1}.txt"] {
            #expect(names.contains(n), "\(n.debugDescription) listed")
        }
        #expect(entries.contains { $0.path.string == "\u{e9}t\u{e9}/sub/deep\u{1}.txt" })
        let result = Listing(page).json
        let bytes = JSONCodec.encode(result)
        #expect(bytes == JSONCodec.encode(result, splicing: false))
        #expect(try JSONCodec.decode(bytes) == ["entries": .array(entries.map { ListEntry(status: $0).json })])
        // Names are escaped as jansson escapes them, not mangled (a sample of the exact text).
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""name":"quo\"te""#))
        #expect(text.contains(#""name":"nl\nname""#))
        #expect(text.contains(#""path":"\#u{e9}t\#u{e9}/sub/deep\u0001.txt""#))
    }

    @Test("a large page, dumped in parts on every core, is byte for byte one jansson dump")
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
        #expect(LargeValues.isLarge(.array(page.entries.map { ListEntry(status: $0).json })))
        let result = Listing(page).json
        #expect(JSONCodec.encode(result) == JSONCodec.encode(result, splicing: false))
    }
}
