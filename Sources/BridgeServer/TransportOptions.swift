import JSONRPC
import Logging

/// How the process talks to its client: the framing on stdin/stdout, the message size limit,
/// the timeouts, and where its log goes. Declared once, here, with their defaults: the command
/// line's options (`workspace-bridge`'s `ServerOptions`) take their defaults from a
/// `TransportOptions()`, and the connection's options are made from it by `connectionOptions`.
public struct TransportOptions: Sendable, Equatable {
    /// How messages are framed on stdin/stdout (`--framing`; always NDJSON for `mcp`).
    public var framing: FramingMode = .auto
    /// The largest message accepted (`--max-message-bytes`); larger ones are answered with an
    /// error and skipped.
    public var maxMessageBytes: Int = 64 << 20
    /// How long one write to a client that reads nothing may block before the process ends
    /// (`--output-stall-timeout`); nil: for ever.
    public var outputStallTimeout: Duration? = .seconds(60)
    /// How long the connection must be idle before memory is given back (`--idle-release-after`);
    /// nil: never.
    public var idleReleaseAfter: Duration? = .seconds(1)
    /// How long `exit`, end of input, a termination signal and `shutdown` wait for requests
    /// still running before giving up on them and naming them on stderr (`--exit-grace`).
    public var exitGrace: Duration = .seconds(10)
    /// The least severe level logged (`--log-level`).
    public var logLevel: Logger.Level = .info
    /// A file logs are appended to besides stderr (`--log-file`).
    public var logFile: String?

    public init() {}

    /// The connection's options: these, with what the process does once the connection is idle.
    public func connectionOptions(onIdle: @escaping @Sendable () -> Void) -> Connection.Options {
        Connection.Options(framing: framing, maxMessageBytes: maxMessageBytes, outputStallTimeout: outputStallTimeout,
                           idleAfter: idleReleaseAfter, onIdle: onIdle, exitGrace: exitGrace)
    }
}
