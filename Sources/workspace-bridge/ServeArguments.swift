import ArgumentParser
import JSONRPC
import Logging
import Storage

/// The values of `serve`'s and `mcp`'s options, whichever parser read them (`ServerOptions`
/// through swift-argument-parser, or `FastArguments`); the one place their rules live.
struct ServeArguments: Equatable {
    var localRoot: String?
    var cloudRoot: String?
    var icloudContainer: String?
    var configDir: String?
    var framing: FramingMode = .auto
    var maxMessageBytes: Int = 64 << 20
    var logLevel: Logger.Level = .info
    var logFile: String?
    var outputStallTimeout: Int = 60
    var idleReleaseAfter: Double = 1
    var exitGrace: Double = 10
    var enableDebugMethods = false

    func validate() throws {
        guard maxMessageBytes > 0 else { throw ValidationError("--max-message-bytes must be positive") }
        guard outputStallTimeout >= 0 else { throw ValidationError("--output-stall-timeout must not be negative") }
        guard idleReleaseAfter >= 0, idleReleaseAfter.isFinite else { throw ValidationError("--idle-release-after must be a non-negative number of seconds") }
        guard exitGrace >= 0, exitGrace <= 86_400 else { throw ValidationError("--exit-grace must be a number of seconds from 0 to 86400") }
    }

    func main(forceMCP: Bool = false, session: String? = nil) -> ServerMain {
        let cloud = cloudRoot ?? icloudContainer.map { ICloudContainer.documentsPath(identifier: $0) ?? "/nonexistent/icloud/\($0)" }
        var m = ServerMain(localRoot: localRoot, cloudRoot: cloud, configDir: configDir, framing: forceMCP ? .ndjson : framing,
                           maxMessageBytes: maxMessageBytes, logLevel: logLevel, logFile: logFile,
                           enableDebugMethods: enableDebugMethods)
        m.forceMCP = forceMCP
        m.outputStallTimeout = outputStallTimeout
        m.idleReleaseAfter = idleReleaseAfter
        m.exitGrace = exitGrace
        m.mcpSession = session
        return m
    }
}
