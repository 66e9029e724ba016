import AgentSessions
import JSON
import JSONRPC
import SystemSupport
import Workspace

/// `session/*` and `agent/listTools`: durable agent sessions driven by the front end, which
/// makes the model calls; every acknowledged step is on disk before the answer.
package enum SessionMethods {
    static let all: [any MethodDeclaration.Type] = [
        ListTools.self, CreateSession.self, ListSessions.self, GetSession.self, SessionMessages.self, DeleteSession.self,
        TransitionSession.self, AppendMessages.self, RecordUsage.self, CheckpointSession.self, ResumeSession.self,
        CallTool.self, ForkSession.self, CompactSession.self, UncompactSession.self, GetRetention.self, SetRetention.self,
        PruneSessions.self, ExportSession.self, ImportSession.self, SetApprovalPolicy.self, ApproveToolCall.self, ListDeferred.self,
        DeleteMessages.self, UpdateSession.self, SessionStatistics.self, SearchSessions.self,
    ]

    /// Decodes a param with the core's own parser, reporting problems as `-32602` on that field.
    static func decode<T>(_ p: ParamReader, _ key: String, _ parse: (JSON) throws(SessionError) -> T) throws -> T? {
        guard let v = p.value(key) else { return nil }
        do { return try parse(v) } catch {
            throw RPCError.invalidParams(field: p.field(key), expected: error.message, got: v.typeName)
        }
    }

    /// Decodes a required param with the core's parser (a description records it as required and
    /// answers `placeholder`); absent or null is `-32602` saying what was `expected`.
    static func decodeRequired<T>(_ p: ParamReader, _ key: String, expected: String, placeholder: T,
                                  _ parse: (JSON) throws(SessionError) -> T) throws -> T {
        if p.isDescribing { _ = try p.required(key); return placeholder }
        guard let v = p[key] else { throw RPCError.invalidParams(field: p.field(key), expected: expected, got: "nothing") }
        do { return try parse(v) } catch {
            throw RPCError.invalidParams(field: p.field(key), expected: error.message, got: v.typeName)
        }
    }
}

/// A method on one session: later calls on the same session wait for earlier ones (writes), or
/// only for earlier writes (reads).
protocol SessionMethod: MethodDeclaration where Params: SessionParams {
    static var access: Claim.Access { get }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Result
}

/// Params naming a session by `id`.
protocol SessionParams: MethodParams {
    var id: String { get }
}

extension SessionMethod {
    static var access: Claim.Access { .write }
    static func schedule(_ p: Params) -> Schedule { .claims([Claim("session", path: p.id, access: access)]) }
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        try SessionMethods.onStore(call) { try handle(p, $0) }
    }
}

struct SessionID: SessionParams {
    var id: String
    init(_ p: ParamReader) throws { id = try p.requiredString("id") }
}

enum ListTools: MethodDeclaration {
    static let method = "agent/listTools"
    static let reaches: Set<Capability> = []
    static func schedule(_ p: NoParams) -> Schedule { .free }
    static func handle(_ p: NoParams, _ call: Call) throws -> [JSON] { ToolTable.all.map(\.json) }
}

enum ListSessions: MethodDeclaration {
    static let method = "session/list"
    static let reaches: Set<Capability> = [.workspace]
    /// A snapshot of the store's index (under its lock): it does not wait for running tool calls.
    static func schedule(_ p: Params) -> Schedule { .free }
    struct Params: MethodParams {
        var filter: SessionFilter
        var limit: Int
        var cursor: String?
        var withBytesOnDisk: Bool
        init(_ p: ParamReader) throws {
            filter = SessionFilter(state: try p.choice("state", SessionState.allCases.map(\.rawValue)).flatMap(SessionState.init))
            filter.agentType = try p.string("agentType")
            filter.parentId = try p.string("parentId")
            filter.titleContains = try p.string("titleContains")
            filter.metadata = try p.object("metadata")?.object ?? JSONObject()
            if let since = try p.string("updatedSince") {
                guard let nanos = Timestamp.nanos(iso8601: since) else {
                    throw RPCError.invalidParams(field: p.field("updatedSince"), expected: "an ISO 8601 time", got: "\"\(since)\"")
                }
                filter.updatedSinceNanos = nanos
            }
            limit = Int(try p.int("limit", in: 1...1000) ?? 50)
            cursor = try p.string("cursor")
            withBytesOnDisk = try p.bool("withBytesOnDisk") ?? false
        }
    }
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let (store, _) = try call.services.stores()
        let page = try store.list(p.filter, limit: p.limit, cursor: p.cursor)
        let sessions = p.withBytesOnDisk ? SessionMethods.withBytesOnDisk(store, page.sessions) : page.sessions
        return Result(sessions: sessions.map(SessionObject.init), nextCursor: page.nextCursor)
    }

    struct Result: ObjectResult {
        var sessions: [SessionObject]
        var nextCursor: String?
        static let fields: [ResultField<Self>] = [.field("sessions", \.sessions), .field("nextCursor", \.nextCursor)]
    }
}

enum GetSession: SessionMethod {
    typealias Params = SessionID
    static let method = "session/get"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = SessionObject
    static let access = Claim.Access.read
    static func handle(_ p: SessionID, _ store: SessionStore) throws -> SessionObject {
        SessionObject(session: try store.get(id: p.id, withBytesOnDisk: true))
    }
}

enum SessionMessages: SessionMethod {
    static let method = "session/messages"
    static let reaches: Set<Capability> = [.workspace]
    static let access = Claim.Access.read
    struct Params: SessionParams {
        var id: String
        var query: MessageQuery
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            query = MessageQuery(after: try p.string("after"), before: try p.string("before"),
                                 last: try p.int("last", in: 1...10_000).map { Int($0) },
                                 limit: Int(try p.int("limit", in: 1...10_000) ?? 100),
                                 filter: try SessionMethods.decode(p, "where", MessageFilter.init(json:)) ?? MessageFilter(),
                                 includeCompacted: try p.bool("includeCompacted") ?? false)
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Result {
        Result(page: try store.messagePage(id: p.id, p.query))
    }

    /// A page of messages, whether more match and where to continue either way.
    struct Result: ObjectResult {
        var page: MessagePage
        static let fields: [ResultField<Self>] = [
            .field("messages", \.page.messages), .field("hasMore", \.page.hasMore),
            .field("nextAfter", \.page.nextAfter), .field("nextBefore", \.page.nextBefore),
        ]
    }
}

enum DeleteSession: SessionMethod {
    typealias Params = SessionID
    static let method = "session/delete"
    static let reaches: Set<Capability> = [.workspace]
    static func handle(_ p: SessionID, _ store: SessionStore) throws -> Result {
        try store.delete(id: p.id)
        return Result(id: p.id)
    }

    struct Result: ObjectResult {
        var id: String
        var deleted = true
        static let fields: [ResultField<Self>] = [.field("id", \.id), .field("deleted", \.deleted)]
    }
}

enum TransitionSession: SessionMethod {
    static let method = "session/transition"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = SessionObject
    struct Params: SessionParams {
        var id: String
        var to: SessionState
        var error: JSON?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            to = try p.requiredChoice("to", as: SessionState.self, expected: "a session state")
            error = p.value("error")
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> SessionObject {
        SessionObject(session: try store.transition(id: p.id, to: p.to, error: p.error).session)
    }
}

enum AppendMessages: SessionMethod {
    static let method = "session/appendMessages"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: SessionParams {
        var id: String
        var messages: [MessageInput]
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            let raw = try p.requiredArray("messages", expected: "an array of messages")
            messages = try [MessageInput](items: raw, of: "messages", MessageInput.init(param:field:))
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Result {
        Result(count: try store.appendMessages(id: p.id, messages: p.messages))
    }

    struct Result: ObjectResult {
        var count: Int
        static let fields: [ResultField<Self>] = [.field("count", \.count)]
    }
}

enum RecordUsage: SessionMethod {
    static let method = "session/recordUsage"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: SessionParams {
        var id: String
        var inputTokens: Int
        var outputTokens: Int
        var model: String?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            inputTokens = Int(try p.requiredInt("inputTokens", in: 0...Int64(Int32.max)))
            outputTokens = Int(try p.requiredInt("outputTokens", in: 0...Int64(Int32.max)))
            model = try p.string("model")
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Result {
        Result(report: try store.recordUsage(id: p.id, inputTokens: p.inputTokens, outputTokens: p.outputTokens, model: p.model))
    }

    /// `{usage, remaining, exceeded}`, plus `unpricedModel` when the model named is not in the
    /// price table (the turn cost nothing rather than a guess).
    struct Result: ObjectResult {
        var report: UsageReport
        static let fields: [ResultField<Self>] = [.field("usage", \.report.usage), .field("remaining", \.report.remaining),
                                                   .field("exceeded", \.report.exceeded), .field("unpricedModel", \.report.unpricedModel)]
    }
}

enum CheckpointSession: SessionMethod {
    static let method = "session/checkpoint"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: SessionParams {
        var id: String
        var pending: [ToolCallRecord]?
        var partialResults: JSON?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            // Anything but an array reads as absent, as before.
            if case .array(let raw)? = p.value("pendingToolCalls") {
                pending = try [ToolCallRecord](items: raw, of: "pendingToolCalls", ToolCallRecord.init(declared:field:))
            }
            partialResults = p.value("partialResults")
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Result {
        let c = try store.checkpoint(id: p.id, pendingToolCalls: p.pending, partialResults: p.partialResults)
        return Result(checkpointId: c.checkpointId, at: c.at)
    }

    struct Result: ObjectResult {
        var checkpointId: String
        var at: String
        static let fields: [ResultField<Self>] = [.field("checkpointId", \.checkpointId), .field("at", \.at)]
    }
}

enum ResumeSession: SessionMethod {
    typealias Params = SessionID
    static let method = "session/resume"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = ResumeObject
    static func handle(_ p: SessionID, _ store: SessionStore) throws -> ResumeObject { ResumeObject(resumed: try store.resume(id: p.id)) }
}
