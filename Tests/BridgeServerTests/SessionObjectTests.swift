#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
@testable import BridgeServer
import JSON
import Testing

@Suite("Session object")
struct SessionObjectTests {
    @Test("a session without issue 17's facts has exactly the protocol's original fields, in order")
    func sessionEncoding() throws {
        var template = Array("/tmp/wb-session-object-XXXXXX".utf8CString)
        let root = try #require(mkdtemp(&template).map { String(cString: $0) })
        let store = SessionStore(directory: root + "/sessions", owner: "device-a")
        let s = try store.create(title: "T", config: SessionConfig(modelTier: .balanced))
        let json = SessionObject(session: s).json
        #expect(json.objectValue?.keys == ["id", "title", "agentType", "state", "config", "usage", "pendingToolCalls", "createdAt", "updatedAt"])
        #expect(json["usage"] == ["inputTokens": 0, "outputTokens": 0, "turns": 0, "estimatedCostUSD": 0.0])
        #expect(json["config"] == ["modelTier": "balanced"])
        let forked = SessionObject(session: try store.fork(id: s.id, title: "F")).json
        #expect(forked["parentId"] == .string(s.id) && forked["forkedAt"]?["parentId"] == .string(s.id))
    }
}
