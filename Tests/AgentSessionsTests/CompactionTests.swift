import JSON
import Synchronization
import Testing
@testable import AgentSessions

@Suite("Compaction", .serialized)
struct CompactionTests {
    private func tenMessages(_ store: SessionStore) throws -> String {
        let s = try store.create()
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<10))
        return s.id
    }

    @Test("the summary stands in the place of the run it replaced, marked with what it replaced; originals on request")
    func summaryInPlace() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenMessages(store)

        let c = try store.compact(id: id, throughMessageId: "m5", fromMessageId: "m2", summary: "m2 to m5 in short", by: "agent:writer")

        let view = try store.messages(id: id)
        #expect(view.map(\.id) == ["m0", "m1", c.id, "m6", "m7", "m8", "m9"])
        let summary = view[2]
        #expect(summary.content == "m2 to m5 in short")
        #expect(summary.role == .system)
        #expect(summary.compaction?.firstMessageId == "m2")
        #expect(summary.compaction?.throughMessageId == "m5")
        #expect(summary.compaction?.count == 4)
        #expect(summary.compaction?.by == "agent:writer")
        let full = try store.messages(id: id, includeCompacted: true)
        #expect(full.map(\.id) == ["m0", "m1", c.id, "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"])
        #expect(full.filter { $0.compactedBy == c.id }.map(\.id) == ["m2", "m3", "m4", "m5"])
        #expect(full[3].content == "message 2")
        // Paging goes through the summary like through any message.
        #expect(try store.messages(id: id, after: c.id, limit: 2).map(\.id) == ["m6", "m7"])
    }

    @Test("every compaction is listed with who, when and what, undone ones too; uncompact restores the originals")
    func listedAndUndone() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenMessages(store)
        let a = try store.compact(id: id, throughMessageId: "m3", summary: "first four", by: "user")
        let b = try store.compact(id: id, throughMessageId: "m6", summary: "next three", role: .assistant, by: "agent")
        #expect(b.firstMessageId == "m4")  // starts after the previous compaction's place
        #expect(try messageIds(store, id) == [a.id, b.id, "m7", "m8", "m9"])

        let undone = try store.uncompact(id: id, compactionId: a.id)

        #expect(!undone.isActive)
        #expect(try messageIds(store, id) == ["m0", "m1", "m2", "m3", b.id, "m7", "m8", "m9"])
        let listed = try store.get(id: id).compactions
        #expect(listed.map(\.id) == [a.id, b.id])
        #expect(listed.map(\.by) == ["user", "agent"])
        #expect(listed[0].undoneAtNanos != nil && listed[1].isActive)
        #expect(try store.get(id: id).compactions.count == 2)
        #expect(try store.uncompact(id: id, compactionId: a.id) == undone)  // again: nothing changes
        #expect(throws: SessionError.self) { try store.uncompact(id: id, compactionId: "cmp_none") }
    }

    @Test("compaction and its undoing are durable: a new store sees the same views, with and without a rewrite")
    func durable() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenMessages(store)
        let a = try store.compact(id: id, throughMessageId: "m4", summary: "half", by: "user")
        let before = try store.messages(id: id, includeCompacted: true)
        #expect(try f.store().messages(id: id, includeCompacted: true) == before)

        _ = try store.rewrite(id: id)  // the originals move to the archive
        #expect(f.exists(f.folder(id) + "/compacted.jsonl"))
        #expect(!String(decoding: f.read(f.journal(id)), as: UTF8.self).contains("message 2\""))
        #expect(try store.messages(id: id, includeCompacted: true) == before)
        #expect(try f.store().messages(id: id, includeCompacted: true) == before)

        _ = try store.uncompact(id: id, compactionId: a.id)
        #expect(try messageIds(f.store(), id) == (0..<10).map { "m\($0)" })
        #expect(try f.store().messages(id: id) == store.messages(id: id))
    }

    @Test("a run over another compaction is refused; through a summary or an unknown message too")
    func refusals() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenMessages(store)
        let a = try store.compact(id: id, throughMessageId: "m5", fromMessageId: "m3", summary: "s", by: "u")
        #expect(throws: SessionError.self) { try store.compact(id: id, throughMessageId: "m7", fromMessageId: "m1", summary: "s", by: "u") }
        #expect(throws: SessionError.self) { try store.compact(id: id, throughMessageId: a.id, summary: "s", by: "u") }
        #expect(throws: SessionError.self) { try store.compact(id: id, throughMessageId: "m42", summary: "s", by: "u") }
        #expect(throws: SessionError.self) { try store.compact(id: id, throughMessageId: "m1", summary: .null, by: "u") }
        #expect(try messageIds(store, id) == ["m0", "m1", "m2", a.id, "m6", "m7", "m8", "m9"])
    }

    @Test("journals written before compactions existed still load unchanged")
    func oldJournalsLoad() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<3))
        let journal = String(decoding: f.read(f.journal(s.id)), as: UTF8.self)
        #expect(!journal.contains("\"base\"") && !journal.contains("compact"))
        #expect(try messageIds(f.store(), s.id) == ["m0", "m1", "m2"])
    }

    @Test("a rewrite stopped at any step (as by SIGKILL) loses nothing: a restarted store shows the same session")
    func rewriteStoppedAtEveryStep() throws {
        for step in RewriteStep.allCases {
            let f = Fixture()
            let store = f.store()
            let s = try session(in: .running, store)
            _ = try store.appendMessages(id: s.id, messages: numbered(0..<40))
            _ = try store.beginToolCall(id: s.id, toolCallId: "done", name: "read_file", arguments: ["path": "a"])
            try store.finishToolCall(id: s.id, toolCallId: "done", result: ["content": "A"])
            _ = try store.beginToolCall(id: s.id, toolCallId: "open", name: "write_file", arguments: ["path": "b"])
            _ = try store.recordUsage(id: s.id, inputTokens: 100, outputTokens: 10)
            _ = try store.checkpoint(id: s.id, partialResults: ["step": 3])
            let c = try store.compact(id: s.id, throughMessageId: "m29", summary: "thirty", by: "user")
            let view = try store.messages(id: s.id, limit: 1000)
            let full = try store.messages(id: s.id, limit: 1000, includeCompacted: true)
            let facts = try store.get(id: s.id)
            store.rewriteStop.withLock { $0 = { $0 == step } }

            #expect(throws: SessionError.self) { try store.rewrite(id: s.id) }

            store.rewriteStop.withLock { $0 = nil }
            let restarted = f.store()
            #expect(try restarted.messages(id: s.id, limit: 1000) == view, "at \(step)")
            #expect(try restarted.messages(id: s.id, limit: 1000, includeCompacted: true) == full, "at \(step)")
            let after = try restarted.get(id: s.id)
            #expect(after.usage == facts.usage && after.state == facts.state, "at \(step)")
            #expect(after.pendingToolCalls.map(\.toolCallId) == ["open"], "at \(step)")
            #expect(try restarted.toolCallResult(id: s.id, toolCallId: "done")?.result == ["content": "A"], "at \(step)")
            #expect(try restarted.resume(id: s.id).partialResults == ["step": 3], "at \(step)")
            // And the session goes on: a later rewrite and an undo still work.
            _ = try restarted.rewrite(id: s.id)
            _ = try restarted.uncompact(id: s.id, compactionId: c.id)
            #expect(try messageIds(restarted, s.id) == (0..<40).map { "m\($0)" }, "at \(step)")
            #expect(f.isClean(f.journal(s.id)))
        }
    }

    @Test("after a rewrite the session holds the same facts, and the in-memory state is what replaying gives")
    func rewriteKeepsFacts() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<20))
        _ = try store.beginToolCall(id: s.id, toolCallId: "t1", name: "read_file")
        try store.finishToolCall(id: s.id, toolCallId: "t1", result: "one")
        _ = try store.checkpoint(id: s.id, pendingToolCalls: [ToolCallRecord(toolCallId: "p", name: "list_files")],
                                 partialResults: [1, 2])
        _ = try store.checkpoint(id: s.id)
        _ = try store.recordUsage(id: s.id, inputTokens: 7, outputTokens: 3, model: "claude-3-haiku-20240307")
        _ = try store.compact(id: s.id, throughMessageId: "m9", summary: "ten", by: "user")
        let before = try store.get(id: s.id)
        let resumeBefore = try store.resume(id: s.id)

        let sizes = try store.rewrite(id: s.id)

        #expect(sizes.after < sizes.before)
        #expect(try store.get(id: s.id) == before)
        let resumed = try f.store().resume(id: s.id)
        #expect(resumed.session.usage == resumeBefore.session.usage)
        #expect(resumed.messagesTail == resumeBefore.messagesTail)
        #expect(resumed.partialResults == [1, 2])
        #expect(resumed.pendingToolCalls.map(\.toolCallId) == ["p"])
        let h = try #require(store.handles.withLock { $0[s.id] })
        var replayed = try #require(try SessionLoader.load(folder: f.folder(s.id), id: s.id, useSnapshot: false)?.data)
        replayed.sinceSnapshot = h.data!.sinceSnapshot
        #expect(h.data! == replayed, "the live state and the replay differ")
        // Appending after a rewrite works and survives.
        _ = try store.appendMessages(id: s.id, messages: numbered(20..<21))
        #expect(try messageIds(f.store(), s.id).last == "m20")
    }

    @Test("a retried append of messages compacted since stores nothing twice, with the originals in the journal or the archive")
    func retriedAppendAfterCompaction() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenMessages(store)
        let c = try store.compact(id: id, throughMessageId: "m4", summary: "five", by: "user")
        #expect(try store.appendMessages(id: id, messages: numbered(3..<6)) == 0)
        _ = try store.rewrite(id: id)
        #expect(try f.store().appendMessages(id: id, messages: numbered(0..<12)) == 2)
        #expect(try messageIds(store, id) == [c.id] + (5..<12).map { "m\($0)" })
    }
}
