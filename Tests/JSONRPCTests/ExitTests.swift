#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON
import JSONRPC
import SystemSupport
import Testing

/// `exit` as the server wires it: inline, ends the connection with the status in its params.
private let exitMethod = Method("exit", inline: true, schedule: { _ in .unordered }) { ctx in
    ctx.serving.stop(exitCode: Int32(try ctx.paramsObject().int("status") ?? 0))
    return .null
}

private let echo = Method("echo", inline: true, schedule: { _ in .unordered }) { ctx in ctx.params ?? .null }

/// One message per line, sent in one write: what a pipelining client does.
private func pipelined(_ h: PipeHarness, _ messages: [JSON]) {
    var bytes: [UInt8] = []
    for m in messages { bytes += JSONCodec.encode(m) + [10] }
    h.send(raw: bytes)
}

private func request(_ id: Int64, _ method: String, _ params: JSON = [:]) -> JSON {
    ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
}

private func notification(_ method: String, _ params: JSON = [:]) -> JSON {
    ["jsonrpc": "2.0", "method": .string(method), "params": params]
}

@Suite("Connection: exit keeps end of input's promise")
struct ExitTests {
    @Test("requests pipelined before exit are all answered, in their order; nothing after it is read")
    func pipelinedBeforeExitAnswered() throws {
        let h = PipeHarness([sleeper("slow"), sleeper("quick"), echo, exitMethod], keepDescriptors: true)
        pipelined(h, [
            request(1, "slow", ["ms": 200, "key": "k"]),
            request(2, "quick", ["ms": 0, "key": "k"]),  // waits for 1: same key
            request(3, "echo", ["x": 3]),
            notification("exit", ["status": 7]),
            request(4, "echo", ["late": true]),
        ])
        let answers = h.responses(3, timeout: 5)
        #expect(Set(answers.compactMap { $0["id"]?.intValue }) == [1, 2, 3])
        let order = answers.compactMap { $0["id"]?.intValue }.filter { $0 != 3 }
        #expect(order == [1, 2], "conflicting requests answered out of order")
        #expect(h.ended(timeout: 5) == 7, "run() did not return exit's status")
        #expect(h.next(timeout: 0.3) == nil, "a request sent after exit was answered")
    }

    @Test("exit waits for a request in flight: run() returns only once it is answered")
    func exitWaitsForInFlight() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let gated = Method("gated") { _ in
            started.signal()
            gate.wait()
            return ["done": true]
        }
        let h = PipeHarness([gated, exitMethod], keepDescriptors: true)
        h.request(1, "gated")
        #expect(started.wait(timeout: .now() + 5) == .success)
        h.notify("exit", ["status": 1])
        #expect(h.ended(timeout: 0.3) == nil, "run() returned with a request still in flight")
        gate.signal()
        let answer = try #require(h.next(timeout: 10))
        #expect(answer["id"] == 1 && answer["result"]?["done"] == true)
        #expect(h.ended(timeout: 10) == 1)
    }

    @Test("after the grace: exit's status, not end of input's 1, and a request queued behind the stuck one never starts")
    func afterGraceQueuedNeverStarts() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let ranLate = DispatchSemaphore(value: 0)
        let stuck = Method("stuck", schedule: { _ in .claims([Claim("t", path: "f", access: .write)]) }) { _ in
            started.signal()
            gate.wait()
            return .null
        }
        let queued = Method("queued", schedule: { _ in .claims([Claim("t", path: "f", access: .write)]) }) { _ in
            ranLate.signal()
            return .null
        }
        let h = PipeHarness([stuck, queued, exitMethod], exitGrace: .milliseconds(300), keepDescriptors: true)
        h.request(1, "stuck")
        #expect(started.wait(timeout: .now() + 5) == .success)
        h.request(2, "queued")
        let sent = MonotonicClock.nanos()
        h.notify("exit", ["status": 0])
        #expect(h.ended(timeout: 5) == 0)
        let waited = MonotonicClock.nanos() - sent
        #expect(waited >= 250_000_000 && waited < 3_000_000_000)
        // The stuck handler returns after the process would have ended: the one behind it must not start.
        gate.signal()
        #expect(ranLate.wait(timeout: .now() + 0.3) == .timedOut, "a handler started after the exit's grace was over")
    }

    @Test("exit in a batch: the batch is one message, answered whole before run() returns")
    func exitInABatch() throws {
        let h = PipeHarness([sleeper("slow"), echo, exitMethod], keepDescriptors: true)
        pipelined(h, [
            [request(1, "slow", ["ms": 100]), notification("exit", ["status": 0]), request(2, "echo", ["x": 2])],
            request(3, "echo", ["late": true]),
        ])
        let batch = try #require(h.next(timeout: 5))
        guard case .array(let items) = batch else {
            Issue.record("expected a batch answer, got \(batch)")
            return
        }
        #expect(Set(items.compactMap { $0["id"]?.intValue }) == [1, 2])
        #expect(h.ended(timeout: 5) == 0)
        #expect(h.next(timeout: 0.3) == nil, "a request sent after exit was answered")
    }

    @Test("shutdown's drain waits for an earlier answer to be written, not only claimed: answers keep their order")
    func drainWaitsForTheWrite() throws {
        // A large answer takes milliseconds to encode and write after it is claimed.
        let big = Method("big") { _ in ["text": .string(String(repeating: "x", count: 2 << 20))] }
        let shutdown = Method("shutdown", schedule: { _ in .unordered }) { ctx in
            _ = ctx.serving.drain(before: ctx)
            return .null
        }
        let h = PipeHarness([big, shutdown, exitMethod], maxMessageBytes: 1 << 20, keepDescriptors: true)
        for round in 0..<3 {
            let first = Int64(round * 2 + 1)
            pipelined(h, [request(first, "big"), request(first + 1, "shutdown")])
            let order = h.responses(2, timeout: 60).compactMap { $0["id"]?.intValue }  // 2 MiB, debug, busy: a hang guard
            #expect(order == [first, first + 1], "shutdown answered before the earlier answer was written")
        }
        h.notify("exit", ["status": 0])
        #expect(h.ended(timeout: 5) == 0)
    }

    @Test("the first exit decides the status")
    func firstExitDecides() {
        let h = PipeHarness([exitMethod], keepDescriptors: true)
        pipelined(h, [[notification("exit", ["status": 1]), notification("exit", ["status": 0])]])
        #expect(h.ended(timeout: 5) == 1)
    }
}
