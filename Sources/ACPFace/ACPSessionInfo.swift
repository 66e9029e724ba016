import AgentSessions
import JSON

/// What an ACP session keeps in our session's `metadata.acp`: the `cwd` and
/// `additionalDirectories` it was started with, the agent's own id for it at creation
/// (`agentSessionId`), the agent's name, and `consent: true` when it was made with
/// `--approval-policy`. (Never the editor's `mcpServers`: they may carry
/// secrets in `env`, and the journal may be synced.)
struct ACPSessionInfo {
    static let defaultTitle = "Untitled"

    var cwd: String
    var additionalDirectories: JSON?
    var agentSessionId: String?
    /// Made with `--approval-policy`: the session's policy weighs the agent's permission requests.
    var consent = false

    init(cwd: String, additionalDirectories: JSON?, agentSessionId: String?, consent: Bool) {
        self.cwd = cwd
        self.additionalDirectories = additionalDirectories
        self.agentSessionId = agentSessionId
        self.consent = consent
    }

    /// Nil for a session the ACP face did not start.
    init?(_ session: Session) {
        guard let acp = session.metadata?["acp"], let cwd = acp["cwd"]?.stringValue else { return nil }
        self.cwd = cwd
        additionalDirectories = acp["additionalDirectories"]
        agentSessionId = acp["agentSessionId"]?.stringValue
        consent = acp["consent"]?.boolValue ?? false
    }

    func metadata(agent: String) -> JSON {
        var o: JSONObject = ["cwd": .string(cwd), "agent": .string(agent)]
        if let additionalDirectories { o["additionalDirectories"] = additionalDirectories }
        if let agentSessionId { o["agentSessionId"] = .string(agentSessionId) }
        if consent { o["consent"] = true }
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
