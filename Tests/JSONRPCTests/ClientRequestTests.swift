import JSON
import JSONRPC
import Synchronization
import Testing

private final class Answers: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ s: String) { list.withLock { $0.append(s) } }
    var all: [String] { list.withLock { $0 } }
}

/// A method that asks the client something and records the answer it gets.
private func asker(_ answers: Answers) -> Method {
    Method("ask", inline: true) { ctx in
        ctx.serving.request("client/question", ["n": 1]) { answer in
            switch answer {
            case .success(let r): answers.add("ok \(r["value"]?.stringValue ?? "?")")
            case .failure(let e): answers.add("error \(e.dataCode) \(e.message)")
            }
        }
        return "asked"
    }
}

@Suite("Connection: requests to the client")
struct ClientRequestTests {
    @Test("a request to the client carries a fresh string id and gets the client's answer")
    func answered() throws {
        let answers = Answers()
        let h = PipeHarness([asker(answers)])
        h.request(1, "ask")
        h.request(2, "ask")
        var asks: [JSON] = []
        while asks.count < 2, let m = h.next() {
            if m["method"] == "client/question" { asks.append(m) }
        }
        #expect(asks.count == 2)
        let ids = asks.compactMap { $0["id"]?.stringValue }
        #expect(ids.count == 2 && Set(ids).count == 2 && ids.allSatisfy { $0.hasPrefix("wb-") })
        h.send(["jsonrpc": "2.0", "id": JSON.string(ids[0]), "result": ["value": "first"]])
        h.send(["jsonrpc": "2.0", "id": JSON.string(ids[1]), "error": ["code": -32601, "message": "unknown"]])
        // A duplicate answer and an answer to an id never sent are ignored.
        h.send(["jsonrpc": "2.0", "id": JSON.string(ids[0]), "result": ["value": "again"]])
        h.send(["jsonrpc": "2.0", "id": "wb-999", "result": ["value": "stray"]])
        h.request(3, "ask")  // the connection still serves; its answer orders after the responses above
        while let m = h.next(), m["id"] != 3 {}
        #expect(answers.all == ["ok first", "error ClientError unknown"])
        _ = h.finish()
    }

    @Test("requests still waiting when the input ends complete with ConnectionClosed")
    func closedAtEOF() throws {
        let answers = Answers()
        let h = PipeHarness([asker(answers)])
        h.request(1, "ask")
        _ = h.responses(1)
        #expect(h.finish() == 0)
        #expect(answers.all == ["error ConnectionClosed the connection ended before the client answered"])
    }
}
