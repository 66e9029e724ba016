@testable import AgentSessions
@testable import BridgeServer
import JSON
import JSONRPC
import SystemSupport
import Testing

/// A session error's typed details become the `error.data` clients always received: the same
/// keys, in the same order, with the same values (`ErrorMapping`, the one mapping).
@Suite("Session error data")
struct SessionErrorDataTests {
    private func data(_ d: SessionError.Details, _ kind: SessionError.Code = .invalidArgument) -> String {
        let e = ErrorMapping.rpcError(for: SessionError(kind, "m", d))
        #expect(e.dataCode == kind.rawValue && e.message == "m" && e.code == ErrorCode.requestFailed)
        return JSONCodec.encodeString(.object(e.data))
    }

    @Test("each kind of details gives the keys and order it always had")
    func shapes() {
        let cases: [(SessionError.Details, String)] = [
            (.none, "{}"),
            (.id("s1"), #"{"id":"s1"}"#),
            (.transition(from: .completed, to: .running), #"{"from":"completed","to":"running","allowed":[]}"#),
            (.transition(from: .idle, to: .completed), #"{"from":"idle","to":"completed","allowed":["running"]}"#),
            (.system(errno: 28, path: "/a/b"), #"{"errno":28,"path":"/a/b"}"#),
            (.system(errno: 5, path: nil), #"{"errno":5}"#),
            (.path("p.json"), #"{"path":"p.json"}"#),
            (.toolCall(sessionId: "s", toolCallId: "t"), #"{"id":"s","toolCallId":"t"}"#),
            (.toolCallId("t"), #"{"toolCallId":"t"}"#),
            (.toolCallOf(toolCallId: "t", name: "n"), #"{"toolCallId":"t","name":"n"}"#),
            (.approvalOf(toolCallId: "t", approvalId: "a", name: "n"), #"{"toolCallId":"t","approvalId":"a","name":"n"}"#),
            (.answered(toolCallId: "t", decision: .deny), #"{"toolCallId":"t","decision":"deny"}"#),
            (.budget(sessionId: "s", error: ["code": "BudgetExceeded"]), #"{"id":"s","error":{"code":"BudgetExceeded"}}"#),
            (.final(sessionId: "s", state: .failed), #"{"id":"s","state":"failed"}"#),
            (.message(param: "after", id: "m"), #"{"after":"m"}"#),
            (.sessionCompaction(sessionId: "s", compactionId: "c"), #"{"id":"s","compactionId":"c"}"#),
            (.compaction("c", reason: nil), #"{"compactionId":"c"}"#),
            (.compaction("c", reason: "originalsDropped"), #"{"compactionId":"c","reason":"originalsDropped"}"#),
            (.lease(owner: "d", expiresAtNanos: 0), #"{"owner":"d","expiresAt":"\#(Timestamp.iso8601(nanos: 0))"}"#),
            (.deferred(reason: "offline", queued: true, confirmable: false), #"{"reason":"offline","queued":true,"confirmable":false}"#),
            (.tooLarge(limit: 65536, size: 70000), #"{"limit":65536,"size":70000}"#),
            (.limit(reason: "queryBytes", limit: 4096, size: 5000), #"{"reason":"queryBytes","limit":4096,"size":5000}"#),
            (.limit(reason: "time", limit: 100, size: nil), #"{"reason":"time","limit":100}"#),
            (.field("query"), #"{"field":"query"}"#),
            (.fieldReason(field: "cursor", reason: "cursorMismatch"), #"{"field":"cursor","reason":"cursorMismatch"}"#),
            (.reason("damaged"), #"{"reason":"damaged"}"#),
            (.unimportable(reason: "damaged", field: nil, id: nil), #"{"reason":"damaged"}"#),
            (.unimportable(reason: "damaged", field: "session.messages", id: "m1"), #"{"reason":"damaged","field":"session.messages","id":"m1"}"#),
        ]
        // `code` comes first, as it always did; the details follow it.
        for (details, expected) in cases {
            #expect(data(details) == #"{"code":"InvalidArgument""# + (expected == "{}" ? "}" : "," + expected.dropFirst()))
        }
    }

    @Test("a path under the workspace is shown relative to it, in the details and the message")
    func relative() {
        let e = SessionError(.noSpace, "cannot write /w/.sessions/a: full", .system(errno: 28, path: "/w/.sessions/a")).relative(to: "/w")
        #expect(e.message == "cannot write .sessions/a: full" && e.details == .system(errno: 28, path: ".sessions/a"))
        #expect(SessionError(.notFound, "no /w/p", .path("/w/p")).relative(to: "/w/").details == .path("p"))
    }
}
