import JSON
import JSONRPC
import Synchronization
import Testing

/// Open streams: `open` defers its answer and keeps the handle; `push` answers one of them.
private final class Streams: Sendable {
    let open = Mutex<[String: DeferredResponse]>([:])
    let cancelled = Mutex<[String]>([])

    var methods: [Method] {
        [Method("open") { ctx in
            let name = try ctx.paramsObject().requiredString("name")
            let d = try ctx.deferResponse(onCancel: { self.cancelled.withLock { $0.append(name) } },
                                          atInputEnd: { ["closed": .string(name)] })
            self.open.withLock { $0[name] = d }
            ctx.notify("opened", ["name": .string(name)])
            return "ignored"
        },
         Method("push") { ctx in
            let p = try ctx.paramsObject()
            let name = try p.requiredString("name")
            guard let d = self.open.withLock({ $0[name] }) else { return false }
            return .bool(d.complete(["pushed": .string(try p.requiredString("value"))]))
        }]
    }
}

@Suite("Connection: deferred responses")
struct DeferredResponseTests {
    @Test("a deferred request is answered by its holder, later, once; the handler's return is not sent")
    func answeredLater() throws {
        let s = Streams()
        let h = PipeHarness(s.methods)
        h.request(1, "open", ["name": "a"])
        #expect(h.next()?["method"] == "opened")
        h.request(2, "push", ["name": "a", "value": "x"])
        let answers = h.responses(2)
        #expect(answers.first(where: { $0["id"] == 1 })?["result"] == ["pushed": "x"])
        #expect(answers.first(where: { $0["id"] == 2 })?["result"] == true)
        h.request(3, "push", ["name": "a", "value": "y"])           // already answered: nothing more for id 1
        #expect(h.responses(1).first?["result"] == false)
        #expect(h.finish() == 0)
    }

    @Test("an open deferred request holds no worker thread: many stay open while others are served")
    func holdsNoThread() throws {
        let s = Streams()
        let h = PipeHarness(s.methods)
        for i in 0..<200 { h.request(Int64(100 + i), "open", ["name": .string("s\(i)")]) }
        var opened = 0
        while opened < 200, let m = h.next() { if m["method"] == "opened" { opened += 1 } }
        #expect(opened == 200)
        h.request(1, "push", ["name": "s7", "value": "v"])
        let got = h.responses(2)
        #expect(Set(got.compactMap { $0["id"]?.intValue }) == [1, 107])
        #expect(h.finish() == 0)
    }

    @Test("cancelling one calls its hook and answers -32800 (LSP rules); its id is in flight until then")
    func cancelled() throws {
        let s = Streams()
        let h = PipeHarness(s.methods)
        h.request(1, "open", ["name": "a"])
        #expect(h.next()?["method"] == "opened")
        h.request(1, "open", ["name": "dup"])
        #expect(h.responses(1).first?["error"]?["data"]?["code"] == "DuplicateRequestId")
        h.cancel(1)
        #expect(h.responses(1).first?["error"]?["code"] == .int(Int64(ErrorCode.requestCancelled)))
        #expect(s.cancelled.withLock { $0 } == ["a"])
        h.request(2, "push", ["name": "a", "value": "late"])
        #expect(h.responses(1).first?["result"] == false)
        #expect(h.finish() == 0)
    }

    @Test("under rules that do not answer a cancelled request (MCP's) a cancelled one gets no answer; at end of input the open ones are answered")
    func mcpAndInputEnd() throws {
        let s = Streams()
        let h = PipeHarness(s.methods)
        var silentCancel = Connection.Conventions.lsp
        silentCancel.answersCancelledRequests = false
        h.connection.use(silentCancel)
        h.request(1, "open", ["name": "gone"])
        h.request(2, "open", ["name": "kept"])
        var opened = 0
        var seen: [JSON] = []
        while opened < 2, let m = h.next() { seen.append(m); if m["method"] == "opened" { opened += 1 } }
        #expect(opened == 2, "\(seen)")
        h.cancel(1)
        h.request(3, "push", ["name": "nobody", "value": "v"])      // ordered after the cancel
        let third = h.responses(1)
        #expect(third.first?["id"] == 3, "\(third)")
        #expect(h.finish() == 0)
        var rest: [JSON] = []
        while let m = h.next(timeout: 0.5) { rest.append(m) }
        #expect(rest == [["jsonrpc": "2.0", "id": 2, "result": ["closed": "kept"]]])
        #expect(s.cancelled.withLock { $0 } == ["gone"])
    }

    @Test("a notification cannot defer; in a batch a deferred request is refused and withdrawn")
    func notificationsAndBatches() throws {
        let s = Streams()
        let h = PipeHarness(s.methods)
        h.notify("open", ["name": "n"])
        h.send([["jsonrpc": "2.0", "id": 5, "method": "open", "params": ["name": "b"]],
                ["jsonrpc": "2.0", "id": 6, "method": "push", "params": ["name": "zz", "value": "v"]]])
        var batch: JSON?
        while batch == nil, let m = h.next() { if case .array = m { batch = m } }
        guard case .array(let items)? = batch else { Issue.record("no batch answer"); return }
        #expect(items.first(where: { $0["id"] == 5 })?["error"]?["code"] == .int(Int64(ErrorCode.invalidRequest)))
        #expect(s.cancelled.withLock { $0 } == ["b"])
        #expect(h.finish() == 0)
    }
}

@Suite("Connection: detached contexts")
struct DetachedContextTests {
    @Test("a detached context reports progress to its sink and is cancelled only by markCancelled")
    func detached() throws {
        let seen = Mutex<[String]>([])
        let flags = Mutex<[Bool]>([])
        let h = PipeHarness([Method("work") { ctx in
            let d = ctx.detached { v in seen.withLock { $0.append(v["value"]?["kind"]?.stringValue ?? "?") } }
            d.progress?.begin(title: "t")
            d.progress?.end()
            flags.withLock { $0.append(d.isCancelled) }
            d.markCancelled()
            flags.withLock { $0 += [d.isCancelled, ctx.isCancelled] }
            return "ok"
        }])
        h.request(1, "work")
        let r = h.responses(1)
        #expect(r.first?["result"] == "ok")
        #expect(seen.withLock { $0 } == ["begin", "end"])
        #expect(flags.withLock { $0 } == [false, true, false])
        #expect(h.finish() == 0)
    }
}
