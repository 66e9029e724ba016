#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ACPFace
import AgentSessions
import ArgumentParser
import BridgeServer
import JSON
import Logging
import Storage

/// `workspace-bridge acp [options] -- AGENT [ARGS…]`: the Agent Client Protocol face. To the
/// editor (on stdin/stdout) an ACP v1 agent; to AGENT, spawned with pipes, an ACP client. Every
/// session lives in the session store of the active storage root (the storage options of `serve`).
struct ACP: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acp",
        abstract: "Serve the Agent Client Protocol on stdin/stdout in front of an ACP agent, keeping its sessions in the workspace.",
        discussion: """
            Example (Zed settings.json, agent_servers):
              "Bridged agent": { "command": "workspace-bridge", "args": ["acp", "--", "my-agent", "--acp"] }
            Only the storage options (--local-root, --cloud-root, --icloud-container, --config-dir, \
            --template), --max-message-bytes, --exit-grace, --log-level and --log-file apply to acp.
            """)

    @OptionGroup var options: ServerOptions

    @Option(help: "The approval policy of the sessions this process creates, which then answers the agent's permission requests it does not need to ask about: none (every request allowed without asking), destructive (the editor is asked for every call that replaces or removes existing content), write (asked for every call that changes anything). Without it, every permission request goes to the editor.")
    var approvalPolicy: String?

    @Option(help: "The budget of the sessions this process creates, in US dollars, counted from the cost the agent reports in usage_update; a session over it refuses its next prompt (BudgetExceeded).")
    var maxCostUsd: Double?
    @Option(help: "The most prompts (turns) each session this process creates may take.")
    var maxTurns: Int?
    @Option(help: "The most input tokens each session may use, as the agent reports them in its prompt answers' usage.")
    var maxInputTokens: Int?
    @Option(help: "The most output tokens each session may use, as the agent reports them.")
    var maxOutputTokens: Int?

    @Flag(help: "Do not offer the agent our MCP face (this binary's mcp --session ID, with these storage options) in each session's mcpServers.")
    var noMcp = false

    @Argument(parsing: .postTerminator, help: "The agent's command and its arguments, after --.")
    var agent: [String] = []

    func validate() throws {
        if let approvalPolicy, ApprovalPolicy(named: approvalPolicy) == nil {
            throw ValidationError("--approval-policy must be none, destructive or write")
        }
        if let maxCostUsd, !(maxCostUsd >= 0 && maxCostUsd.isFinite) { throw ValidationError("--max-cost-usd must be a number >= 0") }
        for (name, v) in [("--max-turns", maxTurns), ("--max-input-tokens", maxInputTokens), ("--max-output-tokens", maxOutputTokens)] {
            if let v, v < 0 { throw ValidationError("\(name) must be an integer >= 0") }
        }
        guard !agent.isEmpty else { throw ValidationError("give the agent's command after --, e.g. workspace-bridge acp -- my-agent --acp") }
        // Said rather than ignored: the ACP face does not replicate to a hub yet.
        guard options.hub == nil else { throw ValidationError("--hub is not available on acp yet (serve and mcp take it)") }
    }

    func run() throws {
        // The roots, folders and transport options as `serve` resolves them (of the transport, the
        // face reads the message size limit and the exit grace: it has its own framing, NDJSON).
        let c = options.configuration(environment: ServerMain.environment())
        // The same start as `serve` (stdout for protocol bytes only, the same log lines on stderr
        // and --log-file); no client sink is attached: on this face the editor's log is the
        // agent's stderr, which is ours.
        let protocolOut = try ProcessStart(c.transport).protocolOut
        let logger = Logger(label: "workspace-bridge.acp")
        let configDirectory = try c.resolvedConfigDirectory()
        let manager = try StorageManager(localRoot: try c.localRoot ?? c.defaultLocalRoot(), cloudRoot: c.cloudRoot,
                                         configDirectory: configDirectory, template: c.template ?? .default)
        let root = try manager.active().rootPath
        let pricing = (try? Pricing.load(file: configDirectory + "/pricing.json")) ?? Pricing()
        let store = SessionStore(directory: root + "/.workspace/sessions", owner: DeviceIdentity.id(configDirectory: configDirectory),
                                 pricing: pricing)
        // Our MCP face for each session, on the same storage (absolute paths: the agent may run elsewhere).
        var offer: (command: String, arguments: [String])?
        if !noMcp {
            if let me = ExecutablePath.current() {
                var args = ["mcp", "--local-root", absolute(try c.localRoot ?? c.defaultLocalRoot()), "--config-dir", configDirectory]
                if let cloud = c.cloudRoot { args += ["--cloud-root", absolute(cloud)] }
                if let t = c.template { args += ["--template", t.rawValue] }
                offer = (me, args)
            } else {
                logger.warning("acp: the path of this binary is unknown; the MCP face is not offered to the agent")
            }
        }
        logger.info("acp: sessions in \(root), agent \(agent.joined(separator: " "))")
        let proxy = try ACPProxy(configuration: ACPConfiguration(agentCommand: agent, workspaceRoot: root, maxMessageBytes: c.transport.maxMessageBytes,
                                                              exitGrace: c.transport.exitGrace,
                                                              approvalPolicy: approvalPolicy.flatMap(ApprovalPolicy.init(named:)),
                                                              budget: SessionConfig(maxInputTokens: maxInputTokens, maxOutputTokens: maxOutputTokens,
                                                                                    maxTurns: maxTurns, maxCostUSD: maxCostUsd),
                                                              mcpOffer: offer),
                             store: store, editorOutput: protocolOut, logger: logger)
        proxy.run(input: 0)
        #if canImport(Glibc)
        Glibc.exit(0)
        #else
        Darwin.exit(0)
        #endif
    }

    /// `path` as an absolute path (relative ones are taken from the current directory).
    private func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }
}
