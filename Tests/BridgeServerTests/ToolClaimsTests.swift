@testable import BridgeServer
@testable import MCPFace
import JSON
import JSONRPC
import Testing
import Workspace

@Suite("Tool call claims")
struct ToolClaimsTests {
    @Test("a call claims its session for writing and what its method's schedule claims, paths normalised once")
    func claims() {
        let read = ToolTable.byName["read_file"]?.invocation(["path": "a/./b.txt"])
        #expect(read?.claims(session: "mcp") == [Claim("session", path: "mcp", access: .write), Claim("file", path: "a/b.txt", access: .read)])
        let copy = ToolTable.byName["copy_file"]?.invocation(["from": "x/y", "to": "z"])
        #expect(copy?.claims(session: "s1") == [Claim("session", path: "s1", access: .write), Claim("file", path: "x/y", access: .read),
                                                 Claim("file", path: "z", access: .write)])
        // Arguments the method's decoder refuses touch nothing in the workspace: only the session.
        let bad = ToolTable.byName["write_file"]?.invocation(["path": "../out", "content": "x"])
        #expect(bad?.claims(session: "s1") == [Claim("session", path: "s1", access: .write)])
        // A listing without a path is the root's.
        let list = ToolTable.byName["list_files"]?.invocation(.object(JSONObject()))
        #expect(list?.claims(session: "s1") == [Claim("session", path: "s1", access: .write), Claim("file", path: "", access: .read)])
    }

    @Test("every tool's readOnly is its method's schedule (no claim writes) and agrees with its effect rule")
    func readOnlyFollowsSchedule() throws {
        // One realistic call of each tool: its decoded claims show what its method does.
        let samples: [String: JSON] = [
            "read_file": ["path": "a.txt"], "read_multiple_files": ["paths": ["a.txt", "b/c.txt"]], "write_file": ["path": "a.txt", "content": "x"], "append_file": ["path": "a.txt", "content": "x"],
            "list_files": ["path": "d"], "delete_file": ["path": "a.txt"], "move_file": ["from": "a", "to": "b"],
            "copy_file": ["from": "a", "to": "b", "overwrite": true], "create_folder": ["path": "d"], "get_file_info": ["path": "a.txt"],
            "search_files": ["query": "x"], "get_storage_info": .object(JSONObject()), "read_context": .object(JSONObject()),
            "update_context": ["content": "x"], "append_journal": ["entry": "x"],
        ]
        #expect(Set(samples.keys) == Set(ToolTable.all.map(\.name)), "a sample call for every tool")
        for tool in ToolTable.all {
            let decoded = try #require(try? tool.invocation(samples[tool.name] ?? .null).decoded.get(), "\(tool.name) decodes")
            let writes = decoded.claims.contains { $0.access == .write }
            #expect(tool.readOnly == !writes, "\(tool.name): readOnly \(tool.readOnly), its method's claims \(decoded.claims)")
            #expect(tool.readOnly == (tool.effects.most == .reads), "\(tool.name): readOnly disagrees with its effect rule")
            #expect(tool.annotations["readOnlyHint"]?.boolValue == tool.readOnly)
        }
    }
}
