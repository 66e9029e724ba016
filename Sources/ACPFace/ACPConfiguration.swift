import AgentSessions

/// How `workspace-bridge acp` runs: the agent it spawns and the bounds it keeps.
public struct ACPConfiguration: Sendable {
    /// The ACP protocol version the face speaks to both sides.
    public static let protocolVersion: Int64 = 1

    /// The agent's command line (`AGENT ARGS…`), looked up in PATH.
    public var agentCommand: [String]
    /// The largest message accepted from either side; a larger line is refused (from the editor)
    /// or dropped (from the agent), and the stream goes on.
    public var maxMessageBytes: Int
    /// How long, once the editor's input ends, requests already forwarded may take to be answered
    /// before the agent is stopped (`--exit-grace`).
    public var exitGrace: Duration
    /// `--approval-policy`: the policy of the sessions this process makes, which then weighs the
    /// agent's permission requests (`ACPProxy+Consent`); nil: they all go to the editor.
    public var approvalPolicy: ApprovalPolicy?
    /// The budget of the sessions this process makes (`--max-cost-usd`, `--max-turns`,
    /// `--max-input-tokens`, `--max-output-tokens`); the agent's reported usage counts against it.
    public var budget: SessionConfig
    /// Our MCP face as the agent gets it in each session's `mcpServers` (nil: not offered):
    /// `command` (this binary, absolute) and the arguments before `--session ID`
    /// (`mcp` and the storage options of this process).
    public var mcpOffer: (command: String, arguments: [String])?
    /// The active storage root: sessions' `cwd` and `additionalDirectories` must be inside it.
    public var workspaceRoot: String

    public init(agentCommand: [String], workspaceRoot: String, maxMessageBytes: Int = 64 << 20,
                exitGrace: Duration = .seconds(10), approvalPolicy: ApprovalPolicy? = nil, budget: SessionConfig = SessionConfig(),
                mcpOffer: (command: String, arguments: [String])? = nil) {
        self.budget = budget
        self.mcpOffer = mcpOffer
        self.agentCommand = agentCommand
        self.workspaceRoot = workspaceRoot
        self.maxMessageBytes = maxMessageBytes
        self.exitGrace = exitGrace
        self.approvalPolicy = approvalPolicy
    }

    /// The agent's name as sessions record it (`agentType`): the command's file name.
    public var agentName: String {
        guard let c = agentCommand.first else { return "acp" }
        return c.split(separator: "/").last.map(String.init) ?? c
    }
}
