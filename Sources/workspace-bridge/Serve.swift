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

extension FramingMode: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the protocol on stdin/stdout (the default).")

    @Option(help: "The local workspace root.")
    var localRoot: String?

    @Option(help: "The cloud workspace root: a folder kept in sync by iCloud Drive, Syncthing, Nextcloud, Dropbox, Unison or rclone.")
    var cloudRoot: String?

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
        // fd 1 is for protocol bytes only: keep a private copy for the protocol and point fd 1
        // at stderr, so stray prints from any library can never corrupt the stream.
        let protocolOut = dup(1)
        guard protocolOut >= 0 else { throw ValidationError("cannot duplicate stdout") }
        _ = fcntl(protocolOut, F_SETFD, FD_CLOEXEC)
        dup2(2, 1)
        signal(SIGPIPE, SIG_IGN)
        JSONCodec.prepareForThreads()

        var fileFD: Int32?
        if let logFile {
            let fd = open(logFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw ValidationError("cannot open --log-file \(logFile)") }
            fileFD = fd
        }
        let sink = ClientLogSink()
        let level = logLevel
        let logFD = fileFD
        LoggingSystem.bootstrap { label in BridgeLogHandler(label: label, level: level, fileFD: logFD, sink: sink) }
        let logger = Logger(label: "workspace-bridge")

        let server = BridgeServer(
            configuration: ServerConfiguration(localRoot: localRoot, cloudRoot: cloudRoot, maxMessageBytes: maxMessageBytes,
                                               enableDebugMethods: enableDebugMethods),
            logSink: sink, logger: logger)
        let connection = Connection(
            input: 0, output: protocolOut,
            options: Connection.Options(framing: framing, maxMessageBytes: maxMessageBytes),
            router: server, logger: logger)
        sink.attach(connection)
        let code = connection.run()
        connection.output.flushNow()
        Glibc.exit(code)
    }
}
