import AgentSessions
import JSON
import JSONRPC
import Workspace

/// Session errors are domain failures (`-32803`) with their `data.code` and details
/// (`from`, `to`, `allowed` for `InvalidTransition`).
extension SessionError: DomainError {
    public var dataCode: String { code }
}

/// `session/*` and `agent/listTools`: durable agent sessions driven by the front end, which
/// makes the model calls; every acknowledged step is on disk before the answer.
package enum SessionMethods {
    static let all: [any MethodDeclaration.Type] = [
        ListTools.self, CreateSession.self, ListSessions.self, GetSession.self, SessionMessages.self, DeleteSession.self,
        TransitionSession.self, AppendMessages.self, RecordUsage.self, CheckpointSession.self, ResumeSession.self,
        CallTool.self, ForkSession.self, CompactSession.self, UncompactSession.self, GetRetention.self, SetRetention.self,
        PruneSessions.self, ExportSession.self, ImportSession.self, SetApprovalPolicy.self, ApproveToolCall.self, ListDeferred.self,
        SearchSessions.self,
    ]

    static let sessionFields = ["id", "title", "agentType", "state", "error", "config", "usage", "pendingToolCalls", "metadata",
                                "createdAt", "updatedAt", "parentId", "forkedAt", "compactions", "approvalPolicy",
                                "pendingApprovals", "deferredToolCalls", "bytesOnDisk"]
    static let compactionFields = ["id", "firstMessageId", "throughMessageId", "count", "by", "at", "active", "undoneAt",
                                   "originalsKept"]

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

    /// Decodes each item of an array param with the core's parser (`field[i]` in errors).
    static func decodeItems<T>(_ items: [JSON], _ key: String, _ parse: (JSON) throws(SessionError) -> T) throws -> [T] {
        var out: [T] = []
        for (i, m) in items.enumerated() {
            do throws(SessionError) { out.append(try parse(m)) } catch {
                throw RPCError.invalidParams(field: "\(key)[\(i)]", expected: error.message, got: m.typeName)
            }
        }
        return out
    }
}

/// A method on one session: later calls on the same session wait for earlier ones (writes), or
/// only for earlier writes (reads).
protocol SessionMethod: MethodDeclaration where Params: SessionParams {
    static var access: Claim.Access { get }
    static func handle(_ p: Params, _ store: SessionStore) throws -> JSON
}

/// Params naming a session by `id`.
protocol SessionParams: MethodParams {
    var id: String { get }
}

extension SessionMethod {
    static var access: Claim.Access { .write }
    static func schedule(_ p: Params) -> Schedule { .claims([Claim("session", path: p.id, access: access)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let (store, _) = try call.services.stores()
        defer { call.services.agents.logWarnings(store) }
        return try handle(p, store)
    }
}

struct SessionID: SessionParams {
    var id: String
    init(_ p: ParamReader) throws { id = try p.requiredString("id") }
}

enum ListTools: MethodDeclaration {
    static let method = "agent/listTools"
    static let result = ResultShape.array
    static func schedule(_ p: NoParams) -> Schedule { .free }
    static func handle(_ p: NoParams, _ call: Call) throws -> JSON { .array(ToolTable.all.map(\.json)) }
}

enum ListSessions: MethodDeclaration {
    static let method = "session/list"
    static let result = ResultShape.object(["sessions", "nextCursor"])
    /// A snapshot of the store's index (under its lock): it does not wait for running tool calls.
    static func schedule(_ p: Params) -> Schedule { .free }
    struct Params: MethodParams {
        var state: SessionState?
        var limit: Int
        var cursor: String?
        var withBytesOnDisk: Bool
        init(_ p: ParamReader) throws {
            state = try p.choice("state", SessionState.allCases.map(\.rawValue)).flatMap(SessionState.init)
            limit = Int(try p.int("limit", in: 1...1000) ?? 50)
            cursor = try p.string("cursor")
            withBytesOnDisk = try p.bool("withBytesOnDisk") ?? false
        }
    }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let (store, _) = try call.services.stores()
        let page = try store.list(state: p.state, limit: p.limit, cursor: p.cursor)
        let sessions = p.withBytesOnDisk ? SessionMethods.withBytesOnDisk(store, page.sessions) : page.sessions
        var o: JSONObject = ["sessions": .array(sessions.map(\.json))]
        if let next = page.nextCursor { o["nextCursor"] = .string(next) }
        return .object(o)
    }
}

enum GetSession: SessionMethod {
    typealias Params = SessionID
    static let method = "session/get"
    static let result = ResultShape.object(SessionMethods.sessionFields)
    static let access = Claim.Access.read
    static func handle(_ p: SessionID, _ store: SessionStore) throws -> JSON { try store.get(id: p.id, withBytesOnDisk: true).json }
}

enum SessionMessages: SessionMethod {
    static let method = "session/messages"
    static let result = ResultShape.object(["messages"])
    static let access = Claim.Access.read
    struct Params: SessionParams {
        var id: String
        var after: String?
        var limit: Int
        var includeCompacted: Bool
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            after = try p.string("after")
            limit = Int(try p.int("limit", in: 1...10_000) ?? 100)
            includeCompacted = try p.bool("includeCompacted") ?? false
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> JSON {
        let messages = try store.messages(id: p.id, after: p.after, limit: p.limit, includeCompacted: p.includeCompacted)
        return ["messages": .array(messages.map(\.json))]
    }
}

enum DeleteSession: SessionMethod {
    typealias Params = SessionID
    static let method = "session/delete"
    static let result = ResultShape.object(["id", "deleted"])
    static func handle(_ p: SessionID, _ store: SessionStore) throws -> JSON {
        try store.delete(id: p.id)
        return ["id": .string(p.id), "deleted": true]
    }
}

enum TransitionSession: SessionMethod {
    static let method = "session/transition"
    static let result = ResultShape.object(SessionMethods.sessionFields)
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
    static func handle(_ p: Params, _ store: SessionStore) throws -> JSON {
        try store.transition(id: p.id, to: p.to, error: p.error).session.json
    }
}

enum AppendMessages: SessionMethod {
    static let method = "session/appendMessages"
    static let result = ResultShape.object(["count"])
    struct Params: SessionParams {
        var id: String
        var messages: [MessageInput]
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            let raw = try p.requiredArray("messages", expected: "an array of messages")
            messages = try SessionMethods.decodeItems(raw, "messages", MessageInput.init(json:))
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> JSON {
        ["count": .int(Int64(try store.appendMessages(id: p.id, messages: p.messages)))]
    }
}

enum RecordUsage: SessionMethod {
    static let method = "session/recordUsage"
    static let result = ResultShape.object(["usage", "remaining", "exceeded", "unpricedModel"])
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
    static func handle(_ p: Params, _ store: SessionStore) throws -> JSON {
        SessionMethods.usageReport(try store.recordUsage(id: p.id, inputTokens: p.inputTokens, outputTokens: p.outputTokens,
                                                         model: p.model))
    }
}

enum CheckpointSession: SessionMethod {
    static let method = "session/checkpoint"
    static let result = ResultShape.object(["checkpointId", "at"])
    struct Params: SessionParams {
        var id: String
        var pending: [ToolCallRecord]?
        var partialResults: JSON?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            // Anything but an array reads as absent, as before.
            if case .array(let raw)? = p.value("pendingToolCalls") {
                pending = try SessionMethods.decodeItems(raw, "pendingToolCalls", ToolCallRecord.init(json:))
            }
            partialResults = p.value("partialResults")
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> JSON {
        let c = try store.checkpoint(id: p.id, pendingToolCalls: p.pending, partialResults: p.partialResults)
        return ["checkpointId": .string(c.checkpointId), "at": .string(c.at)]
    }
}

enum ResumeSession: SessionMethod {
    typealias Params = SessionID
    static let method = "session/resume"
    static let result = ResultShape.object(["session", "messagesTail", "pendingToolCalls", "partialResults"])
    static func handle(_ p: SessionID, _ store: SessionStore) throws -> JSON { try store.resume(id: p.id).json }
}
