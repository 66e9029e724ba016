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

    func run() throws {
        try ServerMain.run(options.configuration(mcp: true, session: session, environment: ServerMain.environment()))
    }
}
