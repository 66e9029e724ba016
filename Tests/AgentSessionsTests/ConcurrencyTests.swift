import Dispatch
import JSON
import Synchronization
import Testing
@testable import AgentSessions

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("appends from many threads, to one session and to their own, lose nothing and keep each journal clean")
    func manyThreads() throws {
        let f = Fixture()
        let store = f.store(snapshotInterval: 32)
        let shared = try store.create()
        let own = try (0..<8).map { _ in try store.create().id }
        let failures = Mutex(0)

        DispatchQueue.concurrentPerform(iterations: 8) { t in
            do {
                for k in 0..<25 {
                    _ = try store.appendMessages(id: shared.id, messages: [MessageInput(id: "t\(t)-\(k)", role: .user, content: "x")])
                    _ = try store.appendMessages(id: own[t], messages: [text("y")])
                    _ = try store.list(limit: 3)
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }

        #expect(failures.withLock { $0 } == 0)
        let reopened = f.store()
        #expect(try reopened.messages(id: shared.id, limit: 1000).count == 200)
        for id in own { #expect(try reopened.messages(id: id).count == 25) }
        #expect(f.isClean(f.journal(shared.id)))
    }
}
