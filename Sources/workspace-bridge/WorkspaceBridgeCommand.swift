import ArgumentParser
import BridgeServer

@main
struct WorkspaceBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workspace-bridge",
        abstract: "Serves a workspace of files and agent sessions over stdio JSON-RPC 2.0.",
        discussion: """
            Speaks the LSP base protocol (Content-Length framing) or newline-delimited JSON, \
            detected from the first byte. stdout carries protocol bytes only; logs go to stderr.
            Example:
              printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' \\
                '{"jsonrpc":"2.0","id":2,"method":"ping"}' | workspace-bridge
            """,
        version: ServerInfo.version,
        subcommands: [Serve.self, MCP.self],
        defaultSubcommand: Serve.self
    )

    /// Starts the server straight from the usual command lines (`FastArguments`); everything
    /// else goes through swift-argument-parser.
    static func main() {
        if let fast = FastArguments.parse(Array(CommandLine.arguments.dropFirst())) {
            do {
                try fast.arguments.main(forceMCP: fast.mcp, session: fast.session).run()
            } catch {
                exit(withError: error)
            }
        }
        main(nil)
    }
}
