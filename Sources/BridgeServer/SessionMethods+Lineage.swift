import AgentSessions
import JSON
import JSONRPC

/// `session/fork`, `session/compact`, `session/uncompact`: a session's lineage and its
/// compactions (issue 17). Each method is a typed params decoder, the claims drawn from it, and a
/// handler taking the session store and the typed params.
extension SessionMethods {
    struct ForkParams { var id: String; var atMessageId: String?; var title: String? }

    static func forkParams(_ p: Params) throws -> ForkParams {
        ForkParams(id: try p.requiredString("id"), atMessageId: try p.string("atMessageId"), title: try p.string("title"))
    }

    /// Reads the parent only; the fork is a new session of its own.
    static func fork(_ store: SessionStore, _ p: ForkParams) throws -> JSON {
        try store.fork(id: p.id, atMessageId: p.atMessageId, title: p.title).json
    }

    struct CompactParams {
        var id: String; var throughMessageId: String; var fromMessageId: String?
        var summary: JSON; var role: MessageRole; var by: String
    }

    static func compactParams(_ p: Params) throws -> CompactParams {
        guard let summary = p["summary"], !summary.isNull else {
            throw RPCError.invalidParams(field: p.field("summary"), expected: "the summary's content (a string or content parts)",
                                         got: p["summary"]?.typeName ?? "nothing")
        }
        let role = try p.choice("role", MessageRole.allCases.map(\.rawValue)).flatMap(MessageRole.init(rawValue:)) ?? .system
        let by = try p.string("by") ?? "client"
        guard !by.isEmpty else { throw RPCError.invalidParams(field: p.field("by"), expected: "a non-empty author", got: "\"\"") }
        return CompactParams(id: try p.requiredString("id"), throughMessageId: try p.requiredString("throughMessageId"),
                             fromMessageId: try p.string("fromMessageId"), summary: summary, role: role, by: by)
    }

    static func compact(_ store: SessionStore, _ p: CompactParams) throws -> JSON {
        try store.compact(id: p.id, throughMessageId: p.throughMessageId, fromMessageId: p.fromMessageId, summary: p.summary,
                          role: p.role, by: p.by).json
    }

    struct UncompactParams { var id: String; var compactionId: String }

    static func uncompactParams(_ p: Params) throws -> UncompactParams {
        UncompactParams(id: try p.requiredString("id"), compactionId: try p.requiredString("compactionId"))
    }

    static func uncompact(_ store: SessionStore, _ p: UncompactParams) throws -> JSON {
        try store.uncompact(id: p.id, compactionId: p.compactionId).json
    }

    static func registerLineage(_ methods: inout [Method]) {
        methods.append(typed("session/fork", access: .read, forkParams, id: \.id, fork))
        methods.append(typed("session/compact", compactParams, id: \.id, compact))
        methods.append(typed("session/uncompact", uncompactParams, id: \.id, uncompact))
    }

    /// A method on one session with typed params: `decode` gives the scheduler the session to claim
    /// (`id(params)`) and the handler its params (today's `Method` decodes in both places; the new
    /// method layer decodes once); the handler gets the store and the typed params.
    static func typed<P>(_ name: String, access: Claim.Access = .write, _ decode: @escaping @Sendable (Params) throws -> P,
                         id: @escaping @Sendable (P) -> String,
                         _ handler: @escaping @Sendable (SessionStore, P) throws -> JSON) -> Method {
        Method(name, schedule: { params in
            .claims([Claim("session", path: id(try decode(try Params(params))), access: access)])
        }) { ctx in
            let typedParams = try decode(try ctx.paramsObject())
            let server = try LifecycleMethods.server(ctx)
            let (store, _) = try server.agents.stores(for: try server.workspace())
            defer { server.agents.logWarnings(store) }
            return try handler(store, typedParams)
        }
    }
}
