#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON
@testable import JSONRPC
import Synchronization
import SystemSupport
import Testing

/// A thread starter that always fails, as `pthread_create` does at a task limit.
private let noThreads: OSThread.Starter = { _ throws(OSThread.StartError) in throw OSThread.StartError(errno: EAGAIN) }

/// A handler that blocks until `gate` is signalled, deaf to cancellation (like one stuck in a
/// system call), with a read claim (so a cancel abandons it). It signals `started` when it runs,
/// so a test can wait for that instead of guessing a time.
private func stuckReader(_ gate: DispatchSemaphore, started: DispatchSemaphore? = nil) -> Method {
    Method("block", schedule: { _ in .claims([Claim("test", path: "stuck", access: .read)]) }) { _ in
        started?.signal()
        gate.wait()
        return ["done": true]
    }
}

private let ping = Method("ping", inline: true, schedule: { _ in .unordered }) { _ in .object(JSONObject()) }

private func request(_ id: Int64, _ method: String, _ params: JSON = [:]) -> JSON {
    ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
}

private func dataCode(_ answer: JSON?) -> String? { answer?["error"]?["data"]?["code"]?.stringValue }

@Suite("Bounds: threads and batches")
struct BoundsTests {
    @Test("a pool that cannot start a thread refuses the work (it never runs), urgent work too")
    func poolWithoutThreads() {
        let pool = WorkerPool(maxThreads: 4, startThread: noThreads)
        let ran = Atomic<Int>(0)
        #expect(pool.submit { ran.add(1, ordering: .relaxed) } == .noThread(OSThread.StartError(errno: EAGAIN)))
        #expect(pool.submit(urgent: true) { ran.add(1, ordering: .relaxed) } == .noThread(OSThread.StartError(errno: EAGAIN)))
        usleep(50_000)
        #expect(ran.load(ordering: .relaxed) == 0)
        #expect(pool.counts.threads == 0)
    }

    @Test("abandoned handlers free their place only up to the cap; beyond it new work is refused busy")
    func abandonedCap() {
        let pool = WorkerPool(maxThreads: 2, maxAbandoned: 1)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let stuck: WorkerPool.Work = { started.signal(); gate.wait() }
        #expect(pool.submit(stuck) == nil)
        #expect(pool.submit(stuck) == nil)
        for _ in 0..<2 { #expect(started.wait(timeout: .now() + 5) == .success) }
        pool.abandonOne()
        pool.abandonOne()
        // One abandoned handler's place is given to new work (the cap is 1), not the second's.
        #expect(pool.submit(stuck) == nil)
        #expect(started.wait(timeout: .now() + 5) == .success)
        #expect(pool.counts.threads == 3)
        #expect(!pool.hasRoom)
        #expect(pool.submit { } == .busy(abandoned: 2, limit: 1))
        // Control work still gets a thread.
        let ran = DispatchSemaphore(value: 0)
        #expect(pool.submit(urgent: true) { ran.signal() } == nil)
        #expect(ran.wait(timeout: .now() + 5) == .success)
        for _ in 0..<3 { gate.signal() }
        pool.abandonedReturned()
        pool.abandonedReturned()
        // The stuck handlers came back: their threads serve new work.
        let again = DispatchSemaphore(value: 0)
        #expect(pool.submit { again.signal() } == nil)
        #expect(again.wait(timeout: .now() + 5) == .success)
    }

    @Test("without threads, requests that need one are answered ServerBusy threadLimit and the connection serves on")
    func connectionWithoutThreads() throws {
        let h = PipeHarness([ping, Method("echo") { ctx in ctx.params?["v"] ?? .null }], pool: (4, 4, noThreads))
        h.send(.array([request(1, "echo", ["v": 1]), request(2, "echo", ["v": 2])]))
        let batch = try #require(h.next(timeout: 5)?.arrayValue)
        #expect(batch.count == 2)
        for answer in batch {
            #expect(answer["error"]?["code"] == .int(-32803))
            #expect(dataCode(answer) == "ServerBusy")
            #expect(answer["error"]?["data"]?["reason"] == "threadLimit")
            #expect(answer["error"]?["data"]?["errno"] == .int(Int64(EAGAIN)))
        }
        h.request(3, "ping")
        #expect(try #require(h.next(timeout: 5))["id"] == 3)
        #expect(h.finish(timeout: 5) == 0)
    }

    @Test("a handler stuck on the reading thread with no thread to hand reading to: the rescuer reads on")
    func rescuerReadsOn() throws {
        let gate = DispatchSemaphore(value: 0)
        let h = PipeHarness([stuckReader(gate), ping, Method("echo") { _ in "ok" }], keepDescriptors: true,
                            pool: (4, 4, noThreads))
        defer { gate.signal() }
        h.request(1, "block")  // a lone request: the reading thread runs it itself
        usleep(50_000)
        h.request(2, "ping")
        #expect(try #require(h.next(timeout: 5))["id"] == 2)
        // No handler runs on a reading thread any more, and the pool has no thread: busy, at once.
        h.request(3, "echo")
        let busy = try #require(h.next(timeout: 5))
        #expect(busy["id"] == 3 && dataCode(busy) == "ServerBusy" && busy["error"]?["data"]?["reason"] == "threadLimit")
        gate.signal()
        let done = try #require(h.next(timeout: 5))
        #expect(done["id"] == 1 && done["result"]?["done"] == true)
    }

    @Test("cancelled stuck handlers beyond the cap: new work is answered ServerBusy stuckHandlers, ping still answered")
    func connectionAbandonedCap() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let h = PipeHarness([stuckReader(gate, started: started), ping, Method("echo") { _ in "ok" }],
                            keepDescriptors: true, pool: (1, 1, OSThread.start))
        defer { for _ in 0..<4 { gate.signal() } }
        for id in Int64(1)...2 {
            h.send(.array([request(id, "block")]))  // a batch: its member goes to the pool
            #expect(started.wait(timeout: .now() + 10) == .success)  // running (stuck), not queued: then cancelled
            h.cancel(.int(id))
            let cancelled = try #require(h.next(timeout: 10)?.arrayValue?.first)  // the batch's answer
            #expect(cancelled["id"] == .int(id) && cancelled["error"]?["code"] == .int(-32800))
        }
        h.request(3, "block")
        let busy = try #require(h.next(timeout: 5))
        #expect(busy["id"] == 3 && dataCode(busy) == "ServerBusy")
        #expect(busy["error"]?["data"]?["reason"] == "stuckHandlers" && busy["error"]?["data"]?["limit"] == 1)
        h.request(4, "ping")
        #expect(try #require(h.next(timeout: 5))["id"] == 4)
        #expect(h.connection.pool.counts.threads <= 2)
        gate.signal()
        gate.signal()
        // The stuck handlers returned: work runs again.
        var answered: JSON?
        for id in Int64(5)...100 {
            h.request(id, "echo")
            answered = h.next(timeout: 5)
            if answered?["result"] != nil { break }
            usleep(20_000)
        }
        #expect(answered?["result"] == "ok")
    }

    @Test("a batch of more than 1000 members is refused whole with one BatchTooLarge error; none of it runs")
    func batchMembersCap() throws {
        let ran = Atomic<Int>(0)
        let h = PipeHarness([Method("count") { _ in ran.add(1, ordering: .relaxed); return .null }])
        h.send(.array((0..<1001).map { request(Int64($0), "count") }))
        let e = try #require(h.next(timeout: 5))
        #expect(e["id"] == .null && e["error"]?["code"] == .int(-32600) && dataCode(e) == "BatchTooLarge")
        #expect(e["error"]?["data"]?["reason"] == "members" && e["error"]?["data"]?["limit"] == 1000)
        #expect(e["error"]?["data"]?["size"] == 1001)
        h.send(.array((0..<1000).map { request(Int64($0), "count") }))
        #expect(try #require(h.next(timeout: 10)?.arrayValue).count == 1000)
        #expect(ran.load(ordering: .relaxed) == 1000)
    }

    @Test("a batch over 4 MiB is refused before it is parsed; a single request of that size is not")
    func batchBytesCap() throws {
        let ran = Atomic<Int>(0)
        let h = PipeHarness([Method("count") { _ in ran.add(1, ordering: .relaxed); return .null }], maxMessageBytes: 16 << 20)
        let filler = String(repeating: "x", count: 5 << 20)
        h.send(.array([request(1, "count", ["filler": .string(filler)])]))
        let e = try #require(h.next(timeout: 10))
        #expect(e["id"] == .null && dataCode(e) == "BatchTooLarge" && e["error"]?["data"]?["reason"] == "bytes")
        #expect(e["error"]?["data"]?["limit"] == .int(4 << 20))
        h.request(2, "count", ["filler": .string(filler)])
        #expect(try #require(h.next(timeout: 10))["id"] == 2)
        #expect(ran.load(ordering: .relaxed) == 1)
    }

    @Test("a batch's answer stays within --max-message-bytes: read-only members that do not fit get BatchTooLarge, writes keep theirs")
    func batchAnswerBudget() throws {
        let text = String(repeating: "r", count: 3000)
        let reader = Method("read", schedule: { p in .claims([Claim("t", path: p?["k"]?.stringValue ?? "", access: .read)]) }) { _ in
            .string(text)
        }
        let writer = Method("write", schedule: { _ in .claims([Claim("t", path: "w", access: .write)]) }) { _ in .string(text) }
        let h = PipeHarness([reader, writer], maxMessageBytes: 10_000)
        var members = (1...8).map { request(Int64($0), "read", ["k": .string("k\($0)")]) }
        members.append(request(9, "write"))
        h.send(.array(members))
        let answers = try #require(h.next(timeout: 10)?.arrayValue)
        #expect(Set(answers.compactMap { $0["id"]?.intValue }) == Set(1...9))
        let kept = answers.filter { $0["result"] != nil }
        let dropped = answers.filter { dataCode($0) == "BatchTooLarge" }
        #expect(kept.count + dropped.count == 9)
        #expect(kept.contains { $0["id"] == 9 }, "a write's answer is never dropped")
        #expect(!dropped.isEmpty)
        for d in dropped { #expect(d["error"]?["data"]?["reason"] == "answerBytes" && d["error"]?["data"]?["limit"] == 10_000) }
        let readBytes = kept.filter { $0["id"] != 9 }.map { JSONCodec.encode($0).count + 1 }.reduce(2, +)
        #expect(readBytes <= 10_000)
    }
}
