import ArgumentParser

/// `workspace-bridge serve` (the default command): the protocol on stdin/stdout.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the protocol on stdin/stdout (the default).")

    @OptionGroup var options: ServerOptions

    func run() throws { try ServerMain.run(options.configuration(environment: ServerMain.environment())) }
}

/// `workspace-bridge mcp`: the Model Context Protocol face, whatever the client's `initialize` says.
struct MCP: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the Model Context Protocol on stdin/stdout (newline-delimited JSON), whatever the client's initialize says.")

    @OptionGroup var options: ServerOptions

    @Option(help: "Journal tool calls into this existing session (default: a new session per connection).")
    var session: String?

    @Option(name: .customLong("root"), help: "Narrow tools and resources to this folder of the workspace (absolute, or relative to the workspace root; repeatable). The MCP 2026-07-28 era sends no roots/list: this is how its clients narrow; a 2025 client's roots can only narrow further.")
    var roots: [String] = []

    func run() throws {
        var c = options.configuration(mcp: true, session: session, environment: ServerMain.environment())
        c.mcpRoots = roots
        try ServerMain.run(c)
    }
}
