import AgentSessions
import JSON
import JSONRPC
import SystemSupport

/// `session/search`: ranked hits over every session's messages and tool calls (see
/// `SessionStore.search` for what is found, and docs/protocol.md for the hit's fields).
enum SearchSessions: MethodDeclaration {
    static let method = "session/search"
    static let reaches: Set<Capability> = [.workspace]

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

    static func handle(_ p: Params, _ call: Call) throws -> Result {
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
        return Result(page: page)
    }

    /// One page of ranked hits, how many there are in all, and where the next page starts.
    struct Result: ObjectResult {
        var page: SessionSearchPage
        static let fields: [ResultField<Self>] = [
            .field("hits", { $0.page.hits.map(Hit.init) }), .field("totalHits", \.page.totalHits),
            .field("sessionsSearched", \.page.sessionsSearched), .field("nextCursor", \.page.nextCursor),
        ]
    }

    /// A hit: a message's or a tool call's field, its matches (UTF-16 offsets) and its snippet.
    struct Hit: ObjectResult {
        var hit: SessionSearchHit
        static let fields: [ResultField<Self>] = [
            .field("sessionId", \.hit.sessionId), .field("sessionTitle", \.hit.sessionTitle), .field("agentType", \.hit.agentType),
            .field("state", \.hit.state.rawValue), .field("kind", \.hit.kind.rawValue),
            .field("messageId", { $0.hit.kind == .message ? $0.hit.itemId : nil }),
            .field("role", { $0.hit.kind == .message ? $0.hit.role?.rawValue : nil }),
            .field("toolCallId", { $0.hit.kind == .toolCall ? $0.hit.itemId : nil }),
            .field("toolName", { $0.hit.kind == .toolCall ? $0.hit.toolName ?? "" : nil }),
            .field("field", \.hit.field), .field("at", { Timestamp.iso8601(nanos: $0.hit.atNanos) }),
            .field("compactedBy", \.hit.compactedBy), .field("summary", { (h: Hit) -> Bool? in h.hit.isSummary ? true : nil }),
            .field("score", \.hit.score), .field("matchCount", \.hit.matchCount),
            .field("matches", { $0.hit.matches.map(Match.init) }), .field("snippet", \.hit.snippet),
            .field("snippetStart", \.hit.snippetStart),
        ]
    }

    /// One match in a hit's field: where it starts and how long it is, in UTF-16 code units.
    struct Match: ObjectResult {
        var range: Range<Int>
        static let fields: [ResultField<Self>] = [.field("start", \.range.lowerBound), .field("length", \.range.count)]
    }
}
