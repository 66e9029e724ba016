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
                #expect(error.data["reason"] == .string(reason))
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
            #expect(error.data["reason"] == "damaged")
            #expect(error.message.contains("does not fit"))
        }
        #expect(try other.store().list().sessions.isEmpty)
    }
}
