import JSON
import Testing
@testable import AgentSessions

/// The journal's stored form of each session type, pinned to the bytes earlier versions wrote:
/// a journal written before stays readable and one written now reads the same in an older
/// version. Each record here is read back, and a record missing a required field is refused.
@Suite("Stored forms")
struct StoredFormTests {
    private func text(_ j: JSON) -> String { JSONCodec.encodeString(j) }
    private func parse(_ s: String) throws -> JSON { try JSONCodec.decode(s) }

    @Test("a message's stored form is the one older journals hold, and reads back the same")
    func message() throws {
        let plain = Message(id: "m1", role: .user, content: "hi", toolCalls: nil, toolCallId: nil, atNanos: 7)
        #expect(text(plain.stored) == #"{"id":"m1","role":"user","content":"hi","at":7}"#)
        let full = Message(id: "m2", role: .tool, content: ["x": 1], toolCalls: [["id": "c"]], toolCallId: "c",
                           metadata: ["k": "v"], atNanos: 9)
        let fullText = #"{"id":"m2","role":"tool","content":{"x":1},"toolCalls":[{"id":"c"}],"toolCallId":"c","metadata":{"k":"v"},"at":9}"#
        #expect(text(full.stored) == fullText)
        #expect(Message(stored: try parse(fullText)) == full)
        // null toolCalls and non-object metadata are read as absent; a missing time as 0
        let loose = Message(stored: try parse(#"{"id":"m3","role":"system","content":null,"toolCalls":null,"metadata":3}"#))
        #expect(loose == Message(id: "m3", role: .system, content: .null, toolCalls: nil, toolCallId: nil, atNanos: 0))
        #expect(Message(stored: try parse(#"{"id":"m4","role":"robot","content":1}"#)) == nil)
        #expect(Message(stored: try parse(#"{"id":"m4","role":"user"}"#)) == nil)
    }

    @Test("a queue item's stored form uses the journal's short names and integer times")
    func queueItem() throws {
        var item = QueueItem(id: "q1", kind: "sync", payload: ["a": 1], idempotencyKey: "k", requiresNetwork: false, at: 5)
        #expect(text(item.stored) == #"{"id":"q1","kind":"sync","payload":{"a":1},"key":"k","net":false,"status":"pending","attempts":0,"createdAt":5,"updatedAt":5}"#)
        item.status = .failed
        item.attempts = 2
        item.result = .null
        item.error = ["code": "X"]
        item.updatedAtNanos = 8
        let stored = #"{"id":"q1","kind":"sync","payload":{"a":1},"key":"k","net":false,"status":"failed","attempts":2,"result":null,"error":{"code":"X"},"createdAt":5,"updatedAt":8}"#
        #expect(text(item.stored) == stored)
        #expect(QueueItem(stored: try parse(stored)) == item)
        let minimal = QueueItem(stored: try parse(#"{"id":"q2","kind":"k","key":"x","createdAt":3}"#))
        #expect(minimal == QueueItem(id: "q2", kind: "k", payload: .null, idempotencyKey: "x", requiresNetwork: true, at: 3))
        #expect(QueueItem(stored: try parse(#"{"id":"q2","kind":"k","createdAt":3}"#)) == nil)
    }

    @Test("lineage, compaction, approval and deferred call store as before and read back")
    func extras() throws {
        let fork = Lineage(parentId: "p", messageId: "m", atNanos: 4)
        #expect(text(fork.stored) == #"{"parentId":"p","at":4,"messageId":"m"}"#)
        let child = Lineage(parentId: "p", messageId: nil, atNanos: 4, kind: .child)
        #expect(text(child.stored) == #"{"parentId":"p","at":4,"kind":"child"}"#)
        #expect(Lineage(stored: child.stored) == child)
        #expect(Lineage(stored: try parse(#"{"parentId":"p","at":4,"kind":"later"}"#)) == Lineage(parentId: "p", messageId: nil, atNanos: 4))

        var c = Compaction(id: "c1", first: "a", through: "b", count: 2, summary: "s", by: "me", at: 10)
        #expect(text(c.stored) == #"{"id":"c1","first":"a","through":"b","count":2,"summary":"s","by":"me","at":10}"#)
        c.summaryRole = .assistant
        c.undoneAtNanos = 11
        c.originalsDroppedAtNanos = 12
        c.originals = [MessageRef(id: "a", record: RecordRef(offset: 0, length: 30), position: 1)]
        let cText = #"{"id":"c1","first":"a","through":"b","count":2,"summary":"s","by":"me","at":10,"role":"assistant","undoneAt":11,"droppedAt":12,"originals":[["a",0,30,1]]}"#
        #expect(text(c.stored) == cText)
        #expect(Compaction(stored: try parse(cText)) == c)
        // a damaged ref makes the whole compaction unreadable (its originals could not be found)
        #expect(Compaction(stored: try parse(#"{"id":"c1","first":"a","through":"b","count":2,"by":"me","at":10,"originals":[["a",0]]}"#)) == nil)

        var a = Approval(approvalId: "ap", toolCallId: "t", name: "deleteFile", arguments: ["path": "x"], at: 3)
        #expect(text(a.stored) == #"{"aid":"ap","call":"t","name":"deleteFile","args":{"path":"x"},"at":3,"remember":false}"#)
        a.decision = .deny
        a.remember = true
        a.origin = "mcp"
        a.effect = .replaces
        let aText = #"{"aid":"ap","call":"t","name":"deleteFile","args":{"path":"x"},"at":3,"remember":true,"decision":"deny","by":"mcp","fx":"replaces"}"#
        #expect(text(a.stored) == aText)
        #expect(Approval(stored: try parse(aText)) == a)
        #expect(Approval(stored: try parse(#"{"aid":"ap","call":"t","name":"n","at":3}"#))
                == Approval(approvalId: "ap", toolCallId: "t", name: "n", arguments: .object([:]), at: 3))

        let d = DeferredCall(toolCallId: "t", name: "n", arguments: [1], reason: "metered", at: 6)
        let dText = #"{"call":"t","name":"n","args":[1],"reason":"metered","at":6}"#
        #expect(text(d.stored) == dText)
        #expect(DeferredCall(stored: try parse(dText)) == d)
        #expect(DeferredCall(stored: try parse(#"{"call":"t","name":"n"}"#)) == nil)
    }

    @Test("a session's extras store each part only when it is there, and read a damaged entry leniently")
    func sessionExtras() throws {
        #expect(text(SessionExtras().stored) == "{}")
        var e = SessionExtras()
        e.lineage = Lineage(parentId: "p", messageId: nil, atNanos: 1)
        e.compactions = [Compaction(id: "c1", first: "a", through: "b", count: 2, summary: "s", by: "me", at: 10)]
        e.approvalPolicy = .destructive
        e.approvals = [Approval(approvalId: "ap", toolCallId: "t", name: "n", arguments: .object([:]), at: 3)]
        e.remembered = ["zip adds": .allow, "deleteFile replaces": .deny]
        e.deferred = [DeferredCall(toolCallId: "t", name: "n", arguments: [1], reason: "metered", at: 6)]
        let eText = #"{"lineage":{"parentId":"p","at":1},"compactions":[{"id":"c1","first":"a","through":"b","count":2,"summary":"s","by":"me","at":10}],"approvalPolicy":"destructive","approvals":[{"aid":"ap","call":"t","name":"n","args":{},"at":3,"remember":false}],"remembered":{"deleteFile replaces":"deny","zip adds":"allow"},"deferred":[{"call":"t","name":"n","args":[1],"reason":"metered","at":6}]}"#
        #expect(text(e.stored) == eText)
        #expect(SessionExtras(stored: try parse(eText)) == e)
        // one damaged compaction, an unknown decision and an unknown policy leave the rest
        let damaged = SessionExtras(stored: try parse(#"{"compactions":[{"id":"x"},{"id":"c1","first":"a","through":"b","count":2,"summary":"s","by":"me","at":10}],"approvalPolicy":"sometimes","remembered":{"a":"maybe","b":"allow"}}"#))
        var expected = SessionExtras()
        expected.compactions = e.compactions
        expected.remembered = ["b": .allow]
        #expect(damaged == expected)
        #expect(SessionExtras(stored: "not an object") == nil)
    }

    @Test("the retention policy file holds only the limits that are set, as before; a limit of another type refuses it")
    func retentionPolicy() throws {
        #expect(text(RetentionPolicy().stored) == "{}")
        let p = RetentionPolicy(maxBytesPerSession: 1 << 20, keepCompactedOriginalsSeconds: 86400, keepEndedSessions: 3)
        let pText = #"{"maxBytesPerSession":1048576,"keepCompactedOriginalsSeconds":86400,"keepEndedSessions":3}"#
        #expect(text(p.stored) == pText)
        #expect(RetentionPolicy(stored: try parse(pText)) == p)
        #expect(text(RetentionPolicy(keepEndedSessions: 0).stored) == #"{"keepEndedSessions":0}"#)
        #expect(RetentionPolicy(stored: try parse(#"{"maxBytesPerSession":null,"keepEndedSessions":2}"#)) == RetentionPolicy(keepEndedSessions: 2))
        #expect(RetentionPolicy(stored: try parse(#"{"keepEndedSessions":"3"}"#)) == nil)
        #expect(RetentionPolicy(stored: "[]") == nil)
        #expect(RetentionPolicy(stored: try parse(#"{"maxBytesPerSession":100}"#))?.isValid == false)
        #expect(RetentionPolicy(stored: try parse(#"{"keepEndedSessions":-1}"#))?.isValid == false)
        #expect(p.isValid && RetentionPolicy().isValid)
    }

    @Test("an approval policy is journaled as before: a name, or its tools and annotations sorted; one that does not read is refused")
    func approvalPolicy() throws {
        #expect(text(ApprovalPolicy.none.storedJSON) == #""none""#)
        #expect(text(ApprovalPolicy.destructive.storedJSON) == #""destructive""#)
        let rules = ApprovalPolicy.rules(tools: ["write_file", "append_file"], annotations: ["write", "openWorld"])
        let rulesText = #"{"tools":["append_file","write_file"],"annotations":["openWorld","write"]}"#
        #expect(text(rules.storedJSON) == rulesText)
        #expect(ApprovalPolicy(storedJSON: try parse(rulesText)) == rules)
        #expect(ApprovalPolicy(storedJSON: try parse(#"{"tools":[],"annotations":null}"#)) == ApprovalPolicy.none)
        #expect(throws: ApprovalPolicy.Refusal.notAPolicy) { try ApprovalPolicy(reading: "sometimes") }
        #expect(throws: ApprovalPolicy.Refusal.notAPolicy) { try ApprovalPolicy(reading: 3) }
        #expect(throws: ApprovalPolicy.Refusal.notNames(key: "tools")) { try ApprovalPolicy(reading: ["tools": [""]]) }
        #expect(throws: ApprovalPolicy.Refusal.unknownAnnotation("scary")) { try ApprovalPolicy(reading: ["annotations": ["write", "scary"]]) }
        #expect(ApprovalPolicy(storedJSON: try parse(#"{"annotations":["scary"]}"#)) == nil)
    }
}
