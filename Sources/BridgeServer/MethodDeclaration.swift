import JSON
import JSONRPC
import Logging

/// The params reader (`JSONRPC.Params`), named apart from a declaration's own `Params` type.
package typealias ParamReader = JSONRPC.Params

/// A method's params, decoded once from the request's JSON (the planner decodes them; the
/// schedule and the handler both read the decoded value). Decoding errors are `-32602` naming
/// the field (see `ParamReader`).
package protocol MethodParams: Sendable {
    init(_ p: ParamReader) throws
}

/// A method without params (any object, or none, is accepted).
package struct NoParams: MethodParams {
    package init(_ p: ParamReader) {}
}

/// What a handler is given: the services it may use, its request (cancellation, progress,
/// the connection) and, for a face's own methods, that face's per-connection state (`Face`).
/// A tool run in unit tests has no request.
package struct Call: Sendable {
    package let services: Services
    package let request: RequestContext?
    /// The per-connection state of the face whose table holds the method (nil: the LSP-style core).
    package var face: (any Sendable)? = nil

    package init(services: Services, request: RequestContext?, face: (any Sendable)? = nil) {
        self.services = services
        self.request = request
        self.face = face
    }

    package var isCancelled: Bool { request?.isCancelled ?? false }
    var progress: ProgressReporter? { request?.progress }
    package var logger: Logger { request?.logger ?? services.logger }

    func checkCancellation() throws(RPCError) { try request?.checkCancellation() }

    /// The connection the request came on.
    package func connection() throws(RPCError) -> Connection {
        guard let c = request?.serving else { throw .internalError("\(request?.method ?? "this call") has no connection") }
        return c
    }
}

/// The shape of a method's result, derived from its `Result` type: what the schema agreement
/// check compares with the schema's result.
package enum ResultShape: Sendable {
    /// An object with these fields, in the order they are sent.
    case object([ResultFieldShape])
    case null
    case array
    /// Not an object the check can compare (a value chosen by the client, e.g. `debug/echo`'s).
    case any
    /// A hand-built `JSON` answer that names no typed `Result` (the agreement check reports it).
    case untyped
}

/// One method, declared once, in the file of its area: its name, its typed params, its schedule
/// (what it claims, decided from the decoded params), its handler and its typed `Result`, whose
/// one encoding is what the client receives and whose shape the schema agreement check compares.
/// `MethodTables` lists the declarations; `method(_:)` turns one into the connection's `Method`.
package protocol MethodDeclaration: Sendable {
    associatedtype Params: MethodParams = NoParams
    associatedtype Result: MethodResult
    static var method: String { get }
    /// What the method can reach beyond the connection (**required**, no default, as `schedule`
    /// is: a new method states it). A call is refused `CapabilityDenied` when this server's grant
    /// lacks one of them, checked before its params are decoded (`admittedParams`).
    static var reaches: Set<Capability> { get }
    /// The method (or tool) a call forwards to, decoded from its params, and what that one
    /// reaches: a wrapper (`workspace/executeCommand`, a tool call) states it, so that the
    /// wrapper never reaches what the forwarded method may not. Default: none.
    static func forwarded(_ p: Params) -> Forward?
    /// Params the schema lists that the decoder deliberately does not read (the agreement check
    /// counts them as read).
    static var unreadParams: [String] { get }
    /// Runs on the reading thread when it can start at once (see `JSONRPC.Method`): only for
    /// quick handlers that never touch the file system.
    static var inline: Bool { get }
    static func schedule(_ p: Params) throws -> Schedule
    /// Whether `prepare` runs on the reading thread before the request is admitted.
    static var prepares: Bool { get }
    static func prepare(_ p: Params, _ call: Call) throws
    static func handle(_ p: Params, _ call: Call) throws -> Result
}

extension MethodDeclaration {
    package static var inline: Bool { false }
    package static var unreadParams: [String] { [] }
    package static var prepares: Bool { false }
    package static func prepare(_ p: Params, _ call: Call) throws {}
    package static func forwarded(_ p: Params) -> Forward? { nil }

    /// The one gate every call passes, in every face's planner: the method's own capabilities,
    /// then its params decoded, then what the call forwards to. A batch's members, a command
    /// and a tool call are each planned here, so none reaches more than its method may.
    package static func admittedParams(_ json: JSON?, grant: Grant) throws -> Params {
        try grant.admit(reaches, method: method)
        let p = try Params(try ParamReader(json))
        if let f = forwarded(p) { try grant.admit(f.reaches, method: f.method, through: method) }
        return p
    }

    /// The shape of the result, from its type.
    package static var resultShape: ResultShape { Result.shape }

    /// The connection's `Method` for this declaration, its handlers given `services` (and `face`,
    /// the state of the face whose table holds it).
    package static func method(_ services: Services, face: (any Sendable)? = nil) -> Method {
        let plan: Method.Planner = { json in
            let p = try admittedParams(json, grant: services.grant)
            return Plan(schedule: try schedule(p), decoded: p)
        }
        var prepare: Method.Preparer?
        if prepares {
            prepare = { @Sendable ctx in try Self.prepare(decoded(ctx), Call(services: services, request: ctx, face: face)) }
        }
        return Method(method, inline: inline, plan: plan, prepare: prepare) { ctx in
            try handle(decoded(ctx), Call(services: services, request: ctx, face: face)).json
        }
    }

    private static func decoded(_ ctx: RequestContext) -> Params {
        guard let p = ctx.decoded as? Params else { fatalError("\(method): the planner's params did not reach the handler") }
        return p
    }

    /// The params fields the decoder reads (see `ParamReader(describing:)`).
    package static func paramFields() throws -> [ParamField] {
        let recorder = FieldRecorder()
        _ = try Params(ParamReader(describing: recorder))
        return recorder.recorded
    }
}
