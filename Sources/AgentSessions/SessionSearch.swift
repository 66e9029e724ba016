import JSON
import SystemSupport

/// What `SessionStore.search` looks for, where, and which page of the ranked hits it returns.
///
/// Bounded: the query is at most `maxQueryBytes`, a page holds at most `maxLimit` hits, and a
/// search stops with `LimitExceeded` once it has run `timeLimitNanos` (checked between sessions
/// and records, and before each call of a regular expression's engine, whose work per call is
/// bounded: `TextMatcher`) or once a regular expression reached a bound of its engine.
public struct SessionSearchQuery: Sendable {
    public static let maxQueryBytes = 1024
    public static let maxLimit = 200

    public var query: String
    public var regex = false
    public var caseSensitive = false
    /// Only these sessions (nil: every session).
    public var sessionIds: Set<String>?
    /// Only messages with these roles; tool calls count as `tool` (nil: every role).
    public var roles: Set<MessageRole>?
    /// Only what was stored at or after `since` and before `until` (nanoseconds since 1970).
    public var since: Int64?
    public var until: Int64?
    public var states: Set<SessionState>?
    public var agentTypes: Set<String>?
    /// Also search the originals of compacted runs that retention has not dropped.
    public var includeCompacted = false
    public var limit = 20
    /// `nextCursor` of the previous page of the same search.
    public var cursor: String?
    public var timeLimitNanos: Int64 = 30_000_000_000

    public init(query: String) { self.query = query }

    /// Checks the bounds and compiles the matcher (a bad pattern is `InvalidArgument`, a bound
    /// passed `LimitExceeded`).
    func matcher() throws(SessionError) -> TextMatcher {
        guard !query.isEmpty else { throw SessionError(.invalidArgument, "the query is empty", .field("query")) }
        guard query.utf8.count <= Self.maxQueryBytes else {
            throw SessionError(.limitExceeded, "the query is \(query.utf8.count) bytes, over the limit of \(Self.maxQueryBytes)",
                               .limit(reason: "queryBytes", limit: Int64(Self.maxQueryBytes), size: Int64(query.utf8.count)))
        }
        do { return try TextMatcher(query: query, regex: regex, caseSensitive: caseSensitive) } catch {
            throw SessionError(.invalidArgument, error.message, .fieldReason(field: "query", reason: "badPattern"))
        }
    }

    /// A digest of everything but the page (query and filters): a cursor is only good for the
    /// search that made it.
    var fingerprint: String {
        func list<S: Sequence<String>>(_ s: S?) -> JSON { s.map { .array($0.sorted().map(JSON.string)) } ?? .null }
        let j: JSON = [.string(query), .bool(regex), .bool(caseSensitive), list(sessionIds), list(roles?.map(\.rawValue)),
                       since.map(JSON.int) ?? .null, until.map(JSON.int) ?? .null, list(states?.map(\.rawValue)),
                       list(agentTypes), .bool(includeCompacted)]
        let bytes = JSONCodec.encode(j)
        return SHA256.digest([bytes]).map { String(SHA256.hex($0).prefix(16)) } ?? String(decoding: bytes, as: UTF8.self)
    }
}

/// One thing found: a message's field, or a tool call's, with where the query matched.
///
/// Offsets (`matches`, `snippetStart`) count UTF-16 code units from the start of the field's
/// searched text (`SearchText.of`), as LSP positions and JavaScript strings do.
public struct SessionSearchHit: Sendable, Equatable {
    public enum Kind: String, Sendable { case message, toolCall }

    public var sessionId: String
    public var sessionTitle: String
    public var agentType: String
    public var state: SessionState
    public var kind: Kind
    /// The message's id (a compaction's summary: the compaction's id), or the tool call's.
    public var itemId: String
    public var role: MessageRole?
    public var toolName: String?
    /// `content` or `toolCalls` of a message; `name`, `arguments` or `result` of a tool call.
    public var field: String
    public var atNanos: Int64
    /// Set on an original of a compacted run (found with `includeCompacted`): the compaction.
    public var compactedBy: String?
    /// Set on a compaction's summary.
    public var isSummary = false
    public var score: Int
    /// Every match in the field (the first `maxMatchesShown` are in `matches`).
    public var matchCount: Int
    public var matches: [Range<Int>]
    public var snippet: String
    public var snippetStart: Int

    public static let maxMatchesShown = 16

    /// The ranking: higher score first, then newer, then by session, item and field (a total
    /// order, so pages never repeat or skip a hit).
    var key: RankKey { RankKey(score: score, at: atNanos, session: sessionId, item: kind.rawValue + ":" + itemId, field: field) }
}

/// The order of hits, and what a cursor holds: the key of the last hit of its page.
struct RankKey: Sendable, Comparable {
    var score: Int
    var at: Int64
    var session: String
    var item: String
    var field: String

    static func < (a: RankKey, b: RankKey) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.at != b.at { return a.at > b.at }
        if a.session != b.session { return a.session < b.session }
        if a.item != b.item { return a.item < b.item }
        return a.field < b.field
    }
}

/// One page of a search.
public struct SessionSearchPage: Sendable {
    public var hits: [SessionSearchHit]
    /// Every hit of the search, on every page.
    public var totalHits: Int
    public var sessionsSearched: Int
    /// Present when more hits follow: pass it as `cursor` with the same query and filters.
    public var nextCursor: String?
}

/// The opaque cursor: `s1.` and base64 of `[fingerprint, score, at, session, item, field]`.
enum SearchCursor {
    static func encode(_ k: RankKey, fingerprint: String) -> String {
        let j: JSON = [.string(fingerprint), .int(Int64(k.score)), .int(k.at), .string(k.session), .string(k.item), .string(k.field)]
        return "s1." + Base64.encode(JSONCodec.encode(j))
    }

    static func decode(_ s: String, fingerprint: String) throws(SessionError) -> RankKey {
        guard s.hasPrefix("s1."), let bytes = Base64.decode(String(s.dropFirst(3))), let j = try? JSONCodec.decode(bytes),
              let a = j.arrayValue, a.count == 6, let fp = a[0].stringValue, let score = a[1].intValue, let at = a[2].intValue,
              let session = a[3].stringValue, let item = a[4].stringValue, let field = a[5].stringValue
        else { throw SessionError(.invalidArgument, "the cursor is not one this server made", .field("cursor")) }
        guard fp == fingerprint else {
            throw SessionError(.invalidArgument, "the cursor belongs to another search (query or filters differ)",
                               .fieldReason(field: "cursor", reason: "cursorMismatch"))
        }
        return RankKey(score: Int(clamping: score), at: at, session: session, item: item, field: field)
    }
}
