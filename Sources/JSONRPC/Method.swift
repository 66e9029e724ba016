import JSON
import Logging

/// One method the server offers: how to schedule it and how to run it.
///
/// Handlers are synchronous and may block (file I/O); they run on the connection's worker
/// pool, or on the reading thread itself when `inline` is set and nothing earlier conflicts.
/// Inline handlers must be quick and must never touch the file system (not even a `stat`: a
/// hung mount would stop the connection reading): they are the control messages (`ping`,
/// cancellation, `exit`), which must be acted on whatever the other handlers are doing.
public struct Method: Sendable {
    public typealias Handler = @Sendable (RequestContext) throws -> JSON
    public typealias Scheduler = @Sendable (JSON?) throws -> Schedule
    /// Decodes the params once and says how to schedule the request; the decoded value reaches
    /// the handler as `RequestContext.decoded`, so nothing is parsed twice.
    public typealias Planner = @Sendable (JSON?) throws -> Plan
    public typealias Preparer = @Sendable (RequestContext) throws -> Void

    public var name: String
    public var inline: Bool
    /// Params must be an object (or absent); positional (array) params are refused with `-32602`.
    public var namedParams: Bool
    public var plan: Planner
    /// Runs on the reading thread before the request is admitted, so that the routing of the
    /// messages after it can depend on it (`initialize` decides the connection's conventions
    /// there); an error it throws answers the request. Same rules as an inline handler.
    public var prepare: Preparer?
    public var handler: Handler

    public init(_ name: String, inline: Bool = false, namedParams: Bool = true,
                schedule: @escaping Scheduler = { _ in .free }, prepare: Preparer? = nil,
                handler: @escaping Handler) {
        self.name = name
        self.inline = inline
        self.namedParams = namedParams
        self.plan = { params in Plan(schedule: try schedule(params)) }
        self.prepare = prepare
        self.handler = handler
    }

    public init(_ name: String, inline: Bool = false, namedParams: Bool = true, plan: @escaping Planner,
                prepare: Preparer? = nil, handler: @escaping Handler) {
        self.name = name
        self.inline = inline
        self.namedParams = namedParams
        self.plan = plan
        self.prepare = prepare
        self.handler = handler
    }
}

/// A request's params, decoded, its schedule (see `Method.Planner`), and what every log line
/// written while serving it carries.
public struct Plan: Sendable {
    public var schedule: Schedule
    public var decoded: (any Sendable)?
    /// Metadata the request's logger (`RequestContext.logger`) carries for the whole request,
    /// its detached work included: e.g. the trace context a protocol layered on JSON-RPC found in
    /// the params. Empty: the connection's logger as it is.
    public var logMetadata: Logger.Metadata

    public init(schedule: Schedule, decoded: (any Sendable)? = nil, logMetadata: Logger.Metadata = [:]) {
        self.schedule = schedule
        self.decoded = decoded
        self.logMetadata = logMetadata
    }
}

/// What the connection should do with an incoming method call.
public enum Routing: Sendable {
    case handle(Method)
    /// Answer a request with this error; a notification is dropped.
    case reject(RPCError)
    /// Drop silently (notifications only; a request would get an error instead).
    case ignore
}

/// Decides, per message, which method handles it; owns lifecycle rules and error mapping.
/// Called from the reader thread, in arrival order.
public protocol Router: Sendable {
    func route(method: String, isRequest: Bool) -> Routing
    /// Maps any error a handler throws to its protocol form (the one place where typed
    /// domain errors become JSON-RPC errors).
    func mapError(_ error: any Error) -> RPCError
}
