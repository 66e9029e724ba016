import JSON
import Testing
@testable import AgentSessions

@Suite("Messages")
struct MessageTests {
    @Test("a message id seen before is not stored twice, within a call or across calls")
    func dedupe() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        let a = MessageInput(id: "m1", role: .user, content: "hello")
        let b = MessageInput(id: "m2", role: .assistant, content: "hi", toolCalls: [["id": "c1"]])

        let first = try store.appendMessages(id: s.id, messages: [a, b, a])
        let retry = try store.appendMessages(id: s.id, messages: [a, b])
        let linesAfterRetry = f.lines(f.journal(s.id)).count

        #expect(first == 2)
        #expect(retry == 0)
        #expect(linesAfterRetry == 3)  // create, one message record, final empty line: the retry wrote nothing
        let stored = try store.messages(id: s.id)
        #expect(stored.map(\.id) == ["m1", "m2"])
        #expect(stored[1].toolCalls == [["id": "c1"]])
        #expect(stored[1].role == .assistant)
    }

    @Test("messages without an id get distinct ids")
    func assignsIds() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()

        #expect(try store.appendMessages(id: s.id, messages: [text("a"), text("b")]) == 2)

        let ids = try store.messages(id: s.id).map(\.id)
        #expect(ids.count == 2)
        #expect(Set(ids).count == 2)
        #expect(ids.allSatisfy { $0.hasPrefix("msg_") })
    }

    @Test("pages follow append order from the message after `after`")
    func paging() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        for k in 0..<10 { _ = try store.appendMessages(id: s.id, messages: [MessageInput(id: "m\(k)", role: .user, content: JSON(k))]) }

        let page1 = try store.messages(id: s.id, limit: 4)
        let page2 = try store.messages(id: s.id, after: page1.last!.id, limit: 4)
        let page3 = try store.messages(id: s.id, after: page2.last!.id, limit: 4)

        #expect(page1.map(\.id) == ["m0", "m1", "m2", "m3"])
        #expect(page2.map(\.id) == ["m4", "m5", "m6", "m7"])
        #expect(page3.map(\.id) == ["m8", "m9"])
        #expect(try store.messages(id: s.id, after: "m9").isEmpty)
        #expect((#expect(throws: SessionError.self) { try store.messages(id: s.id, after: "nope") })?.code == "InvalidArgument")
    }

    @Test("a reopened store after a normal close shows the same sessions, messages and usage")
    func reopenAfterClose() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(title: "Plan a trip", agentType: "planner",
                                 config: SessionConfig(modelTier: .fast, maxTurns: 10), metadata: ["tag": "x"])
        _ = try store.transition(id: s.id, to: .running)
        _ = try store.appendMessages(id: s.id, messages: [text("one"), text("two")])
        _ = try store.recordUsage(id: s.id, inputTokens: 100, outputTokens: 20)
        _ = try store.checkpoint(id: s.id, partialResults: ["draft": "a"])
        _ = try store.transition(id: s.id, to: .waitingForUser)
        let before = try store.get(id: s.id)
        let messagesBefore = try store.messages(id: s.id)
        store.close()

        let reopened = f.store()

        #expect(try reopened.get(id: s.id) == before)
        #expect(try reopened.messages(id: s.id) == messagesBefore)
        #expect(try reopened.list().sessions.map(\.id) == [s.id])
        #expect(!f.exists(f.folder(s.id) + "/lease.json"))  // close released it
    }

    @Test("list is ordered by creation and pages with a cursor, optionally by state")
    func listing() throws {
        let f = Fixture()
        let store = f.store()
        var ids: [String] = []
        for k in 0..<7 {
            let s = try store.create(title: "s\(k)")
            if k % 2 == 0 { _ = try store.transition(id: s.id, to: .running) }
            ids.append(s.id)
        }

        let p1 = try store.list(order: .created, limit: 3)
        let p2 = try store.list(order: .created, limit: 3, cursor: p1.nextCursor)
        let p3 = try store.list(order: .created, limit: 3, cursor: p2.nextCursor)
        let running = try store.list(SessionFilter(state: .running), order: .created)

        #expect((p1.sessions + p2.sessions + p3.sessions).map(\.id) == ids)
        #expect(p3.nextCursor == nil)
        #expect(running.sessions.map(\.id) == [ids[0], ids[2], ids[4], ids[6]])
        #expect((#expect(throws: SessionError.self) { try store.list(cursor: "garbage") })?.code == "InvalidArgument")
    }

    @Test("a deleted session is gone from disk and from the store")
    func deletion() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()

        try store.delete(id: s.id)

        #expect(!f.exists(f.folder(s.id)))
        #expect((#expect(throws: SessionError.self) { try store.get(id: s.id) })?.code == "NotFound")
        #expect(try store.list().sessions.isEmpty)
    }
}
