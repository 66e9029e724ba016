import BridgeServer
import JSON
import JSONRPC

/// An MCP request, declared once for both eras (see `MCPModern`): a `MethodDeclaration` whose
/// handler serves the 2025 handshake era, plus what differs in the 2026-07-28 era. Its params are
/// decoded once, when the request arrives, with the request's envelope (`MCPEnvelope`); the
/// errors either raises are answered in the order the era rules check them (envelope, then the
/// handshake or the extension, then the params), by `MCPModern.serve`.
protocol MCPRequestDeclaration: MethodDeclaration {
    /// Whether the 2025 era has it (false: a request without the modern envelope is `-32602`).
    static var servedIn2025: Bool { get }
    /// An extension the client must declare in the request's `_meta` (`-32021` otherwise).
    static var requiredExtension: String? { get }
    /// The modern era's handling, when it differs from `handle`.
    static func handleModern(_ p: Params, _ call: Call, _ envelope: MCPEnvelope) throws -> Result
}

extension MCPRequestDeclaration {
    static var servedIn2025: Bool { true }
    static var requiredExtension: String? { nil }
    static func handleModern(_ p: Params, _ call: Call, _ envelope: MCPEnvelope) throws -> Result { try handle(p, call) }

    /// The connection's `Method` dispatching per message between the eras. The planner decodes
    /// the envelope and the params once; a decoding error is kept for the handler, which answers
    /// it where the era rules say (a 2025 request before the handshake is "not initialized",
    /// whatever its params), and a request whose params do not decode claims nothing.
    static func eraMethod(_ services: Services, _ state: MCPConnectionState) -> Method {
        let plan: Method.Planner = { json in
            let envelope = Swift.Result { () throws(RPCError) -> MCPEnvelope? in try MCPEnvelope.parse(json) }
            let params = Swift.Result { () throws -> Params in try Self.admittedParams(json, grant: services.grant) }
            let schedule = (try? params.get()).flatMap { try? Self.schedule($0) } ?? .free
            return Plan(schedule: schedule, decoded: EraParams(envelope: envelope, params: params),
                        logMetadata: MCPTraceContext.logMetadata(json))
        }
        return Method(method, inline: inline, plan: plan) { ctx in
            guard let decoded = ctx.decoded as? EraParams<Params> else { fatalError("\(method): the planner's params did not reach the handler") }
            return try MCPModern.serve(Self.self, decoded, Call(services: services, request: ctx, face: state))
        }
    }
}

/// What the planner of an MCP request decoded: its envelope and its params, or why not.
struct EraParams<P: MethodParams>: Sendable {
    let envelope: Swift.Result<MCPEnvelope?, RPCError>
    let params: Swift.Result<P, any Error>
}
