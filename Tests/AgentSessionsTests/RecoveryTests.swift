import JSON
import Testing
@testable import AgentSessions

@Suite("Recovery")
struct RecoveryTests {
    /// A session with `messages` message records after its create record.
    private func sessionWithMessages(_ f: Fixture, _ count: Int) throws -> String {
        let store = f.store()
        let s = try store.create()
        for k in 0..<count {
            _ = try store.appendMessages(id: s.id, messages: [MessageInput(id: "m\(k)", role: .user, content: JSON("message \(k)"))])
        }
        return s.id
    }

    @Test("a torn tail is ignored on open, cut before the next append, and the file is clean after")
    func tornTail() throws {
        let f = Fixture()
        let id = try sessionWithMessages(f, 5)
        let bytes = f.read(f.journal(id))
        f.write(f.journal(id), Array(bytes.dropLast(12)))  // the kill came in the middle of the last record

        let store = f.store()
        let before = try store.messages(id: id)
        _ = try store.appendMessages(id: id, messages: [MessageInput(id: "after", role: .user, content: "x")])
        let warnings = store.drainWarnings()

        #expect(before.map(\.id) == ["m0", "m1", "m2", "m3"])
        #expect(warnings.contains { $0.message.contains("cut off") })
        #expect(f.isClean(f.journal(id)))
        #expect(try f.store().messages(id: id).map(\.id) == ["m0", "m1", "m2", "m3", "after"])
    }

    @Test("a zero-filled tail (a power cut after the size grew) counts as torn")
    func zeroTail() throws {
        let f = Fixture()
        let id = try sessionWithMessages(f, 3)
        f.write(f.journal(id), f.read(f.journal(id)) + [UInt8](repeating: 0, count: 4096))

        let store = f.store()
        #expect(try store.messages(id: id).count == 3)
        _ = try store.appendMessages(id: id, messages: [text("x")])

        #expect(f.isClean(f.journal(id)))
        #expect(!f.exists(f.folder(id) + "/journal.damaged-1"))
    }

    @Test("a byte flipped in record 5 of 20: opens with 4 records and a warning; the damaged file is kept")
    func damageInTheMiddle() throws {
        let f = Fixture()
        let id = try sessionWithMessages(f, 19)  // record 1 creates, records 2…20 hold m0…m18
        let original = f.read(f.journal(id))
        #expect(f.lines(f.journal(id)).count == 21)
        let lineStarts = [0] + original.indices.filter { original[$0] == 0x0A }.map { $0 + 1 }
        var damaged = original
        damaged[lineStarts[4] + 30] ^= 0x20  // one bit, inside record 5's JSON
        f.write(f.journal(id), damaged)

        let store = f.store()
        let opened = try store.messages(id: id)
        let warnings = store.drainWarnings()
        let journalAfterOpen = f.read(f.journal(id))
        _ = try store.appendMessages(id: id, messages: [MessageInput(id: "new", role: .user, content: "x")])

        #expect(opened.map(\.id) == ["m0", "m1", "m2"])  // records 1–4
        #expect(warnings.contains { $0.message.contains("damaged at record 5") })
        #expect(journalAfterOpen == damaged)  // opening changes nothing on disk
        #expect(f.read(f.folder(id) + "/journal.damaged-1") == damaged)
        #expect(f.isClean(f.journal(id)))
        #expect(try f.store().messages(id: id).map(\.id) == ["m0", "m1", "m2", "new"])
        #expect(original != damaged)
    }

    @Test("a journal damaged from its first record opens as a failed, read-only session")
    func damagedFirstRecord() throws {
        let f = Fixture()
        let id = try sessionWithMessages(f, 2)
        var bytes = f.read(f.journal(id))
        bytes[20] ^= 0x01
        f.write(f.journal(id), bytes)

        let store = f.store()
        let s = try store.get(id: id)

        #expect(s.state == .failed)
        #expect(s.error?["code"] == "IOError")
        #expect((#expect(throws: SessionError.self) { try store.appendMessages(id: id, messages: [text("x")]) })?.code == "IOError")
        #expect(f.read(f.journal(id)) == bytes)
    }

    @Test("snapshot plus tail replays to exactly the state of a replay from the start")
    func snapshotEqualsReplay() throws {
        let f = Fixture()
        let store = f.store(snapshotInterval: 16)
        let s = try store.create(config: SessionConfig(modelTier: .fast, maxCostUSD: 100))
        _ = try store.transition(id: s.id, to: .running)
        for k in 0..<60 {
            _ = try store.appendMessages(id: s.id, messages: [text("m\(k)"), text("n\(k)")])
            if k % 3 == 0 { _ = try store.recordUsage(id: s.id, inputTokens: 100 + k, outputTokens: k) }
            if k % 5 == 0 {
                _ = try store.beginToolCall(id: s.id, toolCallId: "c\(k)", name: "read_file", arguments: ["path": "a"])
                if k % 10 == 0 { try store.finishToolCall(id: s.id, toolCallId: "c\(k)", result: ["ok": true]) }
            }
            if k % 7 == 0 {
                _ = try store.checkpoint(id: s.id, pendingToolCalls: [ToolCallRecord(toolCallId: "p\(k)", name: "x")],
                                         partialResults: k % 14 == 0 ? ["k": JSON(k)] : nil)
            }
            if k % 11 == 0 {
                _ = try store.transition(id: s.id, to: .waitingForUser)
                _ = try store.transition(id: s.id, to: .running)
            }
        }
        _ = try store.appendMessages(id: s.id, messages: [text("tail")])  // a tail after the last snapshot

        let folder = f.folder(s.id)
        var fromSnapshot = try #require(try SessionLoader.load(folder: folder, id: s.id, useSnapshot: true)?.data)
        var fromScratch = try #require(try SessionLoader.load(folder: folder, id: s.id, useSnapshot: false)?.data)
        let snapshot = try #require(Snapshot.read(folder + "/snapshot.json",
                                                  matching: f.read(f.journal(s.id)).withUnsafeBytes { JournalScan.scan($0) }))

        #expect(snapshot.records > 16)
        #expect(snapshot.records < fromScratch.records)  // the replay did start in the middle
        fromSnapshot.sinceSnapshot = 0
        fromScratch.sinceSnapshot = 0
        #expect(fromSnapshot == fromScratch)
        var live = try store.get(id: s.id)
        #expect(live.pendingToolCalls.contains { $0.status == .running })
        live.pendingToolCalls = live.pendingToolCalls.map { call in  // running here; interrupted for a new process
            var c = call
            if c.status == .running { c.status = .interrupted }
            return c
        }
        #expect(try f.store().get(id: s.id) == live)
        #expect(try f.store().messages(id: s.id, limit: 1000) == store.messages(id: s.id, limit: 1000))
    }

    @Test("a snapshot that does not match the journal is ignored with a warning")
    func staleSnapshot() throws {
        let f = Fixture()
        let store = f.store(snapshotInterval: 4)
        let s = try store.create()
        for k in 0..<10 { _ = try store.appendMessages(id: s.id, messages: [text("m\(k)")]) }
        let snapshot = f.folder(s.id) + "/snapshot.json"
        var bytes = f.read(snapshot)
        bytes[bytes.count - 3] ^= 0x01
        f.write(snapshot, bytes)

        let reopened = f.store()

        #expect(try reopened.messages(id: s.id).count == 10)
        #expect(reopened.drainWarnings().contains { $0.message.contains("snapshot") })
    }
}
