import JSON
import Testing
@testable import AgentSessions

@Suite("Deleting a session only while unchanged")
struct DeleteUnchangedTests {
    @Test("a session with only its creation and a move to running is deleted; its folder is gone")
    func unusedIsDeleted() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(title: "MCP: probe", agentType: "mcp")
        _ = try store.transition(id: s.id, to: .running)
        #expect(try store.deleteUnchanged(id: s.id, records: 2))
        #expect(!f.exists(f.folder(s.id)))
        #expect(throws: SessionError.self) { try store.get(id: s.id) }
    }

    @Test("anything journaled since, even a read-only tool call seen by another store, keeps it")
    func usedIsKept() throws {
        let f = Fixture()
        let store = f.store()
        let read = try store.create(title: "r", agentType: "mcp")
        _ = try store.transition(id: read.id, to: .running)
        try store.recordReadOnlyToolCall(id: read.id, toolCallId: "c1", name: "read_file", arguments: ["path": "a"],
                                         result: ["isError": false], isError: false)
        #expect(try !store.deleteUnchanged(id: read.id, records: 2))
        #expect(try store.get(id: read.id).state == .running)
        // a change made through another store (another process) is seen on the newest journal
        let other = try store.create(title: "o", agentType: "mcp")
        _ = try store.transition(id: other.id, to: .running)
        store.release(id: other.id)
        let second = f.store(owner: "device-a")
        _ = try second.appendMessages(id: other.id, messages: [MessageInput(role: .user, content: "hi")])
        second.release(id: other.id)
        #expect(try !store.deleteUnchanged(id: other.id, records: 2))
        #expect(f.exists(f.folder(other.id)))
    }
}
