#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Workspace

/// The fast paths of `listFiles` (read-ahead on all cores, cursor skipping, in-place
/// formatting) must answer exactly what the plain definitions answer.
@Suite("Listing fast paths")
struct ListingFastPathTests {
    /// 40 folders of 1 to 12 files, some nested, names needing byte order ("B" < "a" < "é").
    private func makeTree(_ root: String) -> Int {
        var count = 0
        for d in 0..<40 {
            let dir = root + "/" + (d % 3 == 0 ? "B\(d)" : d % 3 == 1 ? "a\(d)" : "é\(d)")
            mkdir(dir, 0o755); count += 1
            for f in 0..<(1 + d % 12) {
                let fd = open(dir + "/f\(f).txt", O_CREAT | O_WRONLY, 0o644); close(fd); count += 1
            }
            if d % 5 == 0 {
                mkdir(dir + "/sub", 0o755); count += 1
                let fd = open(dir + "/sub/deep.txt", O_CREAT | O_WRONLY, 0o644); close(fd); count += 1
            }
        }
        return count
    }

    private func sequentialOrder(_ root: String) -> [String] {
        // The documented order, computed without the workspace: depth first, siblings by bytes.
        func walk(_ rel: String) -> [String] {
            let names = (try? DirectoryReader.names(FileDescriptor(open(root + "/" + rel, O_RDONLY | O_DIRECTORY)), path: .root)) ?? []
            var out: [String] = []
            for n in names {
                let p = rel.isEmpty ? n : rel + "/" + n
                out.append(p)
                var st = stat()
                if lstat(root + "/" + p, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { out += walk(p) }
            }
            return out
        }
        return walk("")
    }

    @Test("pages of every size, read ahead in parallel, concatenate to the sequential depth-first byte order")
    func pagesMatchSequentialOrder() throws {
        let root = tempRoot()
        let total = makeTree(root)
        let ws = try Workspace(rootPath: root, bootstrap: false)
        let expected = sequentialOrder(root)
        #expect(expected.count == total)
        for limit in [1, 2, 7, 33, 100, 10_000] {
            var o = Workspace.ListOptions()
            o.recursive = true
            o.limit = limit
            var got: [String] = []
            var pages = 0
            while true {
                let page = try ws.list(o)
                pages += 1
                #expect(page.entries.count <= limit)
                got += page.entries.map(\.path.string)
                guard let next = page.next else { break }
                #expect(page.entries.count == limit)
                o.after = next
            }
            #expect(got == expected, "limit \(limit)")
            #expect(pages == (total + limit - 1) / limit, "limit \(limit): a page ends with a cursor only when more follow")
        }
    }

    @Test("a cursor inside a nested folder resumes right after it, without the entries before it")
    func cursorInsideNestedFolder() throws {
        let root = tempRoot()
        _ = makeTree(root)
        let ws = try Workspace(rootPath: root, bootstrap: false)
        let expected = sequentialOrder(root)
        let at = try #require(expected.firstIndex(of: "B15/sub"))
        var o = Workspace.ListOptions()
        o.recursive = true
        o.after = try WorkspacePath("B15/sub")
        o.limit = 5
        #expect(try ws.list(o).entries.map(\.path.string) == Array(expected[(at + 1)...(at + 5)]))
    }

    @Test("etags are sixteen lowercase hex digits, zero-padded, and differ when the size or time does")
    func etagFormat() {
        var st = stat()
        st.st_size = 1
        let a = FileStatus.etag(st)
        st.st_size = 2
        let b = FileStatus.etag(st)
        #expect(a.utf8.count == 16 && b.utf8.count == 16)
        #expect(a.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(a != b)
        // The FNV-1a of 32 bytes, checked against a plain reimplementation.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for v in [UInt64(0), 0, 2, 0] { var x = v; for _ in 0..<8 { h ^= x & 0xff; h = h &* 0x100_0000_01b3; x >>= 8 } }
        let hex = String(h, radix: 16)
        #expect(b == String(repeating: "0", count: 16 - hex.count) + hex)
    }

    @Test("folder names come back sorted by their bytes, without . and ..")
    func readerSortsBytes() throws {
        let root = tempRoot()
        for n in ["b", "a", "ab", "A", "é", "Z9", "a\u{1}"] { close(open(root + "/" + n, O_CREAT | O_WRONLY, 0o644)) }
        let names = try DirectoryReader.names(FileDescriptor(open(root, O_RDONLY | O_DIRECTORY)), path: .root)
        #expect(names == ["A", "Z9", "a", "a\u{1}", "ab", "b", "é"])
    }
}
