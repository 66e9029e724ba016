#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BridgeServer
import JSON
import JSONRPC
import Logging
import Testing

private func serverWithWorkspace() throws -> BridgeServer {
    var template = Array("/tmp/wb-tools-XXXXXX".utf8CString)
    let root = String(cString: mkdtemp(&template)!)
    var config = ServerConfiguration(localRoot: root + "/ws")
    config.configDirectory = root + "/config"
    let s = BridgeServer(configuration: config, logger: Logger(label: "test"))
    _ = try s.services.openStorage(initializationOptions: nil)
    return s
}

@Suite("Tool table")
struct ToolTableTests {
    @Test("every file method a user has has a tool, in a stable order, with schemas and hints")
    func parity() {
        let names = ToolTable.all.map(\.name)
        #expect(names == ["read_file", "read_multiple_files", "write_file", "append_file", "list_files", "delete_file", "move_file", "copy_file",
                          "create_folder", "get_file_info", "search_files", "get_storage_info", "read_context",
                          "update_context", "append_journal"])
        for t in ToolTable.all {
            #expect(t.inputSchema["type"] == "object")
            #expect(t.outputSchema["type"] == "object")
            #expect(!(t.readOnly && t.destructive))
        }
    }

    @Test("a call writes through the workspace and returns text plus structured content")
    func writeAndRead() throws {
        let s = try serverWithWorkspace()
        let w = try ToolTable.call("write_file", arguments: ["path": "notes/a.md", "content": "hello"], services: s.services, request: nil)
        #expect(!w.isError)
        #expect(w.structuredContent?["size"] == 5)
        let r = try ToolTable.call("read_file", arguments: ["path": "notes/a.md"], services: s.services, request: nil)
        #expect(r.content.first?["text"] == "hello")
    }

    @Test("bad arguments and domain failures are isError results the model can act on")
    func errors() throws {
        let s = try serverWithWorkspace()
        let bad = try ToolTable.call("read_file", arguments: ["path": 3], services: s.services, request: nil)
        #expect(bad.isError)
        #expect(bad.content.first?["text"]?.stringValue?.contains("'path' must be a string") == true)
        let extra = try ToolTable.call("read_file", arguments: ["path": "a", "bogus": true], services: s.services, request: nil)
        #expect(extra.isError)
        let outside = try ToolTable.call("read_file", arguments: ["path": "../etc/passwd"], services: s.services, request: nil)
        #expect(outside.isError)
        #expect(outside.structuredContent?["code"] == "OutsideWorkspace")
        #expect(throws: RPCError.self) { try ToolTable.call("rm_rf", arguments: nil, services: s.services, request: nil) }
    }

    @Test("context and journal tools keep the seeds' files")
    func contextAndJournal() throws {
        let s = try serverWithWorkspace()
        _ = try ToolTable.call("update_context", arguments: ["content": "User prefers metric units."], services: s.services, request: nil)
        let ctx = try ToolTable.call("read_context", arguments: nil, services: s.services, request: nil)
        #expect(ctx.content.first?["text"]?.stringValue?.hasSuffix("User prefers metric units.\n") == true)
        let j = try ToolTable.call("append_journal", arguments: ["entry": "Saw a pattern.", "date": "2026-01-15"], services: s.services, request: nil)
        #expect(j.structuredContent?["path"] == "Journal/agent/2026-01-15.md")
    }
}
