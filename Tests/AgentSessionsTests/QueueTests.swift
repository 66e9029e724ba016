import JSON
import Testing
@testable import AgentSessions

@Suite("Offline queue")
struct QueueTests {
    @Test("the same idempotency key never makes a second item")
    func idempotency() throws {
        let f = Fixture()
        let q = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)

        let first = try q.enqueue(kind: "upload", payload: ["path": "a"], idempotencyKey: "k1")
        let second = try q.enqueue(kind: "upload", payload: ["path": "different"], idempotencyKey: "k1")
        let fromOtherServer = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)
            .enqueue(kind: "upload", payload: [:], idempotencyKey: "k1")

        #expect(second == first)
        #expect(fromOtherServer == first)
        #expect(try q.list().count == 1)
        #expect(f.lines(f.queueDirectory + "/journal.jsonl").filter { $0.contains(#""t":"enq""#) }.count == 1)
    }

    @Test("items, completions and failures survive reopening")
    func durable() throws {
        let f = Fixture()
        let q = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)
        let a = try q.enqueue(kind: "sync", payload: 1, idempotencyKey: "a")
        let b = try q.enqueue(kind: "sync", payload: 2, idempotencyKey: "b")
        let c = try q.enqueue(kind: "sync", payload: 3, idempotencyKey: "c")
        let d = try q.enqueue(kind: "sync", payload: 4, idempotencyKey: "d")

        _ = try q.complete(id: a.id, result: ["ok": true])
        let retried = try q.fail(id: b.id, error: ["message": "timeout"], retry: true)
        _ = try q.fail(id: c.id, error: ["message": "gone"], retry: false)
        let before = try q.list()

        let reopened = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)

        #expect(try reopened.list() == before)
        #expect(retried.status == .pending)
        #expect(retried.attempts == 1)
        #expect(before.map(\.status) == [.completed, .pending, .failed, .pending])
        #expect(try reopened.ready().map(\.id) == [b.id, d.id])
        #expect(before[0].result == ["ok": true])
    }

    @Test("ready lists pending items in enqueue order, and offline only those that need no network")
    func ready() throws {
        let f = Fixture()
        let q = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)
        let net = try q.enqueue(kind: "fetch", payload: nil, idempotencyKey: "1")
        let local = try q.enqueue(kind: "index", payload: nil, idempotencyKey: "2", requiresNetwork: false)
        let net2 = try q.enqueue(kind: "fetch", payload: nil, idempotencyKey: "3")

        #expect(try q.ready(networkAvailable: true).map(\.id) == [net.id, local.id, net2.id])
        #expect(try q.ready(networkAvailable: false).map(\.id) == [local.id])
    }

    @Test("completing twice changes nothing; failing a completed item or settling an unknown one is refused")
    func refusals() throws {
        let f = Fixture()
        let q = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)
        let a = try q.enqueue(kind: "k", payload: nil, idempotencyKey: "a")
        let done = try q.complete(id: a.id)

        #expect(try q.complete(id: a.id) == done)
        #expect((#expect(throws: SessionError.self) { try q.fail(id: a.id, error: "x") })?.code == "InvalidArgument")
        #expect((#expect(throws: SessionError.self) { try q.complete(id: "q_none") })?.code == "NotFound")
        #expect((#expect(throws: SessionError.self) { try q.enqueue(kind: "k", payload: nil, idempotencyKey: "") })?.code
            == "InvalidArgument")
    }

    @Test("a torn tail in the queue journal is cut before the next append")
    func tornTail() throws {
        let f = Fixture()
        let q = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)
        _ = try q.enqueue(kind: "k", payload: nil, idempotencyKey: "a")
        _ = try q.enqueue(kind: "k", payload: nil, idempotencyKey: "b")
        let path = f.queueDirectory + "/journal.jsonl"
        f.write(path, Array(f.read(path).dropLast(7)))

        let reopened = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)
        let keysAfterCrash = try reopened.list().map(\.idempotencyKey)
        _ = try reopened.enqueue(kind: "k", payload: nil, idempotencyKey: "c")

        #expect(keysAfterCrash == ["a"])
        #expect(f.isClean(path))
        #expect(try OfflineQueue(directory: f.queueDirectory, now: f.clock.now).list().map(\.idempotencyKey) == ["a", "c"])
    }

    @Test("snapshots keep the queue's state across reopening")
    func snapshots() throws {
        let f = Fixture()
        let q = try OfflineQueue(directory: f.queueDirectory, snapshotInterval: 5, now: f.clock.now)
        for k in 0..<12 { _ = try q.enqueue(kind: "k", payload: JSON(k), idempotencyKey: "key\(k)") }
        _ = try q.complete(id: q.list()[3].id)

        let reopened = try OfflineQueue(directory: f.queueDirectory, now: f.clock.now)

        #expect(f.exists(f.queueDirectory + "/snapshot.json"))
        #expect(try reopened.list() == q.list())
    }
}
