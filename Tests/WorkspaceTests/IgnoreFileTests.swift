@testable import Workspace
import Testing

/// The ignore-file rules, case by case (gitignore(5) and Syncthing's "Ignoring files"); the e2e
/// test `Tests/e2e/test_ignore_files.py` compares whole trees with real `git`.
@Suite("Ignore files")
struct IgnoreFileTests {
    /// The decision for `path` under a file with `text` (name: its last component).
    func decide(_ text: String, _ path: String, dir: Bool = false, syntax: IgnoreFile.Syntax = .git) -> Bool? {
        let file = IgnoreFile(Array(text.utf8), syntax: syntax)
        let bytes = Array(path.utf8)
        let start = (bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
        return file.decision(path: bytes[...], name: bytes[start...], isDirectory: dir)
    }

    @Test("a pattern without a slash matches the name at any depth")
    func nameAnywhere() {
        #expect(decide("*.log", "a.log") == true)
        #expect(decide("*.log", "x/y/a.log") == true)
        #expect(decide("*.log", "a.logx") == nil)
        #expect(decide("build", "src/build", dir: true) == true)
    }

    @Test("a slash at the start or in the middle anchors at the file's folder")
    func anchored() {
        #expect(decide("/todo.txt", "todo.txt") == true)
        #expect(decide("/todo.txt", "sub/todo.txt") == nil)
        #expect(decide("doc/frotz", "doc/frotz") == true)
        #expect(decide("doc/frotz", "a/doc/frotz") == nil)
        #expect(decide("doc/*.txt", "doc/a.txt") == true)
        #expect(decide("doc/*.txt", "doc/x/a.txt") == nil)  // * never crosses a slash
    }

    @Test("a trailing slash matches folders only")
    func directoryOnly() {
        #expect(decide("out/", "out", dir: true) == true)
        #expect(decide("out/", "out") == nil)
        #expect(decide("out/", "a/out", dir: true) == true)
        #expect(decide("doc/frotz/", "doc/frotz", dir: true) == true)
        #expect(decide("doc/frotz/", "x/doc/frotz", dir: true) == nil)
    }

    @Test("the last matching rule decides; ! re-includes")
    func negation() {
        #expect(decide("*.log\n!keep.log", "keep.log") == false)
        #expect(decide("*.log\n!keep.log", "drop.log") == true)
        #expect(decide("!keep.log\n*.log", "keep.log") == true)
        #expect(decide("\\!bang", "!bang") == true)
    }

    @Test("** as a whole component crosses folders; elsewhere it is *")
    func doubleStar() {
        #expect(decide("**/foo", "foo") == true)
        #expect(decide("**/foo", "a/b/foo") == true)
        #expect(decide("**/foo/bar", "x/foo/bar") == true)
        #expect(decide("abc/**", "abc/x/y") == true)
        #expect(decide("abc/**", "abc", dir: true) == nil)
        #expect(decide("a/**/b", "a/b") == true)
        #expect(decide("a/**/b", "a/x/y/b") == true)
        #expect(decide("a**z", "a/b/z") == nil)  // not a whole component: one *
        #expect(decide("a/b**z", "a/bxz") == true)
        #expect(decide("a/b**z", "a/b/c/z") == nil)
    }

    @Test("comments, blank lines, trailing spaces, escapes, CRLF, BOM")
    func syntax() {
        #expect(decide("# not a rule\n\n", "# not a rule") == nil)
        #expect(decide("\\#hash", "#hash") == true)
        #expect(decide("trail   ", "trail") == true)
        #expect(decide("space\\ ", "space ") == true)
        #expect(decide("space\\ ", "space") == nil)
        #expect(decide("a\\*b", "a*b") == true)
        #expect(decide("a\\*b", "axb") == nil)
        #expect(decide("{a,b}", "{a,b}") == true)  // braces are plain in git's syntax
        #expect(decide("{a,b}", "a") == nil)
        #expect(decide("crlf\r\n", "crlf") == true)
        #expect(decide("\u{FEFF}bom", "bom") == true)
        #expect(decide("f[0-9].txt", "f7.txt") == true)
        #expect(decide("f[!0-9].txt", "f7.txt") == nil)
        #expect(decide("f?.txt", "fé.txt") == true)
    }

    @Test("Syncthing: first match wins, (?i), //, rooted, contents")
    func syncthing() {
        #expect(decide("!keep.log\n*.log", "keep.log", syntax: .syncthing) == false)
        #expect(decide("*.log\n!keep.log", "keep.log", syntax: .syncthing) == true)
        #expect(decide("(?i)*.JPG", "a/b.jpg", syntax: .syncthing) == true)
        #expect(decide("*.JPG", "a/b.jpg", syntax: .syncthing) == nil)
        #expect(decide("(?i)!Keep*\n*", "KEEP.txt", syntax: .syncthing) == false)
        #expect(decide("(?d)(?i)thumbs.db", "x/Thumbs.db", syntax: .syncthing) == true)
        #expect(decide("// comment\n  spaced  ", "spaced", syntax: .syncthing) == true)
        #expect(decide("// comment", "// comment", syntax: .syncthing) == nil)
        #expect(decide("/top", "top", syntax: .syncthing) == true)
        #expect(decide("/top", "a/top", syntax: .syncthing) == nil)
        #expect(decide("foo/bar", "x/foo/bar", syntax: .syncthing) == true)  // unrooted: any depth
        #expect(decide("cache", "a/cache/deep/file", syntax: .syncthing) == true)  // and what is inside
        #expect(decide("{a,b}.tmp", "b.tmp", syntax: .syncthing) == true)
        #expect(decide("te**st", "tele/sub/dir/rest", syntax: .syncthing) == true)
        #expect(decide("#include other", "#include other", syntax: .syncthing) == nil)
    }

    @Test("many stars cost no more than a moment, matching or not (an ignore file is anyone's)")
    func manyStars() throws {
        let name = String(repeating: "a", count: 250)
        let noB = try Glob(String(repeating: "*a", count: 30) + "*b")
        let anyEnd = try Glob(String(repeating: "*a", count: 30) + "*")
        let deep = try Glob("**/" + String(repeating: "**/a*", count: 12) + "b")
        let took = ContinuousClock().measure {
            #expect(!noB.matches(relativePath: name, name: name))
            #expect(anyEnd.matches(relativePath: name, name: name))
            #expect(!deep.matches(relativePath: "a/" + name, name: name))
            #expect(decide(String(repeating: "*a", count: 40) + "*b", name) == nil)
        }
        #expect(took < .seconds(10))  // a hang guard: exponential matching would never end
    }

    @Test("Glob's own semantics are unchanged by the fast paths")
    func globShapes() throws {
        #expect(try Glob("*.md").matches(relativePath: "a/b.md", name: "b.md"))
        #expect(try Glob("a/*.md").matches(relativePath: "a/b.md", name: "b.md"))
        #expect(try !Glob("a/*").matches(relativePath: "a/b/c", name: "c"))
        #expect(try Glob("pre*").matches(relativePath: "x/prefix", name: "prefix"))
        #expect(try Glob("exact").matches(relativePath: "x/exact", name: "exact"))
        #expect(try !Glob("exact").matches(relativePath: "exactly", name: "exactly"))
    }
}
