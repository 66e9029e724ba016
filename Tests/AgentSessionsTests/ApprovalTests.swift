import JSON
import Testing
@testable import AgentSessions

@Suite("Approvals")
struct ApprovalTests {
    let delete = ToolFacts(name: "delete_file", effect: .replaces)
    let read = ToolFacts(name: "read_file", effect: .reads)
    let write = ToolFacts(name: "write_file", effect: .replaces)
    let append = ToolFacts(name: "append_file", effect: .adds)

    @Test("without a policy nothing asks for consent")
    func noPolicy() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        #expect(try store.checkApproval(id: s.id, toolCallId: "c1", tool: delete) == .notNeeded)
        #expect(try store.get(id: s.id).approvalPolicy == .none)
        #expect(try store.get(id: s.id).pendingApprovals.isEmpty)
    }

    @Test("the policies: destructive asks for calls that replace; rules by name and by effect")
    func policies() throws {
        #expect(ApprovalPolicy.destructive.requiresConsent(delete))
        #expect(!ApprovalPolicy.destructive.requiresConsent(append))
        let rules = try ApprovalPolicy(reading: ["tools": ["append_file"], "annotations": ["openWorld"]])
        #expect(rules.requiresConsent(append) && !rules.requiresConsent(delete))
        #expect(rules.requiresConsent(ToolFacts(name: "fetch", effect: .reads, openWorld: true)))
        let writes = try ApprovalPolicy(reading: ["annotations": ["write"]])
        #expect(writes.requiresConsent(append) && !writes.requiresConsent(read))
        #expect(try ApprovalPolicy(reading: "none") == .none)
        #expect(throws: ApprovalPolicy.Refusal.self) { try ApprovalPolicy(reading: ["annotations": ["scary"]]) }
        #expect(throws: ApprovalPolicy.Refusal.self) { try ApprovalPolicy(reading: "sometimes") }
    }

    @Test("a call needing consent is pending with an approval id, runs nothing, and survives a restart")
    func pendingSurvives() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .destructive)
        _ = try store.transition(id: s.id, to: .running)

        guard case .pending(let a) = try store.checkApproval(id: s.id, toolCallId: "c1", tool: delete, arguments: ["path": "x"]) else {
            Issue.record("not pending")
            return
        }
        #expect(a.approvalId.hasPrefix("apr_") && a.name == "delete_file" && a.arguments == ["path": "x"])
        #expect(try store.checkApproval(id: s.id, toolCallId: "c1", tool: delete, arguments: ["path": "x"]) == .pending(a))  // asked again: the same
        #expect(try store.get(id: s.id).pendingToolCalls.isEmpty)  // nothing began
        store.close()

        let restarted = f.store()
        let resumed = try restarted.resume(id: s.id)
        #expect(resumed.session.pendingApprovals.map(\.approvalId) == [a.approvalId])
        #expect(resumed.session.pendingApprovals.first?.toolCallId == "c1")
        #expect(resumed.session.approvalPolicy == .destructive)
    }

    @Test("approve allows or denies once; the same answer again changes nothing, the other is refused")
    func decide() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .destructive)
        _ = try store.checkApproval(id: s.id, toolCallId: "c1", tool: delete, arguments: ["path": "x"])
        _ = try store.checkApproval(id: s.id, toolCallId: "c2", tool: write)

        let allowed = try store.approve(id: s.id, toolCallId: "c1", decision: .allow)
        let denied = try store.approve(id: s.id, toolCallId: "c2", decision: .deny)

        #expect(allowed.decision == .allow && allowed.arguments == ["path": "x"])
        #expect(denied.decision == .deny)
        #expect(try f.store().checkApproval(id: s.id, toolCallId: "c1", tool: delete, arguments: ["path": "x"]) == .allowed)
        #expect(try f.store().checkApproval(id: s.id, toolCallId: "c2", tool: write) == .denied)
        #expect(try store.approve(id: s.id, toolCallId: "c1", decision: .allow) == allowed)
        #expect(throws: SessionError.self) { try store.approve(id: s.id, toolCallId: "c1", decision: .deny) }
        #expect(throws: SessionError.self) { try store.approve(id: s.id, toolCallId: "nope", decision: .allow) }
        #expect(try store.get(id: s.id).pendingApprovals.isEmpty)
        // A refused call is closed with a result, so the model hears of it and it never runs.
        try store.finishToolCall(id: s.id, toolCallId: "c2", result: "the user refused", isError: true)
        #expect(try store.beginToolCall(id: s.id, toolCallId: "c2", name: "write_file") == .recorded(result: "the user refused", isError: true))
    }

    @Test("a remembered decision answers later calls of the same tool; the policy can change later")
    func rememberAndChange() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .destructive)
        _ = try store.checkApproval(id: s.id, toolCallId: "c1", tool: delete)
        _ = try store.approve(id: s.id, toolCallId: "c1", decision: .allow, remember: true)
        #expect(try f.store().checkApproval(id: s.id, toolCallId: "c2", tool: delete) == .allowed)
        guard case .pending = try store.checkApproval(id: s.id, toolCallId: "c3", tool: write) else {
            Issue.record("write_file should still ask")
            return
        }
        let changed = try store.setApprovalPolicy(id: s.id, .none)
        #expect(changed.approvalPolicy == .none)
        #expect(try f.store().checkApproval(id: s.id, toolCallId: "c4", tool: write) == .notNeeded)
        #expect(try f.store().get(id: s.id).pendingApprovals.map(\.toolCallId) == ["c3"])  // still waiting for an answer
    }

    @Test("a pending approval whose call is closed without an answer waits no more")
    func closedWithoutAnswer() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .destructive)
        _ = try store.checkApproval(id: s.id, toolCallId: "c1", tool: delete)
        try store.finishToolCall(id: s.id, toolCallId: "c1", result: "the user walked away", isError: true)
        #expect(try f.store().get(id: s.id).pendingApprovals.isEmpty)
    }

    @Test("the policy weighs the call's effect, whichever tool makes it")
    func byEffect() throws {
        let plainCopy = ToolFacts(name: "copy_file", effect: .adds)
        let overwritingCopy = ToolFacts(name: "copy_file", effect: .replaces)
        #expect(!ApprovalPolicy.destructive.requiresConsent(plainCopy))
        #expect(ApprovalPolicy.destructive.requiresConsent(overwritingCopy))
        let writes = try ApprovalPolicy(reading: ["annotations": ["write"]])
        #expect(writes.requiresConsent(plainCopy) && writes.requiresConsent(overwritingCopy))
        let destructiveRule = try ApprovalPolicy(reading: ["annotations": ["destructive"]])
        #expect(destructiveRule.requiresConsent(overwritingCopy) && !destructiveRule.requiresConsent(plainCopy))
        #expect(ToolEffect.reads < .adds && ToolEffect.adds < .replaces)
    }

    @Test("an approval covers only the tool and arguments it was asked for; the digest ignores key order")
    func boundToToolAndArguments() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .rules(tools: ["search_files"], annotations: []))
        let search = ToolFacts(name: "search_files", effect: .reads)
        _ = try store.checkApproval(id: s.id, toolCallId: "t1", tool: search, arguments: ["query": "x", "path": "a"])
        _ = try store.approve(id: s.id, toolCallId: "t1", decision: .allow)
        // The same call, its arguments in another order: the decision stands.
        #expect(try store.checkApproval(id: s.id, toolCallId: "t1", tool: search, arguments: ["path": "a", "query": "x"]) == .allowed)
        // Another tool, or other arguments, under the approved id: refused, and nothing recorded.
        do {
            _ = try store.checkApproval(id: s.id, toolCallId: "t1", tool: write, arguments: ["path": "precious.md", "content": ""])
            Issue.record("another tool ran under t1's approval")
        } catch {
            #expect(error.kind == .invalidArgument && error.details.approvalName == "search_files")
        }
        #expect(throws: SessionError.self) {
            try store.checkApproval(id: s.id, toolCallId: "t1", tool: search, arguments: ["query": "y", "path": "a"])
        }
        #expect(try f.store().get(id: s.id).pendingApprovals.isEmpty)
        #expect(ArgumentsDigest.canonical(["b": 1, "a": ["d": 2, "c": 3]]) == ["a": ["c": 3, "d": 2], "b": 1])
    }

    @Test("a remembered decision answers later calls of the same tool with the same effect only")
    func rememberedPerEffect() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(approvalPolicy: .rules(tools: [], annotations: ["write"]))
        let plainCopy = ToolFacts(name: "copy_file", effect: .adds)
        _ = try store.checkApproval(id: s.id, toolCallId: "c1", tool: plainCopy, arguments: ["from": "a", "to": "b"])
        #expect(try store.get(id: s.id).pendingApprovals.first?.effect == .adds)
        _ = try store.approve(id: s.id, toolCallId: "c1", decision: .allow, remember: true)
        #expect(try f.store().checkApproval(id: s.id, toolCallId: "c2", tool: plainCopy, arguments: ["from": "a", "to": "c"]) == .allowed)
        let overwrite = ToolFacts(name: "copy_file", effect: .replaces)
        guard case .pending = try f.store().checkApproval(id: s.id, toolCallId: "c3", tool: overwrite,
                                                          arguments: ["from": "a", "to": "b", "overwrite": true]) else {
            Issue.record("an overwriting copy ran under a decision remembered for plain copies")
            return
        }
    }
}
