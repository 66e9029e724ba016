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

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the protocol on stdin/stdout (the default).")

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

    @Flag(help: "Offer the debug/* methods (tests and benchmarks).")
    var enableDebugMethods = false

    func validate() throws {
        guard maxMessageBytes > 0 else { throw ValidationError("--max-message-bytes must be positive") }
    }

    func run() throws {
        let cloud = cloudRoot ?? icloudContainer.map { ICloudContainer.documentsPath(identifier: $0) ?? "/nonexistent/icloud/\($0)" }
        try ServerMain(localRoot: localRoot, cloudRoot: cloud, configDir: configDir, framing: framing, maxMessageBytes: maxMessageBytes,
                       logLevel: logLevel, logFile: logFile, enableDebugMethods: enableDebugMethods).run()
    }
}
