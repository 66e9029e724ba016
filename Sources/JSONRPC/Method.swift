import JSON

/// One method the server offers: how to schedule it and how to run it.
///
/// Handlers are synchronous and may block (file I/O); they run on the connection's worker
/// pool, or on the reader thread itself when `inline` is set and nothing earlier conflicts.
/// Inline handlers must be quick and must not block: they are what makes trivial requests
/// answer in microseconds.
public struct Method: Sendable {
    public typealias Handler = @Sendable (RequestContext) throws -> JSON
    public typealias Scheduler = @Sendable (JSON?) throws -> Schedule

    public var name: String
    public var inline: Bool
    /// Params must be an object (or absent); positional (array) params are refused with `-32602`.
    public var namedParams: Bool
    public var schedule: Scheduler
    public var handler: Handler

    public init(_ name: String, inline: Bool = false, namedParams: Bool = true,
                schedule: @escaping Scheduler = { _ in .free }, handler: @escaping Handler) {
        self.name = name
        self.inline = inline
        self.namedParams = namedParams
        self.schedule = schedule
        self.handler = handler
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
