import JSON
import Testing
@testable import AgentSessions

@Suite("Tool calls")
struct ToolCallTests {
    @Test("a finished tool call is never run twice: the same id returns the recorded result, also after reopening")
    func idempotent() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)

        let first = try store.beginToolCall(id: s.id, toolCallId: "c1", name: "read_file", arguments: ["path": "a.md"])
        try store.finishToolCall(id: s.id, toolCallId: "c1", result: ["content": "hello"], isError: false)
        let again = try store.beginToolCall(id: s.id, toolCallId: "c1", name: "read_file", arguments: ["path": "a.md"])
        let afterReopen = try f.store().beginToolCall(id: s.id, toolCallId: "c1", name: "read_file")

        #expect(first == .started)
        #expect(again == .recorded(result: ["content": "hello"], isError: false))
        #expect(afterReopen == again)
        #expect(try store.get(id: s.id).pendingToolCalls.isEmpty)
        #expect(f.lines(f.journal(s.id)).filter { $0.contains(#""t":"begin""#) }.count == 1)
    }

    @Test("a call running in this server is reported in progress, not started twice")
    func inProgress() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)

        _ = try store.beginToolCall(id: s.id, toolCallId: "c1", name: "search_files", arguments: ["query": "x"])
        let second = try store.beginToolCall(id: s.id, toolCallId: "c1", name: "search_files", arguments: ["query": "x"])
        let pending = try store.get(id: s.id).pendingToolCalls

        #expect(second == .inProgress)
        #expect(pending.map(\.status) == [.running])
        #expect(pending.first?.arguments == ["query": "x"])
    }

    @Test("a call cut off by a crash shows up as interrupted after restart, and can be re-run")
    func interruptedThenRerun() throws {
        let f = Fixture()
        let crashed = f.store()
        let s = try session(in: .running, crashed)
        _ = try crashed.beginToolCall(id: s.id, toolCallId: "c1", name: "write_file", arguments: ["path": "x", "content": "y"])
        // The process dies here: `crashed` is never used again and never closed.

        let restarted = f.store()
        let pending = try restarted.get(id: s.id).pendingToolCalls
        let rerun = try restarted.beginToolCall(id: s.id, toolCallId: "c1", name: "write_file", arguments: ["path": "x", "content": "y"])
        try restarted.finishToolCall(id: s.id, toolCallId: "c1", result: ["etag": "1"])

        #expect(pending == [ToolCallRecord(toolCallId: "c1", name: "write_file", arguments: ["path": "x", "content": "y"],
                                           status: .interrupted, startedAtNanos: pending.first?.startedAtNanos)])
        #expect(rerun == .started)
        #expect(try restarted.get(id: s.id).pendingToolCalls.isEmpty)
        #expect(try f.store().toolCallResult(id: s.id, toolCallId: "c1")?.result == ["etag": "1"])
    }

    @Test("an interrupted call can be marked failed instead of re-run, and is then never run")
    func interruptedThenMarked() throws {
        let f = Fixture()
        let s = try session(in: .running, f.store())
        _ = try f.store().beginToolCall(id: s.id, toolCallId: "c1", name: "delete_file", arguments: ["path": "x"])

        let restarted = f.store()
        try restarted.finishToolCall(id: s.id, toolCallId: "c1", result: ["message": "interrupted by a restart"], isError: true)

        #expect(try restarted.get(id: s.id).pendingToolCalls.isEmpty)
        #expect(try restarted.beginToolCall(id: s.id, toolCallId: "c1", name: "delete_file")
            == .recorded(result: ["message": "interrupted by a restart"], isError: true))
    }

    @Test("pending calls declared in a checkpoint stay pending until begun, then finished")
    func declaredPending() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        let declared = ToolCallRecord(toolCallId: "c9", name: "list_files", arguments: "{}")

        _ = try store.checkpoint(id: s.id, pendingToolCalls: [declared])
        let afterCheckpoint = try f.store().get(id: s.id).pendingToolCalls
        _ = try store.beginToolCall(id: s.id, toolCallId: "c9", name: "list_files")
        let whileRunning = try store.get(id: s.id).pendingToolCalls
        try store.finishToolCall(id: s.id, toolCallId: "c9", result: [])

        #expect(afterCheckpoint.map(\.status) == [.pending])
        #expect(afterCheckpoint.first?.name == "list_files")
        #expect(whileRunning.map(\.status) == [.running])
        #expect(try store.get(id: s.id).pendingToolCalls.isEmpty)
    }

    @Test("finishing an unknown call is NotFound; starting one on a finished session is refused")
    func refusals() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        _ = try store.beginToolCall(id: s.id, toolCallId: "done", name: "read_file")
        try store.finishToolCall(id: s.id, toolCallId: "done", result: "r")
        _ = try store.transition(id: s.id, to: .completed)

        let unknown = #expect(throws: SessionError.self) { try store.finishToolCall(id: s.id, toolCallId: "nope", result: nil) }
        let late = #expect(throws: SessionError.self) { try store.beginToolCall(id: s.id, toolCallId: "new", name: "read_file") }

        #expect(unknown?.code == "NotFound")
        #expect(late?.code == "InvalidArgument")
        #expect(try store.beginToolCall(id: s.id, toolCallId: "done", name: "read_file") == .recorded(result: "r", isError: false))
    }
}
