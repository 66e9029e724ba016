#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON
@testable import JSONRPC
import Logging
import Synchronization
import SystemSupport
import Testing

/// What a peer delivered, in order.
private final class Received: Sendable {
    private let list = Mutex<[Peer.Incoming]>([])
    func append(_ m: Peer.Incoming) { list.withLock { $0.append(m) } }
    var all: [Peer.Incoming] { list.withLock { $0 } }
}

/// A `Peer` between two pipes, spoken to raw: the test writes its input and reads its output.
private final class RawSide: @unchecked Sendable {
    let peer: Peer
    let toPeer: Int32
    let fromPeer: Int32
    let incoming = Received()
    private var buffered: [UInt8] = []

    init(maxMessageBytes: Int = 1 << 16, answer: Bool = true) throws {
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        _ = pipe(&inPipe)
        _ = pipe(&outPipe)
        for fd in inPipe + outPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        signal(SIGPIPE, SIG_IGN)
        JSONCodec.prepareForThreads()
        toPeer = inPipe[1]
        fromPeer = outPipe[0]
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let peerOut = outPipe[1]
        let p = try Peer(output: peerOut, options: Peer.Options(maxMessageBytes: maxMessageBytes, idPrefix: "t-",
                                                                cancelMethod: "$/cancel_request", label: "test"),
                         logger: logger, onOutputDone: { close(peerOut) })
        peer = p
        let incoming = self.incoming
        try p.start(input: inPipe[0], onIncoming: { m in
            incoming.append(m)
            if answer, case .request(let id, let method, let params, _) = m, method == "echo" {
                p.send(p.respond(id, params ?? .null))
            }
        }, onEnd: {})
    }

    func write(_ line: String) { _ = FileIO.writeAll(toPeer, Array((line + "\n").utf8)) }
    func write(_ json: JSON) { _ = FileIO.writeAll(toPeer, JSONCodec.encode(json) + [10]) }

    /// Whether request `id` was delivered before a hang guard of 10 s.
    func waitForRequest(_ id: JSON) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if incoming.all.contains(where: { if case .request(let i, _, _, _) = $0 { i.json == id } else { false } }) { return true }
            usleep(1_000)
        }
        return false
    }

    /// The next message the peer wrote (a hang guard of 10 s).
    func next() -> JSON? {
        while true {
            if let nl = buffered.firstIndex(of: 10) {
                let line = Array(buffered[..<nl])
                buffered.removeSubrange(...nl)
                return try? JSONCodec.decode(line)
            }
            var p = pollfd(fd: fromPeer, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 10_000) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { FileIO.read(fromPeer, into: $0) }
            guard n > 0 else { return nil }
            buffered += chunk[..<n]
        }
    }
}

@Suite struct PeerTests {
    @Test func answersAndCallsWithItsOwnIds() throws {
        let side = try RawSide()
        side.write(["jsonrpc": "2.0", "id": 1, "method": "echo", "params": ["a": 1], "extra": "kept"])
        #expect(side.next() == ["jsonrpc": "2.0", "id": 1, "result": ["a": 1]])
        let got = Mutex<Peer.Reply?>(nil)
        let (id1, m1) = side.peer.request("ping", ["n": 1], extras: ["_x": true]) { r in got.withLock { $0 = r } }
        let (id2, _) = side.peer.request("ping", nil) { _ in }
        #expect(id1 == .string("t-1") && id2 == .string("t-2"))
        side.peer.send(m1)
        #expect(side.next() == ["jsonrpc": "2.0", "id": "t-1", "method": "ping", "params": ["n": 1], "_x": true])
        side.write(["jsonrpc": "2.0", "id": "t-1", "result": ["pong": true], "_y": 2])
        var reply: Peer.Reply?
        for _ in 0..<1000 where reply == nil {
            usleep(10_000)
            reply = got.withLock { $0 }
        }
        #expect(reply?.result == ["pong": true] && reply?.error == nil && reply?.extras["_y"] == 2)
        #expect(side.peer.pendingCount == 1)
    }

    @Test func refusesADuplicateInFlightIdAndFreesItOnceAnswered() throws {
        let side = try RawSide(answer: false)
        side.write(["jsonrpc": "2.0", "id": 7, "method": "hold"])
        side.write(["jsonrpc": "2.0", "id": 7, "method": "hold"])
        let refused = side.next()
        #expect(refused?["id"] == 7)
        #expect(refused?["error"]?["data"]?["code"] == "DuplicateRequestId")
        side.peer.send(side.peer.respond(.int(7), "done"))
        #expect(side.next()?["result"] == "done")
        side.write(["jsonrpc": "2.0", "id": 7, "method": "echo"])
        side.write(["jsonrpc": "2.0", "id": 8, "method": "hold"])
        side.write(["jsonrpc": "2.0", "id": 8, "method": "hold"])
        #expect(side.next()?["error"]?["data"]?["code"] == "DuplicateRequestId")
        let delivered = side.incoming.all.filter { if case .request = $0 { true } else { false } }.count
        #expect(delivered == 3)
    }

    @Test func answersInvalidMessagesWithANullId() throws {
        let side = try RawSide()
        for line in [#"{"jsonrpc": "2.0", "id": 1.5, "method": "x"}"#, "[1]", #""text""#, #"{"id": {"a": 1}, "jsonrpc": "2.0"}"#] {
            side.write(line)
            let m = side.next()
            #expect(m?["id"] == .null)
            #expect(m?["error"]?["data"]?["code"] == "InvalidRequest")
        }
        side.write("{not json")
        let m = side.next()
        #expect(m?["id"] == .null && m?["error"]?["code"] == -32700 && m?["error"]?["data"]?["code"] == "ParseError")
    }

    @Test func refusesALineOverTheLimitTyped() throws {
        let side = try RawSide(maxMessageBytes: 1024)
        side.write(["jsonrpc": "2.0", "id": 3, "method": "echo", "params": ["pad": .string(String(repeating: "x", count: 5000))]])
        let m = side.next()
        #expect(m?["id"] == .null && m?["error"]?["code"] == -32600)
        #expect(m?["error"]?["data"]?["code"] == "MessageTooLarge" && m?["error"]?["data"]?["limit"] == 1024)
        #expect(m?["error"]?["message"]?.stringValue?.contains("tooLarge(") == false)
        side.write(["jsonrpc": "2.0", "id": 4, "method": "echo"])
        #expect(side.next()?["id"] == 4)
    }

    @Test func anAnswerDroppedForItsSizeFailsTheRequestWaitingForIt() throws {
        let side = try RawSide(maxMessageBytes: 1024)
        let got = Mutex<Peer.Reply?>(nil)
        let done = DispatchSemaphore(value: 0)
        let (id, m) = side.peer.request("big", nil) { r in got.withLock { $0 = r }; done.signal() }
        side.peer.send(m)
        _ = side.next()
        side.write(["jsonrpc": "2.0", "id": id.json, "result": ["pad": .string(String(repeating: "x", count: 5000))]])
        #expect(done.wait(timeout: .now() + 10) == .success)
        let error = got.withLock { $0 }?.error
        #expect(error?["data"]?["code"] == "MessageTooLarge" && error?["data"]?["reason"] == "response")
        #expect(side.peer.pendingCount == 0)
    }

    @Test func deliversACancelOfARequestInFlightOnly() throws {
        let side = try RawSide(answer: false)
        side.write(["jsonrpc": "2.0", "id": 5, "method": "hold"])
        side.write(["jsonrpc": "2.0", "method": "$/cancel_request", "params": ["requestId": 6]])
        side.write(["jsonrpc": "2.0", "method": "$/cancel_request", "params": ["requestId": 5]])
        side.write(["jsonrpc": "2.0", "id": 9, "method": "x"])
        // The peer reads in order: once request 9 is delivered, both cancels before it have been.
        #expect(side.waitForRequest(.int(9)))
        let cancels = side.incoming.all.compactMap { if case .cancelled(let id, _) = $0 { id } else { nil } }
        #expect(cancels == [.int(5)])
        let (mine, _) = side.peer.request("slow", nil) { _ in }
        #expect(side.peer.cancel(mine) != nil)
        #expect(side.peer.cancel(.string("t-999")) == nil)
    }

    @Test func sendingNeverWaitsForTheOtherSideToRead() throws {
        let side = try RawSide()
        // Nobody reads `fromPeer`: the pipe fills after 64 KiB; 8 MiB more are queued, not written.
        let pad = JSON.string(String(repeating: "z", count: 1 << 16))
        for _ in 0..<128 { side.peer.send(side.peer.notification("n", ["pad": pad])) }
        #expect(side.peer.writer.queuedBytes > 1 << 20)
        // And the reader goes on: a request is still delivered.
        side.write(["jsonrpc": "2.0", "id": 1, "method": "hold"])
        var delivered = false
        for _ in 0..<1000 where !delivered {
            usleep(10_000)
            delivered = !side.incoming.all.isEmpty
        }
        #expect(delivered)
    }

    @Test func failsWhatIsPendingInTheOrderItWasAsked() throws {
        let side = try RawSide()
        let order = Mutex<[String]>([])
        for m in ["a", "b", "c"] { _ = side.peer.request(m, nil) { r in order.withLock { $0.append("\(m):\(r.error?["data"]?["code"]?.stringValue ?? "")") } } }
        side.peer.failPending { _ in .internalError("gone") }
        #expect(order.withLock { $0 } == ["a:InternalError", "b:InternalError", "c:InternalError"])
        #expect(side.peer.pendingCount == 0)
    }

    @Test func readsTheIdOfAMessageCutShort() {
        func id(_ s: String) -> RequestID? { OversizeHead.requestID(Array(s.utf8)) }
        #expect(id(#"{"jsonrpc":"2.0","id":42,"result":{"pad":"xxxx"#) == .int(42))
        #expect(id(#"{"jsonrpc": "2.0", "meta": {"a": [1, "}", {"b": "\"id\": 3"}]}, "id": "wb-1-7", "result": "#) == .string("wb-1-7"))
        #expect(id(#"{"jsonrpc":"2.0","result":{"pad":"xxxx"#) == nil)
        #expect(id(#"{"jsonrpc":"2.0","id":4"#) == nil)  // the number may go on
        #expect(id(#"["id", 3]"#) == nil)
    }
}
