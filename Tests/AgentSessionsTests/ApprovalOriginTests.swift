import JSON
import Testing
@testable import AgentSessions

/// Approvals asked for by callers without tool call ids of their own (MCP's `tools/call`).
@Suite("Approvals by origin")
struct ApprovalOriginTests {
    let write = ToolFacts(name: "write_file", effect: .replaces)

    @Test("an approval keeps its origin across a restart, and openApproval finds it until its call begins")
    func openUntilBegun() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .destructive)
        _ = try store.transition(id: s.id, to: .running)
        let args: JSON = ["path": "a", "content": "x"]
        guard case .pending(let a) = try store.checkApproval(id: s.id, toolCallId: "m1", tool: write, arguments: args, origin: "mcp") else {
            Issue.record("not pending")
            return
        }
        #expect(a.origin == "mcp")
        let open = try store.openApproval(id: s.id, tool: write) { $0 == args }
        #expect(open.open?.approvalId == a.approvalId && open.policyAsks)
        #expect(try store.openApproval(id: s.id, tool: write) { $0 == ["path": "b"] }.open == nil)
        let read = try store.openApproval(id: s.id, tool: ToolFacts(name: "read_file", effect: .reads)) { _ in true }
        #expect(read.open == nil && !read.policyAsks)
        store.close()

        let restarted = f.store()
        #expect(try restarted.approval(id: s.id, approvalId: a.approvalId)?.origin == "mcp")
        _ = try restarted.approve(id: s.id, toolCallId: "m1", decision: .allow)
        #expect(try restarted.openApproval(id: s.id, tool: write) { $0 == args }.open?.decision == .allow)  // decided, not yet run
        _ = try restarted.beginToolCall(id: s.id, toolCallId: "m1", name: "write_file", arguments: args)
        #expect(try restarted.openApproval(id: s.id, tool: write) { $0 == args }.open == nil)  // its call began: a new call asks anew
        #expect(try restarted.approval(id: s.id, approvalId: "apr_none") == nil)
    }

    @Test("an approval without an origin has none (session/callTool's)")
    func noOrigin() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .destructive)
        guard case .pending(let a) = try store.checkApproval(id: s.id, toolCallId: "c1", tool: write) else {
            Issue.record("not pending")
            return
        }
        #expect(a.origin == nil)
    }
}
