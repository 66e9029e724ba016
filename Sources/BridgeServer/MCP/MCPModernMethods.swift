import JSON
import JSONRPC

/// What the modern era serves beyond (or instead of) the 2025 handlers: `server/discover`,
/// `subscriptions/listen`, the tasks extension's methods, `tools/call` that may answer with a
/// task, and `tools/list` saying which tools may. Each is wrapped by `MCPModern.serve` (the
/// envelope, `resultType`, cache hints, the server's identity, per-request logging).
enum MCPModernMethods {
    static let listen = "subscriptions/listen"

    struct Own: Sendable {
        var inline = false
        var schedule: Method.Scheduler = { _ in .free }
        var handler: MCPModern.ModernHandler
    }

    /// The modern era's own methods (no 2025 counterpart; without the envelope they are `-32602`).
    static let own: [String: Own] = [
        MCPModern.discover: Own(inline: true, schedule: { _ in .unordered }, handler: { _, _, _ in .null }),  // built by serve
        listen: Own(handler: MCPSubscriptions.listen),
        // Task bookkeeping never waits for file work: it answers while a task (or anything) runs.
        "tasks/get": Own(schedule: { _ in .unordered }, handler: MCPTasks.get),
        "tasks/cancel": Own(schedule: { _ in .unordered }, handler: MCPTasks.cancel),
        "tasks/update": Own(schedule: { _ in .unordered }, handler: MCPTasks.update),
    ]

    /// A request for a method no table has, where the era is not settled: a modern request (its
    /// `_meta`) is `-32601`, never the retired "not initialized"; a 2025 one keeps the 2025 answer.
    static func unknown(_ name: String) -> Method {
        Method(name, inline: true, schedule: { _ in .unordered }) { ctx in
            if try MCPEnvelope.parse(ctx.params) != nil { throw RPCError.methodNotFound(name) }
            let server = try LifecycleMethods.server(ctx)
            guard server.lifecycle.current == .running, server.lifecycle.isMCP else { throw RPCError.serverNotInitialized }
            throw RPCError.methodNotFound(name)
        }
    }

    /// The modern handler of a 2025 method, when it differs.
    static func overriding(_ name: String, legacy: Method) -> MCPModern.ModernHandler? {
        switch name {
        case "tools/call":
            return { ctx, envelope, server in try MCPTasks.call(ctx, envelope, server, legacy: legacy) }
        case "tools/list":
            return { ctx, _, _ in
                _ = try ctx.paramsObject()
                return ["tools": toolList]
            }
        default:
            return nil
        }
    }

    /// The tool table as the modern era lists it: the same tools in the same order, each that may
    /// run as a task saying so in its `_meta`.
    static let toolList: JSON = .array(ToolTable.all.map { tool in
        guard var o = tool.mcpJSON.objectValue, let meta = MCPTasks.toolMeta(tool.name) else { return tool.mcpJSON }
        o["_meta"] = meta
        return .object(o)
    })
}
