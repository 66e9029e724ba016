#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC
import Logging
import Synchronization
import SystemSupport

/// Where log records go besides stderr: the client, as `window/logMessage`, when the
/// client asked for it with `initialize` `trace` or `$/setTrace`.
public final class ClientLogSink: Sendable {
    public enum Trace: String, Sendable, CaseIterable { case off, messages, verbose }

    private struct State { var connection: Connection?; var trace: Trace = .off; var mcpLevel: Logger.Level? }
    private let state = Mutex(State())

    public init() {}

    public func attach(_ connection: Connection) { state.withLock { $0.connection = connection } }
    public func setTrace(_ trace: Trace) { state.withLock { $0.trace = trace } }

    /// MCP `logging/setLevel`: records at or above the level go to the client as
    /// `notifications/message`.
    public func setMCPLevel(_ level: String) {
        let mapped: Logger.Level =
            switch level {
            case "debug": .debug
            case "info": .info
            case "notice": .notice
            case "warning": .warning
            case "error": .error
            default: .critical
            }
        state.withLock { $0.mcpLevel = mapped }
    }

    func forward(level: Logger.Level, message: String) {
        let mcp: Connection? = state.withLock { s in
            guard let min = s.mcpLevel, level >= min else { return nil }
            return s.connection
        }
        if let mcp {
            let name: String =
                switch level {
                case .trace, .debug: "debug"
                case .info: "info"
                case .notice: "notice"
                case .warning: "warning"
                case .error: "error"
                case .critical: "critical"
                }
            mcp.notify("notifications/message", ["level": .string(name), "logger": "workspace-bridge", "data": .string(message)])
            return
        }
        let target: Connection? = state.withLock { s in
            switch s.trace {
            case .off: return nil
            case .messages: return level >= .info ? s.connection : nil
            case .verbose: return s.connection
            }
        }
        guard let target else { return }
        target.notify("window/logMessage", ["type": .int(Self.messageType(level)), "message": .string(message)])
    }

    /// LSP MessageType: 1 error, 2 warning, 3 info, 4 log.
    static func messageType(_ level: Logger.Level) -> Int64 {
        switch level {
        case .critical, .error: 1
        case .warning: 2
        case .notice, .info: 3
        case .debug, .trace: 4
        }
    }
}

/// A swift-log handler writing one line per record to stderr (and optionally a log file),
/// and forwarding to the client through a `ClientLogSink`. Never writes to stdout.
public struct BridgeLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let fileFD: Int32?
    private let sink: ClientLogSink

    public init(label: String, level: Logger.Level, fileFD: Int32?, sink: ClientLogSink) {
        self.label = label
        self.logLevel = level
        self.fileFD = fileFD
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text = "\(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if !merged.isEmpty {
            text += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        let line = "[\(label)] \(event.level): \(text)\n"
        Self.writeAll(2, line)
        if let fileFD { Self.writeAll(fileFD, line) }
        sink.forward(level: event.level, message: text)
    }

    private static func writeAll(_ fd: Int32, _ s: String) {
        var s = s
        s.withUTF8 { _ = FileIO.writeAll(fd, UnsafeRawBufferPointer($0)) }
    }
}
