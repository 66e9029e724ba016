import AgentSessions
import JSON
import JSONRPC

/// `session/getRetention`, `session/setRetention`, `session/prune`: the workspace's bounded
/// retention of sessions (issue 17). The policy is one per workspace (claim `retention`); a
/// prune may change every session, so it claims them all.
enum GetRetention: MethodDeclaration {
    static let method = "session/getRetention"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: NoParams) -> Schedule { .claims([.read("retention", "")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> RetentionPolicy {
        try SessionMethods.onStore(call) { try $0.retentionPolicy() }
    }
}

/// Saves the policy (crash-safely) and applies it at once: `{policy, pruned}`.
enum SetRetention: MethodDeclaration {
    static let method = "session/setRetention"
    static let reaches: Set<Capability> = [.workspace]
    /// The params are the policy itself; a limit left out (or `null`) is no limit. A limit that
    /// is not an integer at least its minimum is `-32602` naming it (checked in field order).
    struct Params: MethodParams {
        var policy: RetentionPolicy
        init(_ p: ParamReader) throws {
            func limit(_ key: String, minimum: Int64) throws -> Int64? {
                guard let v = p.value(key) else { return nil }
                guard let i = v.intValue, i >= minimum else {
                    throw RPCError.invalidParams(field: p.field(key), expected: "\(key) must be an integer >= \(minimum)", got: v.typeName)
                }
                return i
            }
            policy = RetentionPolicy(maxBytesPerSession: try limit("maxBytesPerSession", minimum: RetentionPolicy.minimumMaxBytesPerSession),
                                     keepCompactedOriginalsSeconds: try limit("keepCompactedOriginalsSeconds", minimum: 0),
                                     keepEndedSessions: try limit("keepEndedSessions", minimum: 0).map { Int($0) })
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write("retention", ""), .write("session", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        try SessionMethods.onStore(call) { store in
            let policy = try store.setRetentionPolicy(p.policy)
            return Result(policy: policy, pruned: try store.prune())
        }
    }

    struct Result: ObjectResult {
        var policy: RetentionPolicy
        var pruned: PruneReport
        static let fields: [ResultField<Self>] = [.field("policy", \.policy), .field("pruned", \.pruned)]
    }
}

enum PruneSessions: MethodDeclaration {
    static let method = "session/prune"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: NoParams) -> Schedule { .claims([.read("retention", ""), .write("session", "")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> PruneReport {
        try SessionMethods.onStore(call) { try $0.prune() }
    }
}

extension SessionMethods {
    /// Runs `body` on the workspace's session store, logging what the store noticed meanwhile.
    static func onStore<T>(_ call: Call, _ body: (SessionStore) throws -> T) throws -> T {
        let (store, _) = try call.services.stores()
        defer { call.services.agents.logWarnings(store) }
        return try body(store)
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
}
