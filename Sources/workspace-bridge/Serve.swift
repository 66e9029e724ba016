import AgentSessions
import ArgumentParser

/// `workspace-bridge serve` (the default command): the protocol on stdin/stdout.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the protocol on stdin/stdout (the default).")

    @OptionGroup var options: ServerOptions
    @OptionGroup var grant: GrantOptions

    func run() throws {
        var c = options.configuration(environment: ServerMain.environment())
        c.grant = try grant.grant()
        try HubStart.attach(&c, option: options.hub)
        try ServerMain.run(c)
    }
}

/// `workspace-bridge mcp`: the Model Context Protocol face, whatever the client's `initialize` says.
struct MCP: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the Model Context Protocol on stdin/stdout (newline-delimited JSON), whatever the client's initialize says.")

    @OptionGroup var options: ServerOptions
    @OptionGroup var grant: GrantOptions

    @Option(help: "Journal tool calls into this existing session (default: a new session per connection).")
    var session: String?

    @Option(name: .customLong("root"), help: "Narrow tools and resources to this folder of the workspace (absolute, or relative to the workspace root; repeatable). The MCP 2026-07-28 era sends no roots/list: this is how its clients narrow; a 2025 client's roots can only narrow further.")
    var roots: [String] = []

    @Option(help: "The approval policy of the session this process creates: none, destructive (every call that overwrites, deletes, moves or replaces existing content asks the user first, whichever tool makes it) or write (every call that changes files asks). A --session keeps its own policy (session/setApprovalPolicy).")
    var approvalPolicy: String?

    @Option(help: "Seconds an MCP client has to answer an approval request (elicitation) before the call answers ApprovalRequired.")
    var approvalTimeout: Double = 300

    func validate() throws {
        if let approvalPolicy, ApprovalPolicy(named: approvalPolicy) == nil {
            throw ValidationError("--approval-policy must be none, destructive or write")
        }
        if approvalPolicy != nil, session != nil {
            throw ValidationError("--approval-policy applies to the session mcp creates; --session keeps that session's own policy (set it with session/setApprovalPolicy)")
        }
        guard approvalTimeout > 0, approvalTimeout <= 86_400 else { throw ValidationError("--approval-timeout must be a number of seconds from 0 to 86400") }
    }

    func run() throws {
        var c = options.configuration(mcp: true, session: session, environment: ServerMain.environment())
        c.grant = try grant.grant()
        c.mcpRoots = roots
        c.mcpApprovalPolicy = approvalPolicy.flatMap(ApprovalPolicy.init(named:))
        c.mcpApprovalTimeout = .milliseconds(Int64(approvalTimeout * 1000))
        try HubStart.attach(&c, option: options.hub)
        try ServerMain.run(c)
    }
}
