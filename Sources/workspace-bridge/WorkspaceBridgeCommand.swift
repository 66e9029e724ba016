import ArgumentParser
import BridgeServer

/// The command line: `serve` (the default), `mcp` and `doctor`, parsed by swift-argument-parser alone.
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
        subcommands: [Serve.self, MCP.self, ACP.self, Doctor.self],
        defaultSubcommand: Serve.self
    )
}
