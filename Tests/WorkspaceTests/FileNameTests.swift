#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Workspace

/// Names that are not UTF-8 are reachable through their escaped text, and the reserved folders
/// are recognised in every spelling a volume could fold to them.
@Suite("File names")
struct FileNameTests {
    private func make(_ root: String, _ name: [UInt8], _ data: String) {
        let path = Array(root.utf8) + [0x2F] + name
        let fd = open(path.map { CChar(bitPattern: $0) } + [0], O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        #expect(fd >= 0)
        _ = data.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    private func exists(_ root: String, _ name: [UInt8]) -> Bool {
        var st = stat()
        return lstat((Array(root.utf8) + [0x2F] + name).map { CChar(bitPattern: $0) } + [0], &st) == 0
    }

    @Test("a Latin-1 name is listed by its text and read, written, copied, moved and deleted through it")
    func latin1RoundTrip() throws {
        let root = tempRoot()
        make(root, Array("caf".utf8) + [0xE9] + Array(".txt".utf8), "old")
        let ws = try Workspace(rootPath: root, bootstrap: false)
        #expect(try ws.list(Workspace.ListOptions()).entries.map(\.path.string) == ["caf\\xe9.txt"])
        let p = try WorkspacePath("caf\\xe9.txt")
        #expect(try ws.status(p).size == 3)
        var files: [String] = []
        try ws.forEachFile { path, _ in files.append(path.string) }
        #expect(files == ["caf\\xe9.txt"])

        let copy = try WorkspacePath("b\\xff")
        _ = try ws.copy(from: p, to: copy, overwrite: false)
        #expect(exists(root, [0x62, 0xFF]))
        _ = try ws.move(from: copy, to: try WorkspacePath("c\\x5cd"), overwrite: false)
        #expect(exists(root, Array("c\\d".utf8)) && !exists(root, [0x62, 0xFF]))
        try ws.delete(p, recursive: false)
        #expect(!exists(root, Array("caf".utf8) + [0xE9] + Array(".txt".utf8)))
    }

    @Test("a path's length limits count the bytes on disk, not the escaped text")
    func limitsOnDisk() throws {
        #expect(try WorkspacePath(String(repeating: "\\xff", count: 255)).components.count == 1)
        #expect { try WorkspacePath(String(repeating: "\\xff", count: 256)) } throws: { ($0 as? WorkspaceError)?.code == .invalidPath }
        #expect { try WorkspacePath("caf\\xE9") } throws: { ($0 as? WorkspaceError)?.code == .invalidPath }
        #expect { try WorkspacePath("\\x2e\\x2e/x") } throws: { ($0 as? WorkspaceError)?.code == .invalidPath }
    }

    @Test("reserved folders in every spelling a volume could fold to them", arguments: [
        ".workspace", ".Workspace", ".WORKSPACE", ".wor\u{212A}space", ".work\u{17F}pace", ".work\u{200C}space",
        "\u{FEFF}.workspace", ".workspace.", ".workspace .", "WORKSP~1", "worksp~12", ".wb-staging.nosync",
        ".WB-STAGING.NOSYNC", "WB-STA~1.NOS", ".wb-staging.nosync..",
    ])
    func reserved(_ name: String) {
        #expect(ReservedNames.isReserved(name))
        #expect(Workspace.isServerFolder(WorkspacePath(components: [name])))
        #expect(Workspace.isServerPrivate(relativePath: name + "/sessions/x"))
    }

    @Test("other names stay ordinary", arguments: [
        "workspace", ".workspaces", ".work", ".w\u{FF4F}rkspace", "\u{FF0E}workspace", "WORKSP~", "WORKSP~1x", "worksp~1.txt",
        ".workspace-notes", "Workspace.md", "wb-staging", "WB-STA~1.NOT",
    ])
    func ordinary(_ name: String) {
        #expect(!ReservedNames.isReserved(name))
        #expect(!Workspace.isServerFolder(WorkspacePath(components: [name])))
    }

    @Test("a reserved spelling is refused for every client path and left out of walks")
    func refusedAndNotWalked() throws {
        let root = tempRoot()
        let ws = try Workspace(rootPath: root, bootstrap: false)
        mkdir(root + "/.Workspace", 0o755)
        make(root, Array(".Workspace/forged".utf8), "x")
        for spelling in [".Workspace/forged", ".WORKSPACE/x", "WORKSP~1/x"] {
            #expect { try ws.delete(try WorkspacePath(spelling), recursive: true) } throws: {
                ($0 as? WorkspaceError)?.code == .permissionDenied
            }
        }
        var files: [String] = []
        try ws.forEachFile { path, _ in files.append(path.string) }
        #expect(files.isEmpty)
        #expect(exists(root, Array(".Workspace/forged".utf8)))
    }
}
