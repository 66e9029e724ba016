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

/// A handler that signals `started`, then waits for `gate`, deaf to cancellation.
private func gated(_ gate: DispatchSemaphore, started: DispatchSemaphore) -> Method {
    Method("gated") { _ in
        started.signal()
        gate.wait()
        return ["done": true]
    }
}

private let echo = Method("echo", inline: true, schedule: { _ in .unordered }) { ctx in ctx.params ?? .null }

@Suite("Connection: input ended from outside (a signal)")
struct EndInputTests {
    @Test("a request in flight is answered, one sent after is not, and run() returns 0")
    func inFlightAnsweredNothingNew() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let h = PipeHarness([gated(gate, started: started), echo], keepDescriptors: true)
        h.request(1, "gated")
        #expect(started.wait(timeout: .now() + 5) == .success)
        #expect(h.connection.endInput(reason: "SIGTERM") == 1)
        h.request(2, "echo", ["late": true])
        usleep(100_000)
        #expect(h.ended(timeout: 0.1) == nil, "run() returned before the request in flight finished")
        gate.signal()
        let answer = try #require(h.next(timeout: 10))
        #expect(answer["id"] == 1 && answer["result"]?["done"] == true)
        #expect(h.ended(timeout: 10) == 0)
        #expect(h.next(timeout: 0.5) == nil, "a request sent after endInput was answered")
    }

    @Test("a request still running after the grace is abandoned: run() returns 1")
    func stuckAfterGrace() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let h = PipeHarness([gated(gate, started: started), echo], exitGrace: .milliseconds(300), keepDescriptors: true)
        defer { gate.signal() }
        h.request(1, "gated")
        #expect(started.wait(timeout: .now() + 5) == .success)
        let ending = MonotonicClock.nanos()
        #expect(h.connection.endInput(reason: "SIGINT") == 1)
        #expect(h.ended(timeout: 5) == 1)
        let waited = MonotonicClock.nanos() - ending
        #expect(waited >= 250_000_000 && waited < 3_000_000_000)
    }

    @Test("an idle connection ends at once; a second endInput reports that input had already ended")
    func idleAndTwice() {
        let h = PipeHarness([echo], keepDescriptors: true)
        let started = MonotonicClock.nanos()
        #expect(h.connection.endInput(reason: "SIGTERM") == 0)
        #expect(h.connection.endInput(reason: "SIGTERM") == nil)
        #expect(h.ended(timeout: 10) == 0)
        #expect(MonotonicClock.nanos() - started < 1_000_000_000)
    }

    @Test("after close, the output channel writes nothing more")
    func closedChannelWritesNothing() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let channel = OutputChannel(fd: fds[1], framing: .ndjson)
        channel.send(["a": 1])
        channel.close()
        channel.send(["b": 2])
        #expect(channel.closeNow(patienceMs: 10))
        var buf = [UInt8](repeating: 0, count: 256)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        let n = read(fds[0], &buf, buf.count)
        let written = Array(buf[0..<max(0, n)])
        #expect(written.filter { $0 == 10 }.count == 1 && written.last == 10, "exactly one message")
        #expect(try JSONCodec.decode(Array(written.dropLast())) == ["a": 1])
    }
}
