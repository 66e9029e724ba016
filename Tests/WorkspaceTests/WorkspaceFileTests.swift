#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Workspace

/// A fresh, empty folder under /tmp (shared by this target's suites).
func tempRoot() -> String {
    var template = Array("/tmp/wb-unit-XXXXXX".utf8CString)
    let p = mkdtemp(&template)!
    return String(cString: p)
}

private func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

@Suite("Workspace files")
struct WorkspaceFileTests {
    @Test("a save replaces the file whole, keeps its mode, and changes the etag")
    func saveReplaces() throws {
        let root = tempRoot()
        let ws = try Workspace(rootPath: root)
        let p = try WorkspacePath("a/b.txt")
        let first = try ws.save(p, contents: Array("one".utf8))
        chmod(root + "/a/b.txt", 0o600)
        let second = try ws.save(p, contents: Array("two!".utf8), options: .init(ifMatch: try ws.status(p).etag))
        #expect(second.size == 4)
        #expect(second.etag != first.etag)
        #expect(try ws.status(p).mode == 0o600)
        #expect(try ws.read(p, maxBytes: 100).bytes == Array("two!".utf8))
    }

    @Test("ifMatch with a stale etag fails and reports the current one")
    func ifMatch() throws {
        let ws = try Workspace(rootPath: tempRoot())
        let p = try WorkspacePath("x.txt")
        let s = try ws.save(p, contents: [1])
        #expect { try ws.save(p, contents: [2], options: .init(ifMatch: "stale")) } throws: { e in
            (e as? WorkspaceError)?.details["currentEtag"] == .string(s.etag)
        }
    }

    @Test("leftover temp files of dead writers are removed; a live writer's are kept")
    func leftoverTempFiles() throws {
        let root = tempRoot()
        let ws = try Workspace(rootPath: root)
        _ = try ws.createFolder(try WorkspacePath("d"))
        let dead = ".syncthing.f.wb-7ffffffe00000001.tmp"  // a pid above pid_max: never alive
        let mine = TempName.make(for: "f")
        #expect(TempName.writer(mine) == getpid())
        for n in [dead, mine] { close(open(root + "/d/" + n, O_CREAT | O_WRONLY, 0o644)) }
        #expect(ws.removeLeftoverTempFiles() == 1)
        #expect(!exists(root + "/d/" + dead))
        #expect(exists(root + "/d/" + mine))
        let listed = try ws.list({ var o = Workspace.ListOptions(); o.recursive = true; o.includeHidden = true; return o }())
        #expect(!listed.entries.contains { TempName.isTemp($0.path.name) })
    }

    @Test("the temp-file sweep goes into nested folders by entry type and never through a link")
    func leftoverSweepFollowsNoLinks() throws {
        let root = tempRoot(), outside = tempRoot()
        let ws = try Workspace(rootPath: root)
        _ = try ws.createFolder(try WorkspacePath("a/b/c"))
        let dead = ".syncthing.f.wb-7ffffffe00000001.tmp"  // a pid above pid_max: never alive
        close(open(root + "/a/b/c/" + dead, O_CREAT | O_WRONLY, 0o644))
        close(open(outside + "/" + dead, O_CREAT | O_WRONLY, 0o644))
        #expect(symlink(outside, root + "/a/out") == 0)

        #expect(ws.removeLeftoverTempFiles() == 1)

        #expect(!exists(root + "/a/b/c/" + dead))
        #expect(exists(outside + "/" + dead))
    }

    @Test("listing pages cover every entry exactly once, in order")
    func pagination() throws {
        let ws = try Workspace(rootPath: tempRoot(), bootstrap: false)
        for d in 0..<7 { for f in 0..<13 { _ = try ws.save(try WorkspacePath("d\(d)/f\(f)"), contents: []) } }
        var seen: [WorkspacePath] = []
        var o = Workspace.ListOptions()
        o.recursive = true
        o.limit = 10
        while true {
            let page = try ws.list(o)
            seen += page.entries.map(\.path)
            guard let next = page.next else { break }
            o.after = next
        }
        #expect(seen.count == 7 + 7 * 13)
        #expect(seen == seen.sorted())
        #expect(Set(seen).count == seen.count)
    }

    @Test("paging a flat folder with placeholders and conflict copies gives the one-page listing")
    func flatPagingWithArtefacts() throws {
        let root = tempRoot()
        let ws = try Workspace(rootPath: root, bootstrap: false)
        for f in 10..<50 { _ = try ws.save(try WorkspacePath("f\(f).txt"), contents: []) }
        // A stub whose real name sorts among the files but whose stored name sorts first, and a
        // conflict copy of a file near the middle.
        close(open(root + "/.f20b.txt.icloud", O_CREAT | O_WRONLY, 0o644))
        close(open(root + "/f21.sync-conflict-20250101-120000-ABCDEFG.txt", O_CREAT | O_WRONLY, 0o644))
        let whole = try ws.list({ var o = Workspace.ListOptions(); o.limit = 1000; return o }()).entries

        var paged: [FileStatus] = []
        var o = Workspace.ListOptions()
        o.limit = 3
        while true {
            let page = try ws.list(o)
            paged += page.entries
            guard let next = page.next else { break }
            o.after = next
        }

        #expect(paged.map(\.path) == whole.map(\.path))
        #expect(paged.map(\.state) == whole.map(\.state))
        #expect(whole.contains { $0.path.name == "f20b.txt" && $0.state == "notDownloaded" })
        #expect(whole.contains { $0.path.name == "f21.txt" && $0.state == "conflicted" })
    }

    @Test("paging a large flat folder, at every page size, gives the one-page listing")
    func flatPagingEverySize() throws {
        let root = tempRoot()
        let ws = try Workspace(rootPath: root, bootstrap: false)
        for f in 0..<23 { _ = try ws.save(try WorkspacePath("flat/f\(f)"), contents: []) }
        _ = try ws.save(try WorkspacePath("flat/f15d/inner"), contents: [])
        _ = try ws.save(try WorkspacePath("z-after"), contents: [])
        var whole = Workspace.ListOptions()
        whole.recursive = true
        whole.limit = 1000
        let expected = try ws.list(whole).entries.map(\.path)

        for limit in 1...26 {
            var o = whole
            o.limit = limit
            var paged: [WorkspacePath] = []
            while true {
                let page = try ws.list(o)
                paged += page.entries.map(\.path)
                guard let next = page.next else { break }
                o.after = next
            }
            #expect(paged == expected, "pages of \(limit)")
        }
    }

    @Test("a symlink pointing outside is listed as a link and never read through")
    func symlinkOutside() throws {
        let root = tempRoot()
        let outside = tempRoot()
        close(open(outside + "/secret", O_CREAT | O_WRONLY, 0o600))
        let ws = try Workspace(rootPath: root, bootstrap: false)
        symlink(outside + "/secret", root + "/link")
        symlink(outside, root + "/dirlink")
        #expect { try ws.read(try WorkspacePath("link"), maxBytes: 10) } throws: { ($0 as? WorkspaceError)?.code == .symlinkNotFollowed }
        #expect { try ws.read(try WorkspacePath("dirlink/secret"), maxBytes: 10) } throws: { ($0 as? WorkspaceError)?.code == .symlinkNotFollowed }
        #expect { try ws.save(try WorkspacePath("dirlink/new"), contents: [1]) } throws: { ($0 as? WorkspaceError)?.code == .symlinkNotFollowed }
        #expect(!exists(outside + "/new"))
        let entries = try ws.list(Workspace.ListOptions()).entries
        #expect(entries.first { $0.path.name == "link" }?.type == .symlink)
        try ws.delete(try WorkspacePath("dirlink"), recursive: true)
        #expect(exists(outside + "/secret"))
    }
}
