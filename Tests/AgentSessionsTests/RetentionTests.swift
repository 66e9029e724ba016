#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import Testing
@testable import AgentSessions

@Suite("Retention", .serialized)
struct RetentionTests {
    private func bulky(_ k: Int) -> MessageInput {
        MessageInput(id: "m\(k)", role: .user, content: .string("\(k) " + String(repeating: "lorem ipsum ", count: 20)))
    }

    @Test("the policy is stored durably next to the sessions and read back by a new store; bad values are refused")
    func policyStored() throws {
        let f = Fixture()
        #expect(try f.store().retentionPolicy() == RetentionPolicy())
        let p = RetentionPolicy(maxBytesPerSession: 1 << 20, keepCompactedOriginalsSeconds: 86400, keepEndedSessions: 3)
        try f.store().setRetentionPolicy(p)
        #expect(try f.store().retentionPolicy() == p)
        #expect(f.exists(f.sessionsDirectory + "/retention.json"))
        // a file of bad limits (written by hand) is ignored with a warning: nothing is pruned
        let bad = RetentionPolicy(maxBytesPerSession: 100)
        try f.store().setRetentionPolicy(bad)
        let reader = f.store()
        #expect(try reader.retentionPolicy() == RetentionPolicy())
        #expect(reader.drainWarnings().contains { $0.message.contains("retention policy") })
    }

    @Test("a prune with a 64 KiB limit brings a large session under it: originals first, then the oldest messages, auditable")
    func underTheLimit() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        for k in 0..<600 { _ = try store.appendMessages(id: s.id, messages: [bulky(k)]) }
        let c = try store.compact(id: s.id, throughMessageId: "m99", summary: "the first hundred", by: "user")
        let big = try store.bytesOnDisk(id: s.id)
        #expect(big > 64 * 1024)
        try store.setRetentionPolicy(RetentionPolicy(maxBytesPerSession: 64 * 1024))

        let report = try store.prune()

        let after = try store.bytesOnDisk(id: s.id)
        #expect(after <= 64 * 1024)
        #expect(report.sessions.map(\.id) == [s.id])
        #expect(report.sessions[0].bytesBefore == big && report.sessions[0].bytesAfter == after)
        #expect(report.sessions[0].droppedOriginals.first == c.id)
        #expect(report.sessions[0].droppedMessages > 0)
        // What is left: the summary, a retention compaction standing for the dropped messages, and the newest messages.
        let view = try f.store().messages(id: s.id, limit: 1000)
        #expect(view.first?.id == c.id)
        #expect(view[1].compaction?.by == "retention")
        #expect(view.last?.id == "m599")
        let facts = try f.store().get(id: s.id)
        #expect(facts.compactions.map(\.originalsDroppedAtNanos).allSatisfy { $0 != nil })
        #expect(throws: SessionError.self) { try store.uncompact(id: s.id, compactionId: c.id) }
        // The session goes on.
        _ = try store.appendMessages(id: s.id, messages: [bulky(600)])
        #expect(try f.store().messages(id: s.id, limit: 1000).last?.id == "m600")
    }

    @Test("the policy is applied automatically when appends take a session over the limit")
    func automatic() throws {
        let f = Fixture()
        let store = f.store()
        try store.setRetentionPolicy(RetentionPolicy(maxBytesPerSession: 32 * 1024))
        let s = try store.create()
        for k in 0..<400 { _ = try store.appendMessages(id: s.id, messages: [bulky(k)]) }
        #expect(try store.bytesOnDisk(id: s.id) <= 32 * 1024 + 8 * 1024)  // at most a quarter of the limit over, between prunes
        #expect(try store.messages(id: s.id, limit: 1000).last?.id == "m399")
    }

    @Test("compacted originals are kept as long as the policy says, then dropped; ended sessions beyond the count go")
    func agesAndCounts() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<10))
        let c = try store.compact(id: s.id, throughMessageId: "m4", summary: "five", by: "user")
        var ended: [String] = []
        for _ in 0..<4 {
            ended.append(try session(in: .completed, store).id)
            f.clock.advance(seconds: 1)
        }
        try store.setRetentionPolicy(RetentionPolicy(keepCompactedOriginalsSeconds: 3600, keepEndedSessions: 2))

        let early = try store.prune()
        #expect(early.sessions.isEmpty)
        #expect(Set(early.deletedSessions) == Set(ended.prefix(2)))
        #expect(try store.messages(id: s.id, includeCompacted: true).count == 11)

        f.clock.advance(seconds: 3601)
        let late = try store.prune()
        #expect(late.sessions.first?.droppedOriginals == [c.id])
        #expect(try store.messages(id: s.id, includeCompacted: true).map(\.id) == [c.id] + (5..<10).map { "m\($0)" })
        #expect(try f.store().list().sessions.count == 3)
        #expect(!f.exists(f.folder(s.id) + "/compacted.jsonl"))
    }

    @Test("a prune sweeps hidden folders that crashed forks, imports and deletions left, once they are an hour old")
    func sweep() throws {
        let f = Fixture()
        let store = f.store()
        _ = try store.create()
        try Disk.makeDirectories(f.sessionsDirectory + "/.new-old/x")
        try Disk.makeDirectories(f.sessionsDirectory + "/.deleted-old")
        try Disk.makeDirectories(f.sessionsDirectory + "/.new-fresh")
        var old = [timeval(tv_sec: 1_000_000, tv_usec: 0), timeval(tv_sec: 1_000_000, tv_usec: 0)]
        #expect(utimes(f.sessionsDirectory + "/.new-old", &old) == 0)
        #expect(utimes(f.sessionsDirectory + "/.deleted-old", &old) == 0)

        _ = try store.prune()

        #expect(!f.exists(f.sessionsDirectory + "/.new-old") && !f.exists(f.sessionsDirectory + "/.deleted-old"))
        #expect(f.exists(f.sessionsDirectory + "/.new-fresh"))
        #expect(try store.list().sessions.count == 1)
    }

    @Test("the session reports its bytes on disk")
    func bytes() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        let empty = try store.bytesOnDisk(id: s.id)
        _ = try store.appendMessages(id: s.id, messages: numbered(0..<50))
        let full = try store.bytesOnDisk(id: s.id)
        #expect(empty > 0 && full > empty)
        #expect(full == Int64(f.read(f.journal(s.id)).count + f.read(f.folder(s.id) + "/lease.json").count))
        let facts = try store.get(id: s.id, withBytesOnDisk: true)
        #expect(facts.bytesOnDisk == full)
        #expect(try store.get(id: s.id).bytesOnDisk == nil)
    }

    @Test("a prune stopped at any step of its rewrites (as by SIGKILL) keeps every message it was not meant to drop")
    func pruneStoppedAtEveryStep() throws {
        for step in RewriteStep.allCases {
            for stopAt in 1...3 {  // the first, second or third rewrite of the prune
                let f = Fixture()
                let store = f.store()
                let s = try store.create()
                for k in 0..<300 { _ = try store.appendMessages(id: s.id, messages: [bulky(k)]) }
                try store.setRetentionPolicy(RetentionPolicy(maxBytesPerSession: 32 * 1024))
                let count = Counter()
                store.rewriteStop.withLock { $0 = { s in s == step && count.next() == stopAt } }
                _ = try? store.prune()
                store.rewriteStop.withLock { $0 = nil }

                let restarted = f.store()
                let view = try restarted.messages(id: s.id, limit: 1000)
                // Whatever the prune got to: the newest messages are all there, in order, and
                // anything missing is accounted for by a retention compaction.
                let plain = view.filter { $0.compaction == nil }.map(\.id)
                let folded = view.compactMap(\.compaction).map(\.count).reduce(0, +)
                #expect(plain.count + folded == 300, "at \(step) #\(stopAt)")
                #expect(plain == (300 - plain.count..<300).map { "m\($0)" }, "at \(step) #\(stopAt)")
                _ = try restarted.prune()
                #expect(try restarted.bytesOnDisk(id: s.id) <= 32 * 1024, "at \(step) #\(stopAt)")
                #expect(try restarted.messages(id: s.id, limit: 1000).last?.id == "m299")
            }
        }
    }
}

/// Counts calls across threads (for stopping at the n-th step).
final class Counter: Sendable {
    private let n = Mutex(0)
    func next() -> Int { n.withLock { $0 += 1; return $0 } }
}
