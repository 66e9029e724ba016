import AgentSessions
import JSON

/// What an ACP session keeps in our session's `metadata.acp`: the `cwd` and
/// `additionalDirectories` it was started with, the agent's own id for it at creation
/// (`agentSessionId`) and the agent's name. (Never the editor's `mcpServers`: they may carry
/// secrets in `env`, and the journal may be synced.)
struct ACPSessionInfo {
    static let defaultTitle = "Untitled"

    var cwd: String
    var additionalDirectories: JSON?
    var agentSessionId: String?

    init(cwd: String, additionalDirectories: JSON?, agentSessionId: String?) {
        self.cwd = cwd
        self.additionalDirectories = additionalDirectories
        self.agentSessionId = agentSessionId
    }

    /// Nil for a session the ACP face did not start.
    init?(_ session: Session) {
        guard let acp = session.metadata?["acp"], let cwd = acp["cwd"]?.stringValue else { return nil }
        self.cwd = cwd
        additionalDirectories = acp["additionalDirectories"]
        agentSessionId = acp["agentSessionId"]?.stringValue
    }

    func metadata(agent: String) -> JSON {
        var o: JSONObject = ["cwd": .string(cwd), "agent": .string(agent)]
        if let additionalDirectories { o["additionalDirectories"] = additionalDirectories }
        if let agentSessionId { o["agentSessionId"] = .string(agentSessionId) }
        return ["acp": .object(o)]
    }

    /// ACP's `SessionInfo` for `session/list`.
    static func listed(_ s: Session, _ info: ACPSessionInfo) -> JSON {
        var o: JSONObject = ["sessionId": .string(s.id), "cwd": .string(info.cwd), "title": .string(s.title),
                             "updatedAt": .string(s.updatedAt)]
        if let dirs = info.additionalDirectories, dirs.arrayValue?.isEmpty == false { o["additionalDirectories"] = dirs }
        return .object(o)
    }
}
