#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC
import SystemSupport
import Testing

private func result(_ m: JSON?) -> JSON? { m?["result"] }
private func errorCode(_ m: JSON?) -> Int64? { m?["error"]?["code"]?.intValue }
private func byID(_ ms: [JSON]) -> [Int64: JSON] {
    Dictionary(uniqueKeysWithValues: ms.compactMap { m in m["id"]?.intValue.map { ($0, m) } })
}

@Suite("Connection: ordering, cancellation, progress, batches")
struct ConnectionTests {
    @Test("a slow request on key A does not delay a fast one on key B")
    func independentKeysRunInParallel() throws {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 400, "key": "A"])
        h.request(2, "sleep", ["ms": 1, "key": "B"])
        let first = h.next()
        #expect(first?["id"] == 2)
        #expect(h.next()?["id"] == 1)
    }

    @Test("two writes on one key run and answer in arrival order")
    func sameKeyKeepsOrder() throws {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 150, "key": "A", "label": "first"])
        h.request(2, "sleep", ["ms": 1, "key": "A", "label": "second"])
        let rs = h.responses(2)
        #expect(rs.map { $0["id"] } == [1, 2])
        let r = byID(rs)
        let firstEnd = try #require(r[1]?["result"]?["end"]?.intValue)
        let secondStart = try #require(r[2]?["result"]?["start"]?.intValue)
        #expect(secondStart >= firstEnd)
    }

    @Test("reads on one key overlap; a write under a read path waits for it")
    func readsShareWritesExclude() throws {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 200, "key": "dir", "access": "read"])
        h.request(2, "sleep", ["ms": 200, "key": "dir", "access": "read"])
        h.request(3, "sleep", ["ms": 1, "key": "dir/file", "access": "write"])
        let r = byID(h.responses(3))
        let s1 = try #require(r[1]?["result"]?["start"]?.intValue), e1 = try #require(r[1]?["result"]?["end"]?.intValue)
        let s2 = try #require(r[2]?["result"]?["start"]?.intValue), e2 = try #require(r[2]?["result"]?["end"]?.intValue)
        let s3 = try #require(r[3]?["result"]?["start"]?.intValue)
        #expect(s2 < e1 && s1 < e2, "the two reads overlapped")
        #expect(s3 >= max(e1, e2), "the write inside the read path waited for both reads")
    }

    @Test("a queued request is answered -32800 at once when cancelled; its followers still run")
    func cancelQueued() throws {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 500, "key": "A"])
        h.request(2, "sleep", ["ms": 1, "key": "A"])
        h.request(3, "sleep", ["ms": 1, "key": "A"])
        h.notify("$/cancel", [:])  // unknown notification: ignored
        let t0 = MonotonicClock.nanos()
        h.cancel(2)
        let m = h.next()
        #expect(m?["id"] == 2)
        #expect(errorCode(m) == -32800)
        #expect(m?["error"]?["data"]?["code"] == "RequestCancelled")
        #expect(MonotonicClock.nanos() - t0 < 300_000_000)
        #expect(h.responses(2).map { $0["id"] } == [1, 3])
    }

    @Test("a running request stops and answers -32800 promptly when cancelled")
    func cancelRunning() throws {
        let h = PipeHarness([sleeper("sleep")])
        h.request(7, "sleep", ["ms": 10_000])
        usleep(50_000)
        let t0 = MonotonicClock.nanos()
        h.cancel(7)
        let m = h.next()
        #expect(errorCode(m) == -32800)
        #expect(MonotonicClock.nanos() - t0 < 200_000_000)
    }

    @Test("cancels for unknown or finished ids are ignored")
    func cancelUnknown() {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 0])
        #expect(h.next()?["id"] == 1)
        h.cancel(1)
        h.cancel("nope")
        h.request(2, "sleep", ["ms": 0])
        #expect(h.next()?["id"] == 2)
    }

    @Test("a second in-flight request with the same id is refused")
    func duplicateID() {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 300])
        h.request(1, "sleep", ["ms": 0])
        let m = h.next()
        #expect(errorCode(m) == -32600)
        #expect(m?["error"]?["data"]?["code"] == "DuplicateRequestId")
        #expect(result(h.next()) != nil)
    }

    @Test("progress: begin first, reports rate-limited, end before the response")
    func progressOrder() {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 350, "workDoneToken": "tok"])
        var kinds: [String] = []
        while let m = h.next() {
            if m["id"] != nil { break }
            #expect(m["method"] == "$/progress")
            #expect(m["params"]?["token"] == "tok")
            kinds.append(m["params"]?["value"]?["kind"]?.stringValue ?? "?")
        }
        #expect(kinds.first == "begin")
        #expect(kinds.last == "end")
        let reports = kinds.filter { $0 == "report" }.count
        #expect(reports >= 1 && reports <= 5, "350 ms at 10 reports a second allows at most 4-5 reports, got \(reports)")
    }

    @Test("a progress token cancels the request that owns it")
    func progressTokenCancels() {
        let h = PipeHarness([sleeper("sleep")])
        h.request(1, "sleep", ["ms": 10_000, "workDoneToken": 42])
        #expect(h.next()?["params"]?["value"]?["kind"] == "begin")
        h.notify("window/workDoneProgress/cancel", ["token": 42])
        let answer = h.responses(1).first
        #expect(answer?["id"] == 1)
        #expect(errorCode(answer) == -32800)
    }

    @Test("batches: answered as one array; notifications inside are not answered")
    func batches() {
        let h = PipeHarness([sleeper("sleep")])
        h.send([
            ["jsonrpc": "2.0", "id": 1, "method": "sleep", "params": ["ms": 0]],
            ["jsonrpc": "2.0", "method": "sleep", "params": ["ms": 0]],
            ["jsonrpc": "2.0", "id": 2, "method": "missing"],
            1,
        ])
        let m = h.next()
        let items = m?.arrayValue ?? []
        #expect(items.count == 3)
        #expect(Set(items.compactMap { $0["id"]?.intValue }) == [1, 2])
        #expect(items.contains { errorCode($0) == -32601 })
        #expect(items.contains { errorCode($0) == -32600 && $0["id"] == .null })
        // A batch of notifications only gets no answer at all; an empty batch gets one error.
        h.send([["jsonrpc": "2.0", "method": "sleep", "params": ["ms": 0]]])
        h.send([])
        let e = h.next()
        #expect(errorCode(e) == -32600)
        #expect(e?.arrayValue == nil)
    }

    @Test("bad JSON gets -32700 with id null; an invalid request keeps its id; serving goes on")
    func parseAndInvalid() {
        let h = PipeHarness([sleeper("sleep")])
        h.send(raw: Array("{\"jsonrpc\":\n".utf8))
        #expect(errorCode(h.next()) == -32700)
        h.send(["jsonrpc": "1.0", "id": "x", "method": "sleep"])
        let m = h.next()
        #expect(errorCode(m) == -32600)
        #expect(m?["id"] == "x")
        h.request(3, "sleep", ["ms": 0])
        #expect(result(h.next()) != nil)
    }

    @Test("a handler's unexpected error becomes -32603 and the connection keeps serving")
    func internalError() {
        struct Boom: Error {}
        let h = PipeHarness([Method("boom") { _ in throw Boom() }, sleeper("sleep")])
        h.request(1, "boom")
        #expect(errorCode(h.next()) == -32603)
        h.request(2, "sleep", ["ms": 0])
        #expect(result(h.next()) != nil)
    }

    @Test("a barrier waits for every earlier request")
    func barrier() throws {
        let h = PipeHarness([sleeper("sleep"), Method("barrier", schedule: { _ in .barrier }) { _ in
            ["at": .int(Int64(MonotonicClock.nanos()))]
        }])
        h.request(1, "sleep", ["ms": 150])
        h.request(2, "barrier")
        let r = byID(h.responses(2))
        let end = try #require(r[1]?["result"]?["end"]?.intValue)
        let at = try #require(r[2]?["result"]?["at"]?.intValue)
        #expect(at >= end)
    }

    @Test("end of input finishes the requests in flight, writes their answers, and returns 0")
    func eofDrains() {
        let h = PipeHarness([sleeper("sleep")])
        for i in 1...5 { h.request(Int64(i), "sleep", ["ms": 50, "key": "k"]) }
        #expect(h.finish() == 0)
        #expect(h.responses(5).count == 5)
    }

    @Test("an oversized message is answered MessageTooLarge and the next one is served")
    func oversized() {
        let h = PipeHarness([sleeper("sleep")], maxMessageBytes: 200)
        h.request(1, "sleep", ["ms": 0, "label": .string(String(repeating: "x", count: 1000))])
        let m = h.next()
        #expect(m?["id"] == .null)
        #expect(m?["error"]?["data"]?["code"] == "MessageTooLarge")
        h.request(2, "sleep", ["ms": 0])
        #expect(h.next()?["id"] == 2)
    }

    @Test("1,000 pipelined requests are all answered")
    func pipelined() {
        let h = PipeHarness([Method("ping", inline: true) { _ in [:] }])
        var bytes: [UInt8] = []
        for i in 0..<1000 { bytes += Array("{\"jsonrpc\":\"2.0\",\"id\":\(i),\"method\":\"ping\"}\n".utf8) }
        h.send(raw: bytes)
        #expect(Set(h.responses(1000).compactMap { $0["id"]?.intValue }).count == 1000)
    }
}

@Suite("Progress reporter")
struct ProgressReporterTests {
    @Test("reports are limited to one per interval; begin and end are sent once")
    func rateLimit() {
        final class Box: @unchecked Sendable { var sent: [JSON] = []; var now: UInt64 = 0 }
        let box = Box()
        let p = ProgressReporter(token: "t", minimumIntervalNanos: 100, now: { box.now }) { box.sent.append($0) }
        p.report(percentage: 1)  // before begin: dropped
        p.begin(title: "x")
        p.begin(title: "again")
        for t in stride(from: UInt64(0), to: 1000, by: 10) {
            box.now = t
            p.report(percentage: Int(t / 10))
        }
        p.end()
        p.end()
        let kinds = box.sent.compactMap { $0["value"]?["kind"]?.stringValue }
        #expect(kinds.first == "begin")
        #expect(kinds.last == "end")
        #expect(kinds.filter { $0 == "begin" }.count == 1)
        #expect(kinds.filter { $0 == "end" }.count == 1)
        #expect(kinds.filter { $0 == "report" }.count == 10)
    }
}

@Suite("Claims")
struct ClaimTests {
    @Test("claims conflict by domain, path containment and write access")
    func conflicts() {
        #expect(Claim.write("file", "a/b").conflicts(with: .read("file", "a")))
        #expect(Claim.read("file", "a").conflicts(with: .write("file", "a/b/c")))
        #expect(!Claim.read("file", "a").conflicts(with: .read("file", "a")))
        #expect(!Claim.write("file", "a/b").conflicts(with: .write("file", "a/c")))
        #expect(!Claim.write("file", "ab").conflicts(with: .write("file", "a")))
        #expect(!Claim.write("file", "a").conflicts(with: .write("session", "a")))
        #expect(Claim.write("file", "").conflicts(with: .read("file", "x/y")))
    }
}
