import Testing
@testable import Workspace

@Suite("Workspace paths")
struct WorkspacePathTests {
    @Test("relative paths are split into components; empty and '.' segments are dropped")
    func normalises() throws {
        #expect(try WorkspacePath("a/b/c.txt").components == ["a", "b", "c.txt"])
        #expect(try WorkspacePath("a//./b/").components == ["a", "b"])
        #expect(try WorkspacePath("").isRoot)
        #expect(try WorkspacePath("100%.txt").name == "100%.txt")
        #expect(try WorkspacePath("a:b.txt").name == "a:b.txt")
    }

    @Test("separators and dot segments are bytes: a combining mark never hides a '/' or makes '.' a name")
    func separatorsAreBytes() throws {
        // "/" + U+0301 is one Character in Swift; the slash is still a separator.
        #expect(try WorkspacePath("a/\u{301}b").components == ["a", "\u{301}b"])
        #expect(try WorkspacePath("caf\u{65}\u{301}/x").components == ["caf\u{65}\u{301}", "x"])
        #expect { try WorkspacePath("/\u{301}etc/passwd") } throws: { ($0 as? WorkspaceError)?.code == .outsideWorkspace }
        #expect { try WorkspacePath("x/../\u{301}") } throws: { ($0 as? WorkspaceError)?.code == .outsideWorkspace }
        #expect { try WorkspacePath("a%2F\u{301}b") } throws: { ($0 as? WorkspaceError)?.code == .invalidPath }
        // ".." followed by a combining mark is a name of its own, not a dot segment.
        #expect(try WorkspacePath("..\u{301}").components == ["..\u{301}"])
    }

    @Test("escapes and tricks are refused with the right code", arguments: [
        ("/etc/passwd", WorkspaceError.Code.outsideWorkspace),
        ("../x", .outsideWorkspace),
        ("a/../../x", .outsideWorkspace),
        ("./../x", .outsideWorkspace),
        ("a/..", .outsideWorkspace),
        ("~/x", .outsideWorkspace),
        ("~", .outsideWorkspace),
        ("C:/Windows", .outsideWorkspace),
        ("a\u{0}b", .invalidPath),
        ("..\\x", .invalidPath),
        ("%2e%2e/x", .invalidPath),
        ("a/%2E%2E/x", .invalidPath),
        ("a%2fb", .invalidPath),
        ("%252e%252e/x", .invalidPath),
        ("a/%00", .invalidPath),
    ])
    func refuses(raw: String, code: WorkspaceError.Code) {
        #expect { try WorkspacePath(raw) } throws: { ($0 as? WorkspaceError)?.code == code }
    }

    @Test("over-long names and paths are refused")
    func lengths() {
        #expect(throws: WorkspaceError.self) { try WorkspacePath(String(repeating: "n", count: 256)) }
        #expect(throws: WorkspaceError.self) { try WorkspacePath(Array(repeating: "abcdefgh", count: 600).joined(separator: "/")) }
    }

    @Test("listing order is depth-first with siblings sorted by bytes")
    func order() throws {
        let paths = try ["a-b", "a/x", "a", "B", "a/x/y", "b"].map(WorkspacePath.init).sorted()
        #expect(paths.map(\.string) == ["B", "a", "a/x", "a/x/y", "a-b", "b"])
    }

    @Test("temp names are recognised exactly and stay within 255 bytes")
    func tempNames() {
        let t = TempName.make(for: String(repeating: "x", count: 255))
        #expect(t.utf8.count <= 255)
        #expect(TempName.isTemp(t))
        #expect(TempName.isTemp(TempName.make(for: "notes.md")))
        #expect(!TempName.isTemp(".syncthing.notes.md.tmp"))
        #expect(!TempName.isTemp("notes.md"))
    }
}

@Suite("Globs")
struct GlobTests {
    @Test("patterns without a slash match names; with one, relative paths", arguments: [
        ("*.md", "docs/a.md", true), ("*.md", "a.txt", false), ("docs/*.md", "docs/a.md", true),
        ("docs/*.md", "docs/x/a.md", false), ("docs/**/*.md", "docs/x/y/a.md", true), ("docs/**/*.md", "docs/a.md", true),
        ("**/*.md", "a.md", true), ("?.txt", "a.txt", true), ("?.txt", "ab.txt", false),
        ("[a-c]*", "beta", true), ("[!a-c]*", "beta", false), ("*.{md,txt}", "x.txt", true), ("*.{md,txt}", "x.rs", false),
        ("*", "é.txt", true), ("?.txt", "é.txt", true),
    ])
    func matching(pattern: String, path: String, expected: Bool) throws {
        let g = try Glob(pattern)
        #expect(g.matches(relativePath: path, name: String(path.split(separator: "/").last!)) == expected)
    }

    @Test("unbalanced braces are refused")
    func unbalanced() {
        #expect(throws: WorkspaceError.self) { try Glob("{a,b") }
    }
}
