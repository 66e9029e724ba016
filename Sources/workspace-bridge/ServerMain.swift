#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BridgeServer
import JSON
import JSONRPC
import Logging

/// Starts the server process: protects stdout, sets up logging, serves stdin/stdout, exits.
struct ServerMain {
    var localRoot: String?
    var cloudRoot: String?
    var configDir: String?
    var framing: FramingMode
    var maxMessageBytes: Int
    var logLevel: Logger.Level
    var logFile: String?
    var enableDebugMethods: Bool
    var forceMCP = false
    var mcpSession: String?
    /// Seconds one write to a client that reads nothing may block before the process ends; 0: never.
    var outputStallTimeout = 60
    /// Seconds of idleness after which memory is given back (`IdleMemory`); 0: never.
    var idleReleaseAfter: Double = 1
    /// Seconds end of input and `shutdown` wait for requests in flight.
    var exitGrace: Double = 10

    struct StartupError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// The process environment as a dictionary.
    static func environment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return env
    }

    func run() throws -> Never {
        // fd 1 is for protocol bytes only: keep a private copy for the protocol and point fd 1
        // at stderr, so stray prints from any library can never corrupt the stream.
        let protocolOut = dup(1)
        guard protocolOut >= 0 else { throw StartupError("cannot duplicate stdout") }
        _ = fcntl(protocolOut, F_SETFD, FD_CLOEXEC)
        dup2(2, 1)
        signal(SIGPIPE, SIG_IGN)
        JSONCodec.prepareForThreads()

        var fileFD: Int32?
        if let logFile {
            let fd = open(logFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw StartupError("cannot open --log-file \(logFile)") }
            fileFD = fd
        }
        let sink = ClientLogSink()
        let level = logLevel
        let logFD = fileFD
        LoggingSystem.bootstrap { label in BridgeLogHandler(label: label, level: level, fileFD: logFD, sink: sink) }
        let logger = Logger(label: "workspace-bridge")

        let server = BridgeServer(
            configuration: {
                var c = ServerConfiguration(localRoot: localRoot, cloudRoot: cloudRoot, maxMessageBytes: maxMessageBytes,
                                            enableDebugMethods: enableDebugMethods, environment: Self.environment())
                c.configDirectory = configDir
                c.forceMCP = forceMCP
                c.mcpSession = mcpSession
                return c
            }(),
            logSink: sink, logger: logger)
        let connection = Connection(
            input: 0, output: protocolOut,
            options: Connection.Options(framing: framing, maxMessageBytes: maxMessageBytes,
                                        outputStallTimeout: outputStallTimeout > 0 ? .seconds(outputStallTimeout) : nil,
                                        idleAfter: idleReleaseAfter > 0 ? .milliseconds(Int64(idleReleaseAfter * 1000)) : nil,
                                        onIdle: { IdleMemory.release(logger: logger) },
                                        exitGrace: .milliseconds(Int64(exitGrace * 1000))),
            router: server, logger: logger)
        sink.attach(connection)
        let code = connection.run()
        connection.output.flushNow()
        exit(code)
    }
}
