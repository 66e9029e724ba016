import AgentSessions
import JSON
import JSONRPC

/// `host/*` (the app's lifecycle and the device's conditions) and `queue/*` (work that waits for
/// the network).
enum HostMethods {
    static func register(_ methods: inout [Method]) {
        // Backgrounding touches every session: it waits for calls in flight on any of them.
        methods.append(Method("host/didEnterBackground", schedule: { _ in .claims([.write("session", "")]) }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let (store, _) = try server.agents.stores(for: try server.workspace())
            let sessions = store.backgroundAll()
            server.agents.logWarnings(store)
            return ["sessions": .array(sessions.map(\.json))]
        })
        methods.append(Method("host/willEnterForeground", schedule: { _ in .claims([.read("session", "")]) }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let (store, _) = try server.agents.stores(for: try server.workspace())
            return ["sessions": .array(store.backgrounded().map { s in
                ["session": s.session.json, "checkpoint": s.checkpoint ?? .null]
            })]
        })
        methods.append(Method("host/setConditions") { ctx in
            let server = try LifecycleMethods.server(ctx)
            let conditions: DeviceConditions
            do throws(SessionError) { conditions = try DeviceConditions(json: ctx.params ?? .object(JSONObject())) } catch {
                throw RPCError.invalidParams(field: "", expected: error.message, got: ctx.params?.typeName ?? "nothing")
            }
            let queue = try? server.agents.stores(for: try server.workspace()).1
            let policy = server.agents.setConditions(conditions, queue: queue)
            return ["policy": policy.json]
        })
        methods.append(Method("host/getConditions", schedule: { _ in .unordered }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let c = server.agents.currentConditions
            return ["conditions": c.json, "policy": server.agents.policy(for: c).json]
        })
        methods.append(queueMethod("queue/enqueue") { q, p in
            try q.enqueue(kind: try p.requiredString("kind"), payload: p["payload"] ?? .null,
                          idempotencyKey: try p.requiredString("idempotencyKey"),
                          requiresNetwork: try p.bool("requiresNetwork") ?? true).json
        })
        methods.append(queueMethod("queue/list") { q, _ in ["items": .array(try q.list().map(\.json))] })
        methods.append(queueMethod("queue/complete") { q, p in try q.complete(id: try p.requiredString("id"), result: p["result"]).json })
        methods.append(queueMethod("queue/fail") { q, p in
            try q.fail(id: try p.requiredString("id"), error: try p.required("error"), retry: try p.bool("retry") ?? false).json
        })
    }

    /// Queue calls are serialised among themselves (enqueue order is the queue's order).
    static func queueMethod(_ name: String, _ body: @escaping @Sendable (OfflineQueue, Params) throws -> JSON) -> Method {
        Method(name, schedule: { _ in .claims([.write("queue", "")]) }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let (_, queue) = try server.agents.stores(for: try server.workspace())
            return try body(queue, try ctx.paramsObject())
        }
    }
}
