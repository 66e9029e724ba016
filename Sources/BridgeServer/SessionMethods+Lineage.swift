import AgentSessions
import JSON
import JSONRPC

/// `session/fork`, `session/compact`, `session/uncompact`: a session's lineage and its
/// compactions (issue 17).

/// A new session holding the history up to `atMessageId` (default: all); reads the parent only.
enum ForkSession: SessionMethod {
    static let method = "session/fork"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = SessionObject
    static let access = Claim.Access.read
    struct Params: SessionParams {
        var id: String
        var atMessageId: String?
        var title: String?
        var metadata: JSONObject?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            atMessageId = try p.string("atMessageId")
            title = try p.string("title")
            metadata = try p.object("metadata")?.object
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> SessionObject {
        SessionObject(session: try store.fork(id: p.id, atMessageId: p.atMessageId, title: p.title, metadata: p.metadata))
    }
}

/// Records a compaction of a run of messages, replaced by the client model's `summary`.
enum CompactSession: SessionMethod {
    static let method = "session/compact"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = Compaction
    struct Params: SessionParams {
        var id: String
        var throughMessageId: String
        var fromMessageId: String?
        var summary: JSON
        var role: MessageRole
        var by: String
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            throughMessageId = try p.requiredString("throughMessageId")
            fromMessageId = try p.string("fromMessageId")
            summary = try SessionMethods.decodeRequired(p, "summary", expected: "the summary's content (a string or content parts)",
                                                        placeholder: .null) { $0 }
            role = try p.choice("role", MessageRole.allCases.map(\.rawValue)).flatMap(MessageRole.init(rawValue:)) ?? .system
            by = try p.string("by") ?? "client"
            guard p.isDescribing || !by.isEmpty else {
                throw RPCError.invalidParams(field: p.field("by"), expected: "a non-empty author", got: "\"\"")
            }
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Compaction {
        try store.compact(id: p.id, throughMessageId: p.throughMessageId, fromMessageId: p.fromMessageId, summary: p.summary,
                          role: p.role, by: p.by)
    }
}

/// Restores the originals a compaction replaced.
enum UncompactSession: SessionMethod {
    static let method = "session/uncompact"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = Compaction
    struct Params: SessionParams {
        var id: String
        var compactionId: String
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            compactionId = try p.requiredString("compactionId")
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Compaction {
        try store.uncompact(id: p.id, compactionId: p.compactionId)
    }
}
