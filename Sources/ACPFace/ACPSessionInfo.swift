import AgentSessions
import JSON

/// What an ACP session keeps in our session's `metadata.acp`: its `cwd` and
/// `additionalDirectories` relative to the workspace root (`cwdInRoot`, `directoriesInRoot`: so a
/// synced session opens on another device, where the root has another path), the agent's own id
/// for it at creation (`agentSessionId`), the agent's name, and `consent: true` when it was made
/// with `--approval-policy`. (Never the editor's `mcpServers`: their `env` may hold secrets, and
/// the journal may be synced.)
struct ACPSessionInfo {
    static let defaultTitle = "Untitled"

    var cwd: String
    var directories: [String]
    var agentSessionId: String?
    /// Made with `--approval-policy`: the session's policy weighs the agent's permission requests.
    var consent = false

    init(cwd: String, directories: [String], agentSessionId: String?, consent: Bool) {
        self.cwd = cwd
        self.directories = directories
        self.agentSessionId = agentSessionId
        self.consent = consent
    }

    /// Nil for a session the ACP face did not start.
    init?(_ session: Session) {
        guard let acp = session.metadata?["acp"], let cwd = acp["cwdInRoot"]?.stringValue else { return nil }
        self.cwd = cwd
        directories = acp["directoriesInRoot"]?.arrayValue?.compactMap(\.stringValue) ?? []
        agentSessionId = acp["agentSessionId"]?.stringValue
        consent = acp["consent"]?.boolValue ?? false
    }

    func metadata(agent: String) -> JSONObject {
        var o: JSONObject = ["cwdInRoot": .string(cwd), "agent": .string(agent)]
        if !directories.isEmpty { o["directoriesInRoot"] = .array(directories.map(JSON.string)) }
        if let agentSessionId { o["agentSessionId"] = .string(agentSessionId) }
        if consent { o["consent"] = true }
        return ["acp": .object(o)]
    }

    /// `cwd` and `additionalDirectories` as this device's absolute paths (what ACP carries).
    func paths(_ inside: InsideRoot) -> JSONObject {
        var o: JSONObject = ["cwd": .string(inside.absolute(cwd))]
        if !directories.isEmpty { o["additionalDirectories"] = .array(directories.map { .string(inside.absolute($0)) }) }
        return o
    }

    /// ACP's `SessionInfo` for `session/list`.
    static func listed(_ s: Session, _ info: ACPSessionInfo, _ inside: InsideRoot) -> JSON {
        var o = info.paths(inside)
        o["sessionId"] = .string(s.id)
        o["title"] = .string(s.title)
        o["updatedAt"] = .string(s.updatedAt)
        return .object(o)
    }
}
