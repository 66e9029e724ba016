#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Workspace

@Suite("Folder copy")
struct FolderCopyTests {
    private func tree(_ ws: Workspace) throws {
        for d in 0..<3 {
            for f in 0..<4 { _ = try ws.save(try WorkspacePath("src/d\(d)/f\(f).txt"), contents: Array(repeating: UInt8(d), count: 100 * (f + 1))) }
        }
    }

    @Test("progress counts every file and byte, once each, up to the totals counted first")
    func progress() throws {
        let ws = try Workspace(rootPath: tempRoot())
        try tree(ws)
        var seen: [Workspace.CopyProgress] = []
        _ = try ws.copy(from: try WorkspacePath("src"), to: try WorkspacePath("dst"), overwrite: false, progress: { seen.append($0) })
        #expect(seen.first == Workspace.CopyProgress(filesCopied: 0, filesTotal: 12, bytesCopied: 0, bytesTotal: 3000))
        #expect(seen.last == Workspace.CopyProgress(filesCopied: 12, filesTotal: 12, bytesCopied: 3000, bytesTotal: 3000))
        #expect(seen.map(\.filesCopied) == Array(0...12))
    }

    @Test("a cancelled folder copy removes what it had copied; the source stays whole")
    func cancelledLeavesNothing() throws {
        let root = tempRoot()
        let ws = try Workspace(rootPath: root)
        try tree(ws)
        var copied = 0
        #expect(throws: WorkspaceError.self) {
            _ = try ws.copy(from: try WorkspacePath("src"), to: try WorkspacePath("out/dst"), overwrite: false,
                            isCancelled: { copied >= 5 }, progress: { copied = $0.filesCopied })
        }
        #expect(copied == 5)
        #expect(access(root + "/out/dst", F_OK) != 0)
        #expect(access(root + "/src/d2/f3.txt", F_OK) == 0)
    }

    @Test("a folder is never copied into an existing one, which is left as it was")
    func existingDestinationUntouched() throws {
        let root = tempRoot()
        let ws = try Workspace(rootPath: root)
        try tree(ws)
        _ = try ws.save(try WorkspacePath("dst/mine.txt"), contents: [7])
        #expect { try ws.copy(from: try WorkspacePath("src"), to: try WorkspacePath("dst"), overwrite: false) } throws: { e in
            (e as? WorkspaceError)?.code == .alreadyExists
        }
        #expect(access(root + "/dst/mine.txt", F_OK) == 0 && access(root + "/dst/d0", F_OK) != 0)
    }
}
