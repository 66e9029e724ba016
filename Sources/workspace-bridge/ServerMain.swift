#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BridgeServer
import MCPFace
import CWorkspaceShims
import JSON
import JSONRPC
import Logging
import SessionHub
import SystemSupport
import Workspace

/// Starts the server process from its configuration: protects stdout, sets up logging, serves
/// stdin/stdout until `exit`, end of input or a termination signal (`SignalStop`), exits.
enum ServerMain {
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

    static func run(_ configuration: ServerConfiguration) throws -> Never {
        // Before any thread exists, so that every thread has them blocked (see `SignalStop`).
        let signals = SignalStop.block()
        if let hub = configuration.hub?.replica as? Hub {
            do { try hub.start() } catch { throw StartupError("cannot start the hub's drainer: \(error)") }
        }
        let start = try ProcessStart(configuration.transport)
        let protocolOut = start.protocolOut
        let sink = start.sink
        let logger = Logger(label: "workspace-bridge")

        let server = BridgeServer(configuration: configuration, logSink: sink, logger: logger, faces: [MCPFace.self])
        let connection = Connection(
            input: 0, output: protocolOut,
            options: configuration.transport.connectionOptions(onIdle: { releaseIdleMemory(logger) }),
            router: server, logger: logger)
        sink.attach(connection)
        do {
            try SignalStop.start(signals, connection: connection, grace: configuration.transport.exitGrace)
        } catch {
            throw StartupError("cannot take termination signals: \(error)")
        }
        let code = connection.run()
        connection.output.flushNow()
        server.connectionEnded(exitCode: code)
        // A save abandoned after the exit grace leaves no temp file, and none starts from now on.
        // (Said on stderr directly, as the stuck report is: the client may not be reading.)
        if !LiveTempFiles.removeAll() {
            _ = FileIO.writeAll(2, Array("workspace-bridge: a temp file of an abandoned save could not be removed in time; the next start removes it\n".utf8))
        }
        // Nothing more is written, and no write is under way: stdout ends on a whole message.
        connection.output.close()
        exit(code)
    }

    /// Gives memory back once the connection is idle (`--idle-release-after`): the trick lives
    /// in `wb_release_idle_memory` (CWorkspaceShims/idle_memory.c; Tests/e2e/test_idle_memory.py).
    /// Runs on the reading thread with no request in flight.
    private static func releaseIdleMemory(_ logger: Logger) {
        let bytes = wb_release_idle_memory()
        if bytes >= 0 {
            logger.debug("idle: released the mappings of \(bytes >> 10) KiB of code and trimmed the heap")
        } else {
            logger.debug("idle: memory not released (errno \(errno))")
        }
    }
}
