import JSON

/// Our MCP face offered to the agent in each session's `mcpServers`.
///
/// Guarantees: every `session/new`, `session/load` and `session/resume` the agent gets for one
/// of our sessions (the editor's, or the proxy's own when it attaches a session) carries, after
/// the editor's servers, one stdio server named `workspace-bridge`: this binary's
/// `mcp [storage options] --session <our id>`, so the file tools the agent calls there are the
/// workspace's (sandboxed in the active root), journaled in the same session and weighed by its
/// approval policy. An editor server of that name is replaced, never doubled. Not offered when
/// the proxy runs with `--no-mcp`.
extension ACPProxy {
    static let offeredServerName = "workspace-bridge"

    /// `params` with our server added to its `mcpServers` for session `sid`.
    func offeringMCP(_ params: JSON, session sid: String) -> JSON {
        guard let offer = configuration.mcpOffer, var o = params.objectValue else { return params }
        var servers = (o["mcpServers"]?.arrayValue ?? []).filter { $0["name"]?.stringValue != Self.offeredServerName }
        servers.append(["name": .string(Self.offeredServerName), "command": .string(offer.command),
                        "args": .array((offer.arguments + ["--session", sid]).map(JSON.string)), "env": []])
        o["mcpServers"] = .array(servers)
        return .object(o)
    }
}
