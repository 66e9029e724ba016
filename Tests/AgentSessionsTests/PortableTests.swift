import JSON
import Testing
@testable import AgentSessions

@Suite("Export and import")
struct PortableTests {
    /// A session with a bit of everything: messages, a tool result, an unfinished call, usage,
    /// an active and an undone compaction, an approval policy and a pending approval.
    private func richSession(_ store: SessionStore) throws -> String {
        let s = try store.create(title: "trip", agentType: "chatAssistant", config: SessionConfig(modelTier: .fast, maxTurns: 50),
                                 metadata: ["tag": "x"], approvalPolicy: .destructive)
        _ = try store.transition(id: s.id, to: .running)
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<12))
        _ = try store.beginToolCall(id: s.id, toolCallId: "t1", name: "read_file", arguments: ["path": "a.md"])
        try store.finishToolCall(id: s.id, toolCallId: "t1", result: ["content": "é ✓ \u{1F600}"], isError: false)
        _ = try store.beginToolCall(id: s.id, toolCallId: "t2", name: "write_file", arguments: ["path": "b.md"])
        _ = try store.recordUsage(id: s.id, inputTokens: 1234, outputTokens: 56)
        let undone = try store.compact(id: s.id, throughMessageId: "m2", summary: "three", by: "user")
        _ = try store.uncompact(id: s.id, compactionId: undone.id)
        _ = try store.compact(id: s.id, throughMessageId: "m7", fromMessageId: "m3", summary: ["type": "text", "text": "five"], by: "agent")
        _ = try store.checkApproval(id: s.id, toolCallId: "t3", tool: ToolFacts(name: "delete_file", effect: .replaces),
                                    arguments: ["path": "c.md"])
        return s.id
    }

    /// The export without what differs between two exports of equal sessions (ids, checksum).
    private func comparable(_ e: ExportedSession) throws -> JSON {
        guard case .object(var o) = try JSONCodec.decode(e.bytes), case .object(var s)? = o["session"] else { return .null }
        s["id"] = nil
        o["session"] = .object(s)
        o["checksum"] = nil
        return .object(o)
    }

    @Test("an export is one self-describing JSON document with messages, tool calls, usage, compactions and a checksum")
    func selfDescribing() throws {
        let f = Fixture()
        let store = f.store()
        let id = try richSession(store)

        let e = try store.export(id: id)

        let doc = try JSONCodec.decode(e.bytes)
        #expect(doc["format"] == "workspace-bridge.session")
        #expect(doc["version"] == 1)
        #expect(doc["session"]?["title"] == "trip")
        #expect(doc["session"]?["usage"]?["inputTokens"] == 1234)
        #expect(doc["messages"]?.arrayValue?.count == 12)  // originals of the active compaction included
        #expect(doc["messages"]?.arrayValue?.filter { $0["compactedBy"] != nil }.count == 5)
        #expect(doc["compactions"]?.arrayValue?.count == 2)
        #expect(doc["toolCalls"]?.arrayValue?.map { $0["id"] } == ["t1", "t2"])
        #expect(doc["checksum"]?["algorithm"] == "sha256")
        #expect(e.sha256.count == 64)
        #expect(e.defaultPath == "Chats/\(id).json")
    }

    @Test("import round-trips exactly: a new id when the id is taken, the same views, and an export equal to the first")
    func roundTrip() throws {
        let f = Fixture()
        let store = f.store()
        let id = try richSession(store)
        let first = try store.export(id: id)

        let imported = try store.importSession(first.bytes)

        #expect(imported.replacedId == id)
        let new = imported.session.id
        #expect(new != id)
        let again = try comparable(store.export(id: new))
        let original = try comparable(first)
        for key in ["session", "messages", "compactions", "toolCalls"] {
            #expect(again[key] == original[key], "\(key) differs: \(again[key].map { JSONCodec.encodeString($0) } ?? "") vs \(original[key].map { JSONCodec.encodeString($0) } ?? "")")
        }
        #expect(again == original)
        #expect(try store.messages(id: new, limit: 1000) == store.messages(id: id, limit: 1000))
        #expect(try store.messages(id: new, limit: 1000, includeCompacted: true) == store.messages(id: id, limit: 1000, includeCompacted: true))
        var a = try store.get(id: new)
        let b = try store.get(id: id)
        #expect(a.state == .running && a.usage == b.usage && a.compactions == b.compactions)
        #expect(a.pendingApprovals.map(\.toolCallId) == ["t3"])
        #expect(a.pendingToolCalls.map(\.toolCallId) == ["t2"])
        a.title = b.title
        #expect(try store.beginToolCall(id: new, toolCallId: "t1", name: "read_file") == .recorded(result: ["content": "é ✓ \u{1F600}"], isError: false))
        // Into another workspace the id is free, so it is kept.
        let other = Fixture()
        let there = try other.store().importSession(first.bytes)
        #expect(there.replacedId == nil && there.session.id == id)
        #expect(try comparable(other.store().export(id: id)) == comparable(first))
    }

    @Test("a damaged, foreign, truncated or future file is a typed error and leaves no session behind")
    func refusals() throws {
        let f = Fixture()
        let store = f.store()
        let id = try richSession(store)
        let good = try store.export(id: id).bytes
        let other = Fixture()
        let target = other.store()

        var flipped = good
        let k = flipped.firstIndex(of: UInt8(ascii: "5"))!  // a digit inside the content
        flipped[k] = UInt8(ascii: "6")
        let cases: [(String, [UInt8])] = [
            ("damaged", flipped),
            ("damaged", Array(good.prefix(good.count / 2))),
            ("damaged", Array("not json".utf8)),
            ("foreign", JSONCodec.encode(["hello": "world"])),
            ("foreign", JSONCodec.encode(["format": "langgraph", "version": 1])),
            ("unsupportedVersion", JSONCodec.encode(["format": "workspace-bridge.session", "version": 99])),
        ]
        for (reason, bytes) in cases {
            do {
                _ = try target.importSession(bytes)
                Issue.record("imported a \(reason) file")
            } catch {
                #expect(error.kind == .invalidArgument)
                #expect(error.details.reason == reason)
            }
        }
        #expect(try target.list().sessions.isEmpty)
        #expect((Disk.list(other.sessionsDirectory) ?? []).filter { !$0.hasSuffix(".json") }.isEmpty)
    }

    @Test("a file whose checksum matches but whose content does not replay is refused whole")
    func consistentButWrong() throws {
        let f = Fixture()
        let store = f.store()
        let id = try richSession(store)
        guard case .object(var doc) = try JSONCodec.decode(store.export(id: id).bytes) else { return }
        // A compaction through a message that is not there: made by a tool, with a fresh checksum.
        guard case .array(var cs)? = doc["compactions"], case .object(var c) = cs[1] else { return }
        c["through"] = "m999"
        cs[1] = .object(c)
        doc["compactions"] = .array(cs)
        doc["checksum"] = ["algorithm": "sha256", "value": .string(ExportFormat.zeros)]
        var bytes = JSONCodec.encode(.object(doc))
        let digest = try Digest.sha256(bytes)
        bytes.replaceSubrange(ExportFormat.lastRange(of: ExportFormat.zeros, in: bytes)!, with: Array(digest.utf8))

        let other = Fixture()
        do {
            _ = try other.store().importSession(bytes)
            Issue.record("imported a file that does not replay")
        } catch {
            #expect(error.details.reason == "damaged")
            #expect(error.message.contains("does not fit"))
        }
        #expect(try other.store().list().sessions.isEmpty)
    }
}

/// An export edited by an attacker and signed again (the checksum proves the file whole, not who wrote it).
private func resigned(_ e: ExportedSession, _ edit: (inout JSONObject) -> Void) throws -> [UInt8] {
    guard case .object(var doc) = try JSONCodec.decode(e.bytes) else { return [] }
    edit(&doc)
    doc["checksum"] = nil
    doc["checksum"] = ["algorithm": "sha256", "value": .string(ExportFormat.zeros)]
    var bytes = JSONCodec.encode(.object(doc))
    let digest = try Digest.sha256(bytes)
    bytes.replaceSubrange(ExportFormat.lastRange(of: ExportFormat.zeros, in: bytes)!, with: Array(digest.utf8))
    return bytes
}

private func editSession(_ doc: inout JSONObject, _ edit: (inout JSONObject) -> Void) {
    guard case .object(var s)? = doc["session"] else { return }
    edit(&s)
    doc["session"] = .object(s)
}

@Suite("Import of a hostile file (issue 22)")
struct HostileImportTests {
    private func refused(_ bytes: [UInt8], _ words: String..., field: String? = nil) {
        let f = Fixture()
        let store = f.store()
        do {
            _ = try store.importSession(bytes)
            Issue.record("imported a hostile file")
        } catch {
            #expect(error.kind == .invalidArgument && error.details.reason == "damaged", "\(error)")
            for w in words { #expect(error.message.contains(w), "\(error.message) lacks \(w)") }
            if let field { #expect(error.details.field == field) }
        }
        #expect((try? store.list().sessions.isEmpty) == true)
    }

    private func source(_ f: Fixture) throws -> (SessionStore, String) {
        let store = f.store()
        let s = try store.create(title: "t", approvalPolicy: .destructive)
        _ = try store.transition(id: s.id, to: .running)
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<4))
        _ = try store.recordUsage(id: s.id, inputTokens: 10, outputTokens: 2)
        return (store, s.id)
    }

    @Test("usage must be whole, non-negative, finite and under the caps", arguments: [
        ("turns", JSON.int(-1_000_000)), ("inputTokens", .int(-1)), ("outputTokens", .int(Int64.min)),
        ("inputTokens", .int(UsageCaps.tokens + 1)), ("turns", .int(UsageCaps.turns + 1)), ("turns", .double(1.5)),
        ("outputTokens", .string("5")), ("estimatedCostUSD", .double(-1e308)), ("estimatedCostUSD", .double(-0.01)),
        ("estimatedCostUSD", .double(UsageCaps.costUSD * 2)), ("estimatedCostUSD", .string("0")),
    ])
    func usage(member: String, value: JSON) throws {
        let f = Fixture()
        let (store, id) = try source(f)
        let bytes = try resigned(store.export(id: id)) { doc in
            editSession(&doc) { s in
                guard case .object(var u)? = s["usage"] else { return }
                u[member] = value
                s["usage"] = .object(u)
            }
        }
        refused(bytes, "usage.\(member)", field: "session.usage.\(member)")
    }

    @Test("usage at the caps and a missing usage import; the caps leave room to add without overflow")
    func usageAtTheCaps() throws {
        #expect(try UsageCaps.checked(nil) == Usage())
        let top = try UsageCaps.checked(["inputTokens": .int(UsageCaps.tokens), "outputTokens": 0, "turns": .int(UsageCaps.turns),
                                         "estimatedCostUSD": .double(UsageCaps.costUSD)])
        #expect(top.inputTokens == Int(UsageCaps.tokens) && top.turns == Int(UsageCaps.turns))
        #expect(Int64(top.inputTokens).addingReportingOverflow(Int64(Int32.max) * 1_000_000).overflow == false)
        #expect(try UsageCaps.checked(["turns": 2.0]).turns == 2)  // a whole number written as 2.0
    }

    @Test("an unknown or missing state is damaged and names the states", arguments: [JSON.string("sleeping"), .int(3), .null, .string("")])
    func state(value: JSON) throws {
        let f = Fixture()
        let (store, id) = try source(f)
        let bytes = try resigned(store.export(id: id)) { doc in editSession(&doc) { $0["state"] = value } }
        refused(bytes, "state", "idle, running, waitingForUser, backgrounded, completed, failed", field: "session.state")
    }

    @Test("a message id, tool call id or compaction id twice is damaged, never silently dropped")
    func duplicates() throws {
        let f = Fixture()
        let (store, id) = try source(f)
        _ = try store.beginToolCall(id: id, toolCallId: "t1", name: "read_file", arguments: [:])
        try store.finishToolCall(id: id, toolCallId: "t1", result: "ok", isError: false)
        _ = try store.compact(id: id, throughMessageId: "m1", summary: "s", by: "user")
        let e = try store.export(id: id)
        refused(try resigned(e) { doc in
            guard case .array(var m)? = doc["messages"] else { return }
            m.append(m[3])
            doc["messages"] = .array(m)
        }, "message id m3 occurs twice", field: "messages.id")
        refused(try resigned(e) { doc in
            guard case .array(let t)? = doc["toolCalls"] else { return }
            doc["toolCalls"] = .array(t + t)
        }, "tool call id t1 occurs twice", field: "toolCalls.id")
        refused(try resigned(e) { doc in
            guard case .array(let c)? = doc["compactions"] else { return }
            doc["compactions"] = .array(c + c)
        }, "occurs twice", field: "compactions.id")
    }

    @Test("a compaction carrying journal references out of range is ignored, never trusted (no trap)")
    func compactionRefs() throws {
        let f = Fixture()
        let (store, id) = try source(f)
        _ = try store.compact(id: id, throughMessageId: "m1", summary: "s", by: "user")
        let bytes = try resigned(store.export(id: id)) { doc in
            guard case .array(var c)? = doc["compactions"], case .object(var o) = c[0] else { return }
            o["originals"] = [["m0", .int(0), .int(Int64.max), .int(0)]]
            c[0] = .object(o)
            doc["compactions"] = .array(c)
        }
        let other = Fixture()
        let imported = try other.store().importSession(bytes)
        #expect(try other.store().messages(id: imported.session.id, limit: 10, includeCompacted: true).count == 5)
    }

    @Test("decided approvals and remembered decisions are dropped and counted; pending ones stay, granting nothing")
    func consent() throws {
        let f = Fixture()
        let (store, id) = try source(f)
        let del = ToolFacts(name: "delete_file", effect: .replaces)
        _ = try store.checkApproval(id: id, toolCallId: "a1", tool: del, arguments: ["path": "x"])
        _ = try store.approve(id: id, toolCallId: "a1", decision: .allow, remember: true)
        _ = try store.checkApproval(id: id, toolCallId: "a2", tool: ToolFacts(name: "write_file", effect: .replaces),
                                    arguments: ["path": "y"])
        let bytes = try resigned(store.export(id: id)) { doc in
            editSession(&doc) { s in
                guard case .object(var x)? = s["extras"], case .array(var a)? = x["approvals"] else { return }
                a.append(["aid": "apr_p", "call": "planted", "name": "write_file", "args": [:], "at": 1, "decision": "allow",
                          "remember": true])
                x["approvals"] = .array(a)
                x["remembered"] = ["delete_file": "allow", "move_file": "deny"]
                s["extras"] = .object(x)
            }
        }
        let other = Fixture()
        let target = other.store()
        let imported = try target.importSession(bytes)
        #expect(imported.notImported == NotImported(decidedApprovals: 2, rememberedDecisions: ["delete_file", "move_file"]))
        let s = imported.session
        #expect(s.approvalPolicy == .destructive)
        #expect(s.pendingApprovals.map(\.toolCallId) == ["a2"])
        #expect(try target.checkApproval(id: s.id, toolCallId: "planted", tool: ToolFacts(name: "write_file", effect: .replaces)) != .allowed)
        if case .pending = try target.checkApproval(id: s.id, toolCallId: "a3", tool: del) {} else { Issue.record("a remembered allow was imported") }
        if case .pending = try target.checkApproval(id: s.id, toolCallId: "a2", tool: ToolFacts(name: "write_file", effect: .replaces),
                                                   arguments: ["path": "y"]) {} else {
            Issue.record("the pending approval was decided")
        }
        // Exporting the import carries no consent either.
        let again = try JSONCodec.decode(target.export(id: s.id).bytes)
        #expect(again["session"]?["extras"]?["remembered"] == nil)
    }

    @Test("an import whose id another process took is installed under a new id; nothing is replaced or left behind")
    func takenMeanwhile() throws {
        let f = Fixture()
        let (store, id) = try source(f)
        let e = try store.export(id: id)
        let other = Fixture()
        let a = other.store()
        let b = other.store(owner: "device-b")  // another process on the same folder
        let first = try a.importSession(e.bytes)
        let second = try b.importSession(e.bytes)
        #expect(first.session.id == id && first.replacedId == nil)
        #expect(second.session.id != id && second.replacedId == id)
        #expect(try a.messages(id: id, limit: 10) == b.messages(id: second.session.id, limit: 10))
        #expect((Disk.list(other.sessionsDirectory) ?? []).filter { $0.hasPrefix(".new-") }.isEmpty)
    }
}
