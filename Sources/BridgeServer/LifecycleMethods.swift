import JSON
import JSONRPC

/// `initialize` (in `Initialize.swift`), `initialized`, `shutdown`, `exit`, `ping`, cancellation
/// and tracing.
///
/// Only what never touches the file system runs on the reading thread (`inline`, `prepare`):
/// `initialize` opens storage (a cloud root may be a hung mount) on the pool, as a barrier.
enum LifecycleMethods {
    static let requests: [any MethodDeclaration.Type] = [Initialize.self, Shutdown.self, Ping.self]
    static let notifications: [any MethodDeclaration.Type] = [
        Initialized.self, Exit.self, CancelRequest.self, WorkDoneProgressCancel.self, SetTrace.self,
    ]
}

/// Waits for the earlier requests at most the exit grace, then answers anyway (a request stuck
/// in a system call must not keep the client from exiting), naming what still runs.
enum Shutdown: MethodDeclaration {
    static let method = "shutdown"
    static let reaches: Set<Capability> = [.lifecycle]
    static func schedule(_ p: NoParams) -> Schedule { .unordered }
    /// The phase changes once the request is planned (so a refused `shutdown` changes nothing),
    /// on the reading thread, before the next message is routed.
    static let prepares = true
    static func prepare(_ p: NoParams, _ call: Call) throws { call.services.lifecycle.set(.shutDown) }
    static func handle(_ p: NoParams, _ call: Call) throws -> NullResult {
        guard let request = call.request else { return NullResult() }
        let stuck = request.serving.drain(before: request)
        if !stuck.isEmpty {
            call.logger.warning("shutdown: answering with \(stuck.count) earlier request(s) still in flight: \(stuck.map(\.description).joined(separator: "; "))")
        } else {
            call.services.agents.releaseAll()  // nothing writes any more: other devices may go on
        }
        return NullResult()
    }
}

/// `ping`, the same in the LSP-style face and MCP's (whose table lists it too).
package enum Ping: MethodDeclaration {
    package static let method = "ping"
    package static let reaches: Set<Capability> = []
    package static let inline = true
    package static func schedule(_ p: NoParams) -> Schedule { .unordered }
    package static func handle(_ p: NoParams, _ call: Call) throws -> EmptyResult { EmptyResult() }
}

enum Initialized: MethodDeclaration {
    static let method = "initialized"
    static let reaches: Set<Capability> = []
    static let inline = true
    /// Closes the handshake `initialize` opened and touches nothing shared.
    static func schedule(_ p: NoParams) -> Schedule { .free }
    static func handle(_ p: NoParams, _ call: Call) throws -> NullResult { NullResult() }
}

/// LSP's status, 0 after `shutdown` and 1 without; the process ends only once every request
/// received before `exit` is answered, at most `--exit-grace` (`Connection.stop`), as at end
/// of input. Accepted in every phase and on the MCP face too.
enum Exit: MethodDeclaration {
    static let method = "exit"
    static let reaches: Set<Capability> = [.lifecycle]
    static let inline = true
    static func schedule(_ p: NoParams) -> Schedule { .unordered }
    static func handle(_ p: NoParams, _ call: Call) throws -> NullResult {
        let clean = call.services.lifecycle.current == .shutDown
        try call.connection().stop(exitCode: clean ? 0 : 1)
        return NullResult()
    }
}

enum CancelRequest: MethodDeclaration {
    static let method = "$/cancelRequest"
    static let reaches: Set<Capability> = []
    static let inline = true
    struct Params: MethodParams {
        var id: RequestID?
        init(_ p: ParamReader) throws {
            id = p.value("id").flatMap(RequestID.init)
        }
    }
    static func schedule(_ p: Params) -> Schedule { .unordered }
    static func handle(_ p: Params, _ call: Call) throws -> NullResult {
        if let id = p.id { try call.connection().cancel(id: id) }
        return NullResult()
    }
}

enum WorkDoneProgressCancel: MethodDeclaration {
    static let method = "window/workDoneProgress/cancel"
    static let reaches: Set<Capability> = []
    static let inline = true
    struct Params: MethodParams {
        var token: JSON?
        init(_ p: ParamReader) throws { token = p.value("token") }
    }
    static func schedule(_ p: Params) -> Schedule { .unordered }
    static func handle(_ p: Params, _ call: Call) throws -> NullResult {
        if let token = p.token { try call.connection().cancel(progressToken: token) }
        return NullResult()
    }
}

enum SetTrace: MethodDeclaration {
    static let method = "$/setTrace"
    static let reaches: Set<Capability> = []
    static let inline = true
    struct Params: MethodParams {
        var trace: ClientLogSink.Trace
        init(_ p: ParamReader) throws {
            trace = try p.requiredChoice("value", as: ClientLogSink.Trace.self, expected: "one of \"off\", \"messages\", \"verbose\"")
        }
    }
    static func schedule(_ p: Params) -> Schedule { .unordered }
    static func handle(_ p: Params, _ call: Call) throws -> NullResult {
        call.services.logSink.setTrace(p.trace)
        try call.connection().setTrace(Connection.Trace(p.trace))
        return NullResult()
    }
}

extension Connection.Trace {
    init(_ t: ClientLogSink.Trace) {
        switch t {
        case .off: self = .off
        case .messages: self = .messages
        case .verbose: self = .verbose
        }
    }
}
