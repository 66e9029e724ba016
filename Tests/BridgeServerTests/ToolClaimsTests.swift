@testable import BridgeServer
@testable import MCPFace
import JSON
import JSONRPC
import Testing
import Workspace

@Suite("Tool call claims")
struct ToolClaimsTests {
    @Test("a path taken as written is one WorkspacePath keeps exactly as written")
    func plainPathsAreWorkspacePaths() {
        let samples = ["a", "a/b.txt", "bench/file4k.txt", "...", "a/.../b", ".hidden/x", "x.", "dir name/é ✓.md", "a-b_c/D9",
                       ".", "..", "a/./b", "a/../b", "a//b", "/a", "a/", "~/a", "C:/x", "c:", "a\\b", "a%2fb", "", "a\u{0}b",
                       String(repeating: "n", count: 255), String(repeating: "n", count: 256), "a/" + String(repeating: "n", count: 256)]
        var rng = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", ".", "/", " ", "_", "-", "~", ":", "%", "\\", "é", "\u{0}"]
        let generated = (0..<20_000).map { _ in String((0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }) }
        var taken = 0
        for raw in samples + generated {
            guard let plain = ToolClaims.plainPath(raw) else { continue }
            taken += 1
            #expect(plain == raw)
            #expect((try? WorkspacePath(raw))?.string == raw, "\(raw.debugDescription)")
        }
        #expect(ToolClaims.plainPath("bench/file4k.txt") == "bench/file4k.txt")
        #expect(taken > 1000)
    }

    @Test("a read-only tool claims its paths for reading, normalised, and its session for writing")
    func claims() {
        let read = ToolClaims.claims(session: "mcp", name: "read_file", arguments: ["path": "a/./b.txt"])
        #expect(read == [Claim("session", path: "mcp", access: .write), Claim("file", path: "a/b.txt", access: .read)])
        let copy = ToolClaims.claims(session: "s1", name: "copy_file", arguments: ["from": "x/y", "to": "z"])
        #expect(copy == [Claim("session", path: "s1", access: .write), Claim("file", path: "x/y", access: .read),
                         Claim("file", path: "z", access: .write)])
        // No valid path: the whole workspace.
        let none = ToolClaims.claims(session: "s1", name: "write_file", arguments: ["path": "../out"])
        #expect(none == [Claim("session", path: "s1", access: .write), Claim("file", path: "", access: .write)])
    }
}
