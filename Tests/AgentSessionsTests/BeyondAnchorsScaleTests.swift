import JSON
import Testing
@testable import AgentSessions

/// Issue 17's operations on sessions of 10,000 messages, for what they must get right at that
/// size: a fork holds the whole history, export + import round-trips it under a new id, a
/// compaction to 100 entries recovers as 100 entries, a prune with a 1 MiB limit leaves at most
/// 1 MiB and keeps the last message. Their speed is measured in `Benchmarks/` through the real
/// binary (`Benchmarks/session_lineage.py`, `make bench`), not here: speed and memory are a
/// benchmark's job, not a timed test's.
@Suite struct BeyondAnchorsScaleTests {
    static let loremBody = String(repeating: "lorem ipsum dolor sit amet ", count: 6)

    /// A session of `n` messages, one per journal record (as a client appending turn by turn
    /// makes it), written directly rather than through `n` flushed appends.
    func tenThousand(_ f: Fixture, _ store: SessionStore, n: Int = 10_000) throws -> String {
        let id = SessionNames.randomId("sess_")
        var b = try JournalBuild(first: ["t": "create", "id": .string(id), "title": "big", "agentType": "chatAssistant",
                                         "config": .object([:]), "at": .int(f.clock.now())])
        for k in 0..<n {
            let m = Message(id: "m\(k)", role: k % 2 == 0 ? .user : .assistant,
                            content: ["type": "text", "text": .string("\(k) \(Self.loremBody)")], toolCalls: nil, toolCallId: nil,
                            atNanos: f.clock.now())
            try b.add(["t": "msg", "m": [m.stored], "at": .int(m.atNanos)])
        }
        _ = try store.install(id, b, archive: [])
        return id
    }

    @Test("a fork of a 10,000-message session holds the whole history, or the history up to its cut")
    func fork() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenThousand(f, store)
        let whole = try store.fork(id: id)
        let half = try store.fork(id: id, atMessageId: "m4999")
        #expect(try store.messages(id: whole.id, after: "m9989", limit: 100).count == 10)
        #expect(try store.messages(id: half.id, after: "m4989", limit: 100).map(\.id) == (4990...4999).map { "m\($0)" })
    }

    @Test("export + import of a 10,000-message session round-trips under a new id")
    func exportImport() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenThousand(f, store)
        let e = try store.export(id: id)
        let i = try store.importSession(e.bytes)
        #expect(i.session.id != id && i.replacedId == id)
        #expect(try store.messages(id: i.session.id, limit: 10_000).map(\.id) == (0..<10_000).map { "m\($0)" })
    }

    @Test("a 10,000-message session compacted to 100 entries recovers as those 100 entries")
    func recoveryAfterCompaction() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenThousand(f, store)
        let c = try store.compact(id: id, throughMessageId: "m9900", summary: "the long past", by: "user")
        store.close()
        let loaded = try SessionLoader.load(folder: f.folder(id), id: id)
        #expect(loaded?.data?.messages.count == 100)
        #expect(try f.store().messages(id: id, limit: 1).first?.id == c.id)
    }

    @Test("after a prune with a 1 MiB limit a 10,000-message session holds at most 1 MiB")
    func pruneToOneMiB() throws {
        let f = Fixture()
        let store = f.store()
        let id = try tenThousand(f, store)
        try store.setRetentionPolicy(RetentionPolicy(maxBytesPerSession: 1 << 20))
        let report = try store.prune()
        #expect(report.sessions.first?.droppedMessages ?? 0 > 0)
        #expect(try store.bytesOnDisk(id: id) <= 1 << 20)
        #expect(try f.store().messages(id: id, after: "m9998", limit: 5).map(\.id) == ["m9999"])
    }
}
