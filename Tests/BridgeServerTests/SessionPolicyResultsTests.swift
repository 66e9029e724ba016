@testable import AgentSessions
@testable import BridgeServer
import JSON
import JSONRPC
import SystemSupport
import Testing

/// The wire forms of the session store's policies and reports, declared in BridgeServer over the
/// typed values (`SessionPolicyResults.swift`), pinned to the bytes the core's own `json` sent
/// before they moved; and the protocol's parsers of the policies, with their exact refusals.
@Suite("Session policy results")
struct SessionPolicyResultsTests {
    private func text(_ v: some ResultValue) -> String { JSONCodec.encodeString(v.json) }

    @Test("retention policy, prune report and an import's omissions send the fields they always sent")
    func retentionAndImport() {
        #expect(text(RetentionPolicy()) == "{}")
        #expect(text(RetentionPolicy(maxBytesPerSession: 1 << 20, keepCompactedOriginalsSeconds: 86400, keepEndedSessions: 3))
            == #"{"maxBytesPerSession":1048576,"keepCompactedOriginalsSeconds":86400,"keepEndedSessions":3}"#)
        let report = PruneReport(sessions: [PrunedSession(id: "s1", bytesBefore: 100, bytesAfter: 50, droppedOriginals: ["c1"], droppedMessages: 2)],
                                 deletedSessions: ["s2"])
        #expect(text(report) == #"{"sessions":[{"id":"s1","bytesBefore":100,"bytesAfter":50,"droppedOriginals":["c1"],"droppedMessages":2}],"deletedSessions":["s2"]}"#)
        #expect(text(PruneReport()) == #"{"sessions":[],"deletedSessions":[]}"#)
        #expect(text(NotImported(decidedApprovals: 1, rememberedDecisions: ["zip"])) == #"{"decidedApprovals":1,"rememberedDecisions":["zip"]}"#)
    }

    @Test("device conditions, the policy and a work decision keep their fields and order")
    func device() {
        #expect(text(DeviceConditions(network: .wifi)) == #"{"network":"wifi","isExpensive":false,"isConstrained":false,"isCharging":false,"isLowPowerMode":false}"#)
        let c = DeviceConditions(network: .cellular, isExpensive: true, batteryLevel: 0.5, thermalState: .fair)
        #expect(text(c) == #"{"network":"cellular","isExpensive":true,"isConstrained":false,"batteryLevel":0.5,"isCharging":false,"isLowPowerMode":false,"thermalState":"fair"}"#)
        #expect(text(Policy(conditions: .assumed)) == #"{"deferHeavyWork":false,"maxModelTier":"powerful","allowNetworkTools":true,"reasons":[]}"#)
        let offline = Policy(conditions: DeviceConditions(network: .offline), offlineTools: ["read_file"]).json
        #expect(offline.objectValue?.keys == ["deferHeavyWork", "maxModelTier", "allowNetworkTools", "reasons", "message"])
        #expect(offline["allowNetworkTools"] == false && offline["reasons"] == ["offline"])
        #expect(text(WorkDecision.allow) == #"{"allowed":true}"#)
        #expect(text(WorkDecision.deferred(reason: "thermal", confirmable: true, message: "hot"))
            == #"{"allowed":false,"reason":"thermal","confirmable":true,"message":"hot"}"#)
    }

    @Test("an approval policy is sent as it is journaled: a name, or its tools and annotations sorted")
    func approvalPolicy() {
        #expect(text(ApprovalPolicy.none) == #""none""#)
        #expect(text(ApprovalPolicy.destructive) == #""destructive""#)
        #expect(text(ApprovalPolicy.rules(tools: ["b", "a"], annotations: ["write"])) == #"{"tools":["a","b"],"annotations":["write"]}"#)
    }

    @Test("session/stats: each turn's usage by model and tool calls by name, sorted; unattributed only when there is some")
    func stats() {
        var t = TurnStats(userMessageId: "m1", startedAtNanos: 1_000_000)
        t.messages = 2
        t.inputTokens = 4
        t.outputTokens = 6
        t.modelCalls = 2
        t.costUSD = 0.5
        t.byModel = ["b": (1, 2), "a": (3, 4)]
        t.toolCallsByName = ["z": 1, "a": 2]
        t.toolCallsByOutcome = ["ok": 3]
        let at = Timestamp.iso8601(nanos: 1_000_000)
        let turn = #"{"userMessageId":"m1","startedAt":"\#(at)","messages":2,"usage":{"inputTokens":4,"outputTokens":6,"modelCalls":2,"estimatedCostUSD":0.5,"byModel":[{"model":"a","inputTokens":3,"outputTokens":4},{"model":"b","inputTokens":1,"outputTokens":2}]},"toolCalls":{"count":3,"byName":{"a":2,"z":1},"byOutcome":{"ok":3}}}"#
        #expect(text(t) == turn)
        let empty = #"{"messages":0,"usage":{"inputTokens":0,"outputTokens":0,"modelCalls":0,"estimatedCostUSD":0.0,"byModel":[]},"toolCalls":{"count":0,"byName":{},"byOutcome":{}}}"#
        #expect(text(TurnStats()) == empty)
        var s = SessionStats(sessionId: "s", turns: [t], totals: t)
        #expect(text(s) == #"{"id":"s","turns":[\#(turn)],"totals":\#(turn)}"#)
        s.unattributedInputTokens = 5
        #expect(text(s) == #"{"id":"s","turns":[\#(turn)],"totals":\#(turn),"unattributed":{"inputTokens":5,"outputTokens":0}}"#)
    }

    private func refusal(_ decode: () throws -> Void) -> JSON? {
        do { try decode(); return nil } catch let e as RPCError {
            var o = e.data
            o["message"] = .string(e.message)
            return .object(o)
        } catch { return nil }
    }

    @Test("the policies' params are refused with the messages they always had")
    func parsers() throws {
        let c = try SetConditions.Params(ParamReader(["network": "cellular", "isExpensive": true, "batteryLevel": 0.5, "thermalState": "fair"]))
        #expect(c.conditions == DeviceConditions(network: .cellular, isExpensive: true, batteryLevel: 0.5, thermalState: .fair))
        #expect(try SetConditions.Params(ParamReader(c.conditions.json)).conditions == c.conditions)
        let badConditions: [(JSON, String)] = [
            (["network": "satellite"], "network must be one of offline, wifi, cellular, wired"),
            (["network": "wifi", "batteryLevel": 1.5], "batteryLevel must be a number from 0 to 1"),
            (["network": "wifi", "isCharging": "yes", "thermalState": "warm"], "thermalState must be one of nominal, fair, serious, critical"),
            (["network": "wifi", "isCharging": "yes"], "isCharging must be a boolean"),
            ([:], "network must be one of offline, wifi, cellular, wired"),
        ]
        for (params, expected) in badConditions {
            let e = refusal { _ = try SetConditions.Params(ParamReader(params)) }
            #expect(e?["message"] == .string("Invalid params: params must be \(expected), got object"))
            #expect(e?["field"] == "" && e?["expected"] == .string(expected))
        }
        let r = try SetRetention.Params(ParamReader(["maxBytesPerSession": 4096, "keepEndedSessions": nil]))
        #expect(r.policy == RetentionPolicy(maxBytesPerSession: 4096))
        let low = refusal { _ = try SetRetention.Params(ParamReader(["maxBytesPerSession": 100, "keepEndedSessions": "3"])) }
        #expect(low?["message"] == "Invalid params: 'maxBytesPerSession' must be maxBytesPerSession must be an integer >= 4096, got integer")
        let text = refusal { _ = try SetRetention.Params(ParamReader(["keepEndedSessions": "3"])) }
        #expect(text?["field"] == "keepEndedSessions" && text?["got"] == "string")
        let policies: [(JSON, String)] = [
            ("sometimes", #"approvalPolicy must be "none", "destructive" or {tools, annotations}"#),
            (["tools": [1]], "approvalPolicy.tools must be an array of strings"),
            (["annotations": ["write", "scary"]], "unknown annotation scary in approvalPolicy.annotations (destructive, openWorld, write)"),
        ]
        for (policy, expected) in policies {
            let e = refusal { _ = try SetApprovalPolicy.Params(ParamReader(["id": "s", "approvalPolicy": policy])) }
            #expect(e?["field"] == "approvalPolicy" && e?["expected"] == .string(expected))
        }
        #expect(try SetApprovalPolicy.Params(ParamReader(["id": "s", "approvalPolicy": ["annotations": ["write"]]])).policy
            == .rules(tools: [], annotations: ["write"]))
    }
}
