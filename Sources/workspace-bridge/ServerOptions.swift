import ArgumentParser
import BridgeServer
import JSONRPC
import Logging
import SessionHub
import Storage
import Workspace

extension FramingMode: ExpressibleByArgument {}
extension WorkspaceTemplate: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// The options shared by `serve`, `mcp`, `doctor` and `acp` (which reads the storage, log, message
/// size and exit grace ones): each one declared here once, with its rule, and mapped once into
/// the `ServerConfiguration` the server runs with. The transport's defaults
/// are not restated: they are read from `TransportOptions()`, where they are declared.
struct ServerOptions: ParsableArguments {
    private static let defaults = TransportOptions()

    @Option(help: "The local workspace root.")
    var localRoot: String?

    @Option(help: "The cloud workspace root: a folder kept in sync by iCloud Drive, Syncthing, Nextcloud, Dropbox, Unison or rclone.")
    var cloudRoot: String?

    @Option(help: "Use the iCloud Drive container with this identifier (e.g. iCloud.com.example.app) as the cloud root (Apple systems).")
    var icloudContainer: String?

    @Option(help: "Where per-machine settings (the storage choice) are kept; default $XDG_CONFIG_HOME/workspace-bridge.")
    var configDir: String?

    @Option(help: "The layout a root gets the first time it is used: default (journals, research, chats, context.md) or atome (Projects, Exports, Recordings, Templates, README.txt).")
    var template: WorkspaceTemplate?

    @Option(help: "Message framing: auto (decided by the first byte), lsp (Content-Length) or ndjson.")
    var framing: FramingMode = defaults.framing

    @Option(help: "The largest message accepted, in bytes; larger ones are answered with an error and skipped.")
    var maxMessageBytes: Int = defaults.maxMessageBytes

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = defaults.logLevel

    @Option(help: "Also append logs to this file.")
    var logFile: String?

    @Option(help: "Seconds a client may read none of the server's output while it waits, before the server disconnects (exit status 1); 0 waits for ever.")
    var outputStallTimeout: Int = Int(seconds(defaults.outputStallTimeout))

    @Option(help: "Seconds with no input and no request in flight after which the server gives memory back (its code pages and free heap: see docs/decisions.md); 0 never does.")
    var idleReleaseAfter: Double = seconds(defaults.idleReleaseAfter)

    @Option(help: "Seconds exit, end of input, a termination signal (and shutdown) wait for the requests received before them to finish, before giving up on the ones still running and naming them on stderr.")
    var exitGrace: Double = seconds(defaults.exitGrace)

    @Option(help: "Seconds device conditions another server process's host reported (<config>/device-conditions.json) stay trusted after they were last written; a server whose host reported them rewrites them every fifth of this. Give every process of one config folder the same value.")
    var conditionsMaxAge: Double = 300

    @Option(help: "The session hub every session record is replicated to: a postgresql:// URI (default: $WORKSPACE_BRIDGE_HUB). No password in it: libpq reads PGPASSWORD, ~/.pgpass or a service file.")
    var hub: String?

    @Flag(help: "Offer the debug/* methods (tests and benchmarks).")
    var enableDebugMethods = false

    func validate() throws {
        if let hub {
            do throws(HubAddress.Refused) { _ = try HubAddress(hub) } catch { throw ValidationError("--hub: \(error.description)") }
        }
        guard maxMessageBytes > 0 else { throw ValidationError("--max-message-bytes must be positive") }
        guard outputStallTimeout >= 0 else { throw ValidationError("--output-stall-timeout must not be negative") }
        guard idleReleaseAfter >= 0, idleReleaseAfter.isFinite else {
            throw ValidationError("--idle-release-after must be a non-negative number of seconds")
        }
        guard exitGrace >= 0, exitGrace <= 86_400 else { throw ValidationError("--exit-grace must be a number of seconds from 0 to 86400") }
        guard conditionsMaxAge >= 1, conditionsMaxAge <= 86_400 else {
            throw ValidationError("--conditions-max-age must be a number of seconds from 1 to 86400")
        }
    }

    /// What the server runs with; `mcp` serves MCP over NDJSON whatever `--framing` says.
    func configuration(mcp: Bool = false, session: String? = nil, environment: [String: String] = [:]) -> ServerConfiguration {
        let cloud = cloudRoot ?? icloudContainer.map { ICloudContainer.documentsPath(identifier: $0) ?? "/nonexistent/icloud/\($0)" }
        var c = ServerConfiguration(localRoot: localRoot, cloudRoot: cloud, enableDebugMethods: enableDebugMethods,
                                    environment: environment)
        c.configDirectory = configDir
        c.template = template
        c.forceMCP = mcp
        c.mcpSession = session
        c.transport.framing = mcp ? .ndjson : framing
        c.transport.maxMessageBytes = maxMessageBytes
        c.transport.logLevel = logLevel
        c.transport.logFile = logFile
        c.transport.outputStallTimeout = outputStallTimeout > 0 ? .seconds(outputStallTimeout) : nil
        c.transport.idleReleaseAfter = idleReleaseAfter > 0 ? .milliseconds(Int64(idleReleaseAfter * 1000)) : nil
        c.transport.exitGrace = .milliseconds(Int64(exitGrace * 1000))
        c.conditionsMaxAge = .milliseconds(Int64(conditionsMaxAge * 1000))
        return c
    }

    /// A duration as the command line spells it: seconds, 0 for none.
    private static func seconds(_ d: Duration?) -> Double {
        guard let d else { return 0 }
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
