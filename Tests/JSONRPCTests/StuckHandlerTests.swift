#if canImport(Glibc)
import SystemSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON
import JSONRPC
import Testing

/// A handler that blocks until `gate` is signalled, deaf to cancellation (like one stuck in a
/// system call), declaring a read or a write claim on "stuck".
private func blocker(_ name: String, access: Claim.Access, gate: DispatchSemaphore) -> Method {
    Method(name, schedule: { _ in .claims([Claim("test", path: "stuck", access: access)]) }) { _ in
        gate.wait()
        return ["done": true]
    }
}

private let ping = Method("ping", inline: true, schedule: { _ in .unordered }) { _ in .object(JSONObject()) }

@Suite("Connection: stuck handlers")
struct StuckHandlerTests {
    @Test("a handler stuck on the reading thread loses reading: ping is answered")
    func pingWhileStuck() throws {
        let gate = DispatchSemaphore(value: 0)
        let h = PipeHarness([blocker("block", access: .read, gate: gate), ping])
        defer { gate.signal() }
        h.request(1, "block")
        usleep(50_000)  // the lone request runs on the reading thread itself
        let sent = MonotonicClock.nanos()
        h.request(2, "ping")
        let answer = try #require(h.next(timeout: 10))
        #expect(answer["id"] == 2 && answer["result"] == .object(JSONObject()))
        #expect(MonotonicClock.nanos() - sent < 500_000_000)
    }

    @Test("cancelling a stuck read-only request answers -32800 at once and discards its late result")
    func cancelAbandonsReader() throws {
        let gate = DispatchSemaphore(value: 0)
        let h = PipeHarness([blocker("block", access: .read, gate: gate), ping])
        h.request(1, "block")
        usleep(50_000)
        h.cancel(1)
        let cancelled = try #require(h.next(timeout: 10))
        #expect(cancelled["id"] == 1 && cancelled["error"]?["code"] == .int(-32800))
        gate.signal()
        h.request(2, "ping")
        let next = try #require(h.next(timeout: 10))
        #expect(next["id"] == 2, "the abandoned handler's result must not be sent")
    }

    @Test("cancelling a stuck request that may write only flags it: it answers its real outcome")
    func cancelFlagsWriter() throws {
        let gate = DispatchSemaphore(value: 0)
        let h = PipeHarness([blocker("block", access: .write, gate: gate), ping])
        h.request(1, "block")
        usleep(50_000)
        h.cancel(1)
        h.request(2, "ping")
        #expect(try #require(h.next(timeout: 10))["id"] == 2)
        gate.signal()
        let outcome = try #require(h.next(timeout: 10))
        #expect(outcome["id"] == 1 && outcome["result"]?["done"] == true)
    }

    @Test("end of input waits the grace for a stuck handler, then returns 1")
    func eofGrace() throws {
        let gate = DispatchSemaphore(value: 0)
        let h = PipeHarness([blocker("block", access: .write, gate: gate), ping], exitGrace: .milliseconds(300),
                            keepDescriptors: true)
        defer { gate.signal() }
        h.request(1, "block")
        usleep(50_000)
        let started = MonotonicClock.nanos()
        #expect(h.finish(timeout: 5) == 1)
        let waited = MonotonicClock.nanos() - started
        #expect(waited >= 250_000_000 && waited < 3_000_000_000)
    }

    @Test("urgent work starts even when every pool thread is busy")
    func urgentWork() {
        let pool = WorkerPool(maxThreads: 2)
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<3 { #expect(pool.submit { gate.wait() } == nil) }
        let ran = DispatchSemaphore(value: 0)
        #expect(pool.submit(urgent: true) { ran.signal() } == nil)
        #expect(ran.wait(timeout: .now() + 10) == .success)
        for _ in 0..<3 { gate.signal() }
    }

    @Test("\"params\": null reads as no params, for requests and notifications")
    func paramsNull() throws {
        let request = IncomingMessage(try JSONCodec.decode(Array(#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}"#.utf8)))
        #expect(request == .request(id: .int(1), method: "shutdown", params: nil))
        let note = IncomingMessage(try JSONCodec.decode(Array(#"{"jsonrpc":"2.0","method":"exit","params":null}"#.utf8)))
        #expect(note == .notification(method: "exit", params: nil))
    }
}
