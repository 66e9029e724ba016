import AgentSessions
import JSON
import JSONRPC

/// `session/getRetention`, `session/setRetention`, `session/prune`: the workspace's bounded
/// retention of sessions (issue 17). The policy is one per workspace (claim `retention`); a
/// prune may change every session, so it claims them all.
extension SessionMethods {
    struct SetRetentionParams { var policy: RetentionPolicy }

    /// The params are the policy itself; a limit left out (or `null`) is no limit.
    static func setRetentionParams(_ p: Params) throws -> SetRetentionParams {
        var o = JSONObject()
        for key in ["maxBytesPerSession", "keepCompactedOriginalsSeconds", "keepEndedSessions"] {
            if let v = p[key] { o[key] = v }
        }
        do throws(SessionError) { return SetRetentionParams(policy: try RetentionPolicy(json: .object(o))) } catch {
            let key = ["maxBytesPerSession", "keepCompactedOriginalsSeconds", "keepEndedSessions"].first {
                error.message.hasPrefix($0)
            } ?? ""
            throw RPCError.invalidParams(field: p.field(key), expected: error.message, got: p[key]?.typeName ?? "nothing")
        }
    }

    static func getRetention(_ store: SessionStore) throws -> JSON {
        try store.retentionPolicy().json
    }

    /// Saves the policy (crash-safely) and applies it at once: `{policy, pruned}`.
    static func setRetention(_ store: SessionStore, _ p: SetRetentionParams) throws -> JSON {
        let policy = try store.setRetentionPolicy(p.policy)
        return ["policy": policy.json, "pruned": try store.prune().json]
    }

    static func prune(_ store: SessionStore) throws -> JSON {
        try store.prune().json
    }

    /// `sessions` with what each holds on disk (`session/list {withBytesOnDisk: true}`); a session
    /// deleted meanwhile keeps none.
    static func withBytesOnDisk(_ store: SessionStore, _ sessions: [Session]) -> [Session] {
        sessions.map { s in
            var s = s
            s.bytesOnDisk = try? store.bytesOnDisk(id: s.id)
            return s
        }
    }

    static func registerRetention(_ methods: inout [Method]) {
        methods.append(storeMethod("session/getRetention", [.read("retention", "")]) { store, _ in try getRetention(store) })
        methods.append(storeMethod("session/setRetention", [.write("retention", ""), .write("session", "")]) { store, params in
            try setRetention(store, try setRetentionParams(params))
        })
        methods.append(storeMethod("session/prune", [.read("retention", ""), .write("session", "")]) { store, _ in try prune(store) })
    }

    /// A method on the workspace's session store as a whole, with fixed claims.
    static func storeMethod(_ name: String, _ claims: [Claim],
                            _ handler: @escaping @Sendable (SessionStore, Params) throws -> JSON) -> Method {
        Method(name, schedule: { _ in .claims(claims) }) { ctx in
            let params = try ctx.paramsObject()
            let server = try LifecycleMethods.server(ctx)
            let (store, _) = try server.agents.stores(for: try server.workspace())
            defer { server.agents.logWarnings(store) }
            return try handler(store, params)
        }
    }
}
