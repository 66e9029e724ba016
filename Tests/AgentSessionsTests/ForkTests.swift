import JSON
import Testing
@testable import AgentSessions

/// Helpers for the issue-17 suites.
func messageIds(_ store: SessionStore, _ id: String, includeCompacted: Bool = false) throws -> [String] {
    try store.messages(id: id, limit: 100_000, includeCompacted: includeCompacted).map(\.id)
}

func numbered(_ range: Range<Int>, prefix: String = "m") -> [MessageInput] {
    range.map { MessageInput(id: "\(prefix)\($0)", role: $0 % 2 == 0 ? .user : .assistant, content: .string("message \($0)")) }
}

@Suite("Fork")
struct ForkTests {
    @Test("a fork holds the history up to and including the chosen message, and says where it came from")
    func forkAtMessage() throws {
        let f = Fixture()
        let store = f.store()
        let parent = try store.create(title: "plan", agentType: "researchAgent", config: SessionConfig(modelTier: .balanced, maxTurns: 9),
                                      metadata: ["k": "v"])
        _ = try store.appendMessages(id: parent.id, messages: numbered(0..<10))

        let fork = try store.fork(id: parent.id, atMessageId: "m4", title: "what if")

        #expect(fork.id != parent.id)
        #expect(fork.title == "what if")
        #expect(fork.agentType == "researchAgent")
        #expect(fork.config == SessionConfig(modelTier: .balanced, maxTurns: 9))
        #expect(fork.metadata == ["k": "v"])
        #expect(fork.state == .idle)
        #expect(fork.lineage?.parentId == parent.id)
        #expect(fork.lineage?.messageId == "m4")
        #expect(fork.lineage?.messageId == "m4")
        #expect(try messageIds(store, fork.id) == (0...4).map { "m\($0)" })
        // The messages are the same, times included.
        #expect(try store.messages(id: fork.id, limit: 5) == store.messages(id: parent.id, limit: 5))
        #expect(try store.get(id: parent.id).lineage == nil)
    }

    @Test("without a message the fork takes everything; a cut inside a multi-message record keeps only its head")
    func forkAllAndCutInsideRecord() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<3))
        _ = try store.appendMessages(id: s.id, messages: numbered(3..<8))  // one record of five

        let all = try store.fork(id: s.id)
        let cut = try store.fork(id: s.id, atMessageId: "m5")

        #expect(try messageIds(store, all.id) == (0..<8).map { "m\($0)" })
        #expect(try messageIds(store, cut.id) == (0...5).map { "m\($0)" })
        #expect(try messageIds(f.store(owner: "other"), cut.id) == (0...5).map { "m\($0)" })  // from disk
    }

    @Test("parent and fork go on independently, and both survive a restart")
    func independent() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<4))
        let fork = try store.fork(id: s.id, atMessageId: "m1")

        _ = try store.appendMessages(id: fork.id, messages: [MessageInput(id: "f1", role: .user, content: "in the fork")])
        _ = try store.appendMessages(id: s.id, messages: [MessageInput(id: "p1", role: .user, content: "in the parent")])
        _ = try store.transition(id: fork.id, to: .running)
        _ = try store.recordUsage(id: fork.id, inputTokens: 10, outputTokens: 1)
        store.close()

        let reopened = f.store()
        #expect(try messageIds(reopened, fork.id) == ["m0", "m1", "f1"])
        #expect(try messageIds(reopened, s.id) == ["m0", "m1", "m2", "m3", "p1"])
        #expect(try reopened.get(id: fork.id).usage.turns == 1)
        #expect(try reopened.get(id: s.id).usage.turns == 0)
        #expect(try reopened.get(id: s.id).state == .idle)
        #expect(try reopened.list().sessions.count == 2)
    }

    @Test("tool results before the cut carry over (never run twice); later and unfinished calls and checkpoints do not")
    func toolCallsAtTheCut() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<2))
        _ = try store.beginToolCall(id: s.id, toolCallId: "before", name: "read_file", arguments: ["path": "a"])
        try store.finishToolCall(id: s.id, toolCallId: "before", result: ["content": "A"])
        _ = try store.appendMessages(id: s.id, messages: numbered(2..<4))
        _ = try store.beginToolCall(id: s.id, toolCallId: "after", name: "read_file", arguments: ["path": "b"])
        try store.finishToolCall(id: s.id, toolCallId: "after", result: ["content": "B"])
        _ = try store.beginToolCall(id: s.id, toolCallId: "open", name: "write_file", arguments: ["path": "c"])
        _ = try store.checkpoint(id: s.id, pendingToolCalls: [ToolCallRecord(toolCallId: "declared", name: "list_files")],
                                 partialResults: ["half": true])
        _ = try store.recordUsage(id: s.id, inputTokens: 5, outputTokens: 5)

        let fork = try store.fork(id: s.id, atMessageId: "m3")

        #expect(try store.beginToolCall(id: fork.id, toolCallId: "before", name: "read_file") == .recorded(result: ["content": "A"], isError: false))
        #expect(try store.beginToolCall(id: fork.id, toolCallId: "after", name: "read_file") == .started)
        let again = try f.store(owner: "device-a").get(id: fork.id)
        #expect(again.pendingToolCalls.map(\.toolCallId) == ["after"])
        #expect(again.usage == Usage())
        #expect(try store.resume(id: fork.id).partialResults == nil)
    }

    @Test("a fork's in-memory state is exactly what replaying its journal gives")
    func stateEqualsReplay() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        for k in 0..<30 { _ = try store.appendMessages(id: s.id, messages: numbered(k * 3..<k * 3 + 3)) }
        _ = try store.beginToolCall(id: s.id, toolCallId: "t", name: "read_file")
        try store.finishToolCall(id: s.id, toolCallId: "t", result: "r")
        _ = try store.appendMessages(id: s.id, messages: numbered(90..<91))
        let fork = try store.fork(id: s.id, atMessageId: "m90")

        let live = try #require(store.handles.withLock { $0[fork.id] }?.data)
        var replayed = try #require(try SessionLoader.load(folder: f.folder(fork.id), id: fork.id, useSnapshot: false)?.data)
        replayed.sinceSnapshot = live.sinceSnapshot
        #expect(live == replayed, "the live state and the replay differ")
        #expect(f.isClean(f.journal(fork.id)))
    }

    @Test("forking at a message the session does not have is InvalidArgument and creates nothing")
    func unknownMessage() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<2))
        #expect(throws: SessionError.self) { try store.fork(id: s.id, atMessageId: "nope") }
        #expect(try store.list().sessions.count == 1)
        #expect(throws: SessionError.self) { try store.fork(id: "sess_missing") }
        #expect((Disk.list(f.sessionsDirectory) ?? []).filter { $0.hasPrefix(".new-") }.isEmpty)
    }

    @Test("a fork of a compacted session keeps the summary in place and the originals behind it")
    func forkCompacted() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<10))
        let c = try store.compact(id: s.id, throughMessageId: "m5", summary: "six messages", by: "user")
        _ = try store.rewrite(id: s.id)

        let fork = try store.fork(id: s.id, atMessageId: "m7")

        #expect(try messageIds(store, fork.id) == [c.id, "m6", "m7"])
        #expect(try messageIds(store, fork.id, includeCompacted: true) == [c.id] + (0...7).map { "m\($0)" })
        #expect(try store.get(id: fork.id).compactions.map(\.id) == [c.id])
        let restored = try store.uncompact(id: fork.id, compactionId: c.id)
        #expect(!restored.isActive)
        #expect(try messageIds(store, fork.id) == (0...7).map { "m\($0)" })
        #expect(try messageIds(store, s.id) == [c.id] + (6..<10).map { "m\($0)" })  // the parent is untouched
    }

    @Test("a session another owner holds can still be forked (forking only reads it); the fork is this store's")
    func forkOfAnotherOwnersSession() throws {
        let f = Fixture()
        let a = f.store(owner: "device-a")
        let s = try a.create()
        _ = try a.appendMessages(id: s.id, messages: numbered(0..<3))
        let b = f.store(owner: "device-b")
        #expect(throws: SessionError.self) { try b.appendMessages(id: s.id, messages: numbered(3..<4)) }

        let fork = try b.fork(id: s.id)

        #expect(try b.appendMessages(id: fork.id, messages: numbered(3..<4)) == 1)
        #expect(throws: SessionError.self) { try a.appendMessages(id: fork.id, messages: numbered(4..<5)) }
        #expect(try messageIds(a, fork.id) == ["m0", "m1", "m2", "m3"])
    }
}
