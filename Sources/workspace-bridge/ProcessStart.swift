#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BridgeServer
import JSON
import Logging

/// What a protocol process does first, whichever face it serves (`serve`, `mcp`, `acp`), once.
///
/// Guarantees: fd 1 carries protocol bytes only — the protocol is written to a private copy of
/// stdout (`protocolOut`, not inherited by children) and fd 1 points at stderr, so stray prints
/// from any library can never corrupt the stream; a write to a closed pipe is an error, not a
/// signal; jansson is ready for threads; logs go to stderr and to `--log-file` (opened for
/// appending, or a `StartupError`) at `--log-level`, and to the client through `sink` once a
/// connection is attached to it.
struct ProcessStart {
    /// Where the protocol's bytes are written.
    let protocolOut: Int32
    /// The log lines a client may receive (`BridgeLogHandler` forwards to it).
    let sink: ClientLogSink

    init(_ transport: TransportOptions) throws {
        let out = dup(1)
        guard out >= 0 else { throw ServerMain.StartupError("cannot duplicate stdout") }
        _ = fcntl(out, F_SETFD, FD_CLOEXEC)
        dup2(2, 1)
        signal(SIGPIPE, SIG_IGN)
        JSONCodec.prepareForThreads()

        var fileFD: Int32?
        if let logFile = transport.logFile {
            let fd = open(logFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw ServerMain.StartupError("cannot open --log-file \(logFile)") }
            fileFD = fd
        }
        let sink = ClientLogSink()
        let level = transport.logLevel
        let logFD = fileFD
        LoggingSystem.bootstrap { label in BridgeLogHandler(label: label, level: level, fileFD: logFD, sink: sink) }
        protocolOut = out
        self.sink = sink
    }
}
