#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BridgeServer
import JSON
import JSONRPC
import Logging
import Storage

extension FramingMode: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Options shared by `serve` and `mcp`.
struct ServerOptions: ParsableArguments {
    @Option(help: "The local workspace root.")
    var localRoot: String?

    @Option(help: "The cloud workspace root: a folder kept in sync by iCloud Drive, Syncthing, Nextcloud, Dropbox, Unison or rclone.")
    var cloudRoot: String?

    @Option(help: "Use the iCloud Drive container with this identifier (e.g. iCloud.com.example.app) as the cloud root (Apple systems).")
    var icloudContainer: String?

    @Option(help: "Where per-machine settings (the storage choice) are kept; default $XDG_CONFIG_HOME/workspace-bridge.")
    var configDir: String?

    @Option(help: "Message framing: auto (decided by the first byte), lsp (Content-Length) or ndjson.")
    var framing: FramingMode = .auto

    @Option(help: "The largest message accepted, in bytes; larger ones are answered with an error and skipped.")
    var maxMessageBytes: Int = 64 << 20

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Also append logs to this file.")
    var logFile: String?

    @Option(help: "Seconds a client may read none of the server's output while it waits, before the server disconnects (exit status 1); 0 waits for ever.")
    var outputStallTimeout: Int = 60

    @Option(help: "Seconds with no input and no request in flight after which the server gives memory back (its code pages and free heap: see docs/decisions.md); 0 never does.")
    var idleReleaseAfter: Double = 1

    @Option(help: "Seconds end of input (and shutdown) waits for requests still running before giving up on them and naming them on stderr.")
    var exitGrace: Double = 10

    @Flag(help: "Offer the debug/* methods (tests and benchmarks).")
    var enableDebugMethods = false

    /// The parsed values (read only after parsing).
    var arguments: ServeArguments {
        ServeArguments(localRoot: localRoot, cloudRoot: cloudRoot, icloudContainer: icloudContainer, configDir: configDir,
                       framing: framing, maxMessageBytes: maxMessageBytes, logLevel: logLevel, logFile: logFile,
                       outputStallTimeout: outputStallTimeout, idleReleaseAfter: idleReleaseAfter,
                       exitGrace: exitGrace, enableDebugMethods: enableDebugMethods)
    }

    func validate() throws { try arguments.validate() }

    func main(forceMCP: Bool = false, session: String? = nil) -> ServerMain {
        arguments.main(forceMCP: forceMCP, session: session)
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the protocol on stdin/stdout (the default).")

    @OptionGroup var options: ServerOptions

    func run() throws { try options.main().run() }
}

struct MCP: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the Model Context Protocol on stdin/stdout (newline-delimited JSON), whatever the client's initialize says.")

    @OptionGroup var options: ServerOptions

    @Option(help: "Journal tool calls into this existing session (default: a new session per connection).")
    var session: String?

    func run() throws { try options.main(forceMCP: true, session: session).run() }
}
