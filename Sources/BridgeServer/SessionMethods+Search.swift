import AgentSessions
import JSON
import JSONRPC
import SystemSupport

/// `session/search`: ranked hits over every session's messages and tool calls (see
/// `SessionStore.search` for what is found, and docs/protocol.md for the hit's fields).
enum SearchSessions: MethodDeclaration {
    static let method = "session/search"
    static let result = ResultShape.object(["hits", "totalHits", "sessionsSearched", "nextCursor"])
    static let hitFields = ["sessionId", "sessionTitle", "agentType", "state", "kind", "messageId", "role", "toolCallId", "toolName",
                            "field", "at", "compactedBy", "summary", "score", "matchCount", "matches", "snippet", "snippetStart"]

    struct Params: MethodParams {
        var query: SessionSearchQuery
        init(_ p: ParamReader) throws {
            query = SessionSearchQuery(query: try p.requiredString("query"))
            query.regex = try p.bool("regex") ?? false
            query.caseSensitive = try p.bool("caseSensitive") ?? false
            query.sessionIds = try p.strings("sessionIds").map(Set.init)
            query.roles = try p.choices("roles", as: MessageRole.self)
            query.states = try p.choices("states", as: SessionState.self)
            query.agentTypes = try p.strings("agentTypes").map(Set.init)
            query.since = try Self.time(p, "since")
            query.until = try Self.time(p, "until")
            query.includeCompacted = try p.bool("includeCompacted") ?? false
            query.limit = Int(try p.int("limit", in: 1...Int64(SessionSearchQuery.maxLimit)) ?? 20)
            query.cursor = try p.string("cursor")
            query.timeLimitNanos = (try p.int("timeLimitMs", in: 1...60_000) ?? 30_000) * 1_000_000
        }

        static func time(_ p: ParamReader, _ key: String) throws -> Int64? {
            guard let s = try p.string(key) else { return nil }
            guard let t = Timestamp.parse(s) else {
                throw RPCError.invalidParams(field: p.field(key), expected: "an ISO 8601 UTC time (2026-11-28T10:00:00.000Z)", got: "\"\(s)\"")
            }
            return t
        }
    }

    /// Reads the sessions it searches: waits for earlier writes to them (a search sees every
    /// acknowledged append), and a cancel answers it at once.
    static func schedule(_ p: Params) -> Schedule {
        guard let ids = p.query.sessionIds else { return .claims([.read("session", "")]) }
        return .claims(ids.sorted().map { Claim("session", path: $0, access: .read) })
    }

    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let (store, _) = try call.services.stores()
        defer { call.services.agents.logWarnings(store) }
        call.progress?.begin(title: "Searching sessions", message: "“\(p.query.query)”", percentage: 0)
        let page: SessionSearchPage
        do {
            page = try store.search(p.query, isCancelled: { call.isCancelled }) { done, total in
                call.progress?.report(message: "\(done) of \(total) sessions searched", percentage: total == 0 ? 100 : done * 100 / total)
            }
        } catch {
            throw error.kind == .cancelled ? RPCError.cancelled : error
        }
        call.progress?.end(message: "\(page.totalHits) hits in \(page.sessionsSearched) sessions")
        var o: JSONObject = ["hits": .array(page.hits.map(json)), "totalHits": .int(Int64(page.totalHits)),
                             "sessionsSearched": .int(Int64(page.sessionsSearched))]
        if let next = page.nextCursor { o["nextCursor"] = .string(next) }
        return .object(o)
    }

    static func json(_ h: SessionSearchHit) -> JSON {
        var o: JSONObject = ["sessionId": .string(h.sessionId), "sessionTitle": .string(h.sessionTitle),
                             "agentType": .string(h.agentType), "state": .string(h.state.rawValue), "kind": .string(h.kind.rawValue)]
        switch h.kind {
        case .message:
            o["messageId"] = .string(h.itemId)
            if let r = h.role { o["role"] = .string(r.rawValue) }
        case .toolCall:
            o["toolCallId"] = .string(h.itemId)
            o["toolName"] = .string(h.toolName ?? "")
        }
        o["field"] = .string(h.field)
        o["at"] = .string(Timestamp.iso8601(nanos: h.atNanos))
        if let c = h.compactedBy { o["compactedBy"] = .string(c) }
        if h.isSummary { o["summary"] = .bool(true) }
        o["score"] = .int(Int64(h.score))
        o["matchCount"] = .int(Int64(h.matchCount))
        o["matches"] = .array(h.matches.map { ["start": .int(Int64($0.lowerBound)), "length": .int(Int64($0.count))] })
        o["snippet"] = .string(h.snippet)
        o["snippetStart"] = .int(Int64(h.snippetStart))
        return .object(o)
    }
}
