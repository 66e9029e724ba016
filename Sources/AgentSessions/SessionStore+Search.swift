#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import SystemSupport

extension SessionStore {
    /// Searches every session's messages and tool calls (or those `q` names) and returns one page
    /// of the ranked hits (`RankKey`: score, then newer first), after `q.cursor`.
    ///
    /// What is found is what the sessions show: visible messages, compactions' summaries, and,
    /// with `includeCompacted`, the originals retention still keeps (journal or archive); what
    /// retention pruned or a deleted session held is not on disk and is never found. Tool calls
    /// are found by name, arguments and result as their journal records hold them, except that a
    /// call whose approval was denied shows its name and refusal, never its arguments, and a call
    /// waiting for approval is not searched at all (its request is in the approval, which is not).
    ///
    /// Cost: one read of each journal; a literal query skips every record whose bytes cannot
    /// hold it (the query as the journal escapes it, `memmem` over the whole file) and decodes
    /// only the others. Sessions are searched on every core. Each session is read as of one
    /// moment (its lock is held only to take its state and open its journal).
    ///
    /// - Parameters:
    ///   - isCancelled: checked between sessions and records, and before each call of a regular expression's engine;
    ///     the search then throws `RequestCancelled`.
    ///   - progress: sessions searched so far and sessions in all.
    public func search(_ q: SessionSearchQuery, isCancelled: @escaping @Sendable () -> Bool = { false },
                       progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) throws(SessionError) -> SessionSearchPage {
        guard (1...SessionSearchQuery.maxLimit).contains(q.limit) else {
            throw SessionError(.invalidArgument, "limit must be 1 to \(SessionSearchQuery.maxLimit)", .field("limit"))
        }
        _ = try q.matcher()
        let after = try q.cursor.map { c throws(SessionError) in try SearchCursor.decode(c, fingerprint: q.fingerprint) }
        var handles: [SessionHandle]
        if let ids = q.sessionIds {
            handles = ids.compactMap { try? handle($0) }
        } else {
            handles = allHandles()
        }
        handles.sort { $0.id < $1.id }
        let run = SearchRun(store: self, query: q, after: after, handles: handles,
                            deadline: MonotonicClock.nanos() &+ UInt64(max(0, q.timeLimitNanos)), isCancelled: isCancelled)
        let workers = min(Parallel.cores, max(1, handles.count / 4))
        let count = handles.count
        Parallel.run(workers) { worker in
            run.work { done in if worker == 0 { progress(done, count) } }
        }
        return try run.page()
    }
}

/// One search across sessions: the shared counters, the first failure, the merged hits.
final class SearchRun: Sendable {
    let store: SessionStore
    let query: SessionSearchQuery
    let after: RankKey?
    let handles: [SessionHandle]
    let deadline: UInt64
    let isCancelled: @Sendable () -> Bool
    private let next = Atomic<Int>(0)
    private let searched = Atomic<Int>(0)
    private let failure = Mutex<SessionError?>(nil)
    private let merged = Mutex(HitList(limit: 0, after: nil))

    init(store: SessionStore, query: SessionSearchQuery, after: RankKey?, handles: [SessionHandle], deadline: UInt64,
         isCancelled: @escaping @Sendable () -> Bool) {
        self.store = store
        self.query = query
        self.after = after
        self.handles = handles
        self.deadline = deadline
        self.isCancelled = isCancelled
        merged.withLock { $0 = HitList(limit: query.limit, after: after) }
    }

    /// Takes sessions until none is left or the search failed; merges its hits at the end.
    func work(progress: (Int) -> Void) {
        guard let matcher = try? query.matcher() else { return }
        let scan = SessionScan(query: query, matcher: matcher, prefilter: Self.prefilter(matcher)) { [self] in
            isCancelled() || MonotonicClock.nanos() > deadline
        }
        var hits = HitList(limit: query.limit, after: after)
        defer { merged.withLock { $0.merge(hits) } }
        while failure.withLock({ $0 == nil }) {
            let i = next.add(1, ordering: .relaxed).oldValue
            guard i < handles.count else { return }
            do throws(SessionError) {
                try check()
                if try scan.search(handles[i], store, into: &hits, check: check) { progress(searched.add(1, ordering: .relaxed).newValue) }
            } catch {
                failure.withLock { $0 = $0 ?? error }
                return
            }
        }
    }

    /// Throws when the search was cancelled or ran out of time.
    func check() throws(SessionError) {
        if isCancelled() { throw SessionError(.cancelled, "the search was cancelled") }
        if MonotonicClock.nanos() > deadline {
            let ms = query.timeLimitNanos / 1_000_000
            throw SessionError(.limitExceeded, "the search ran over its time limit of \(ms) ms; narrow it (sessions, time, a literal query)",
                               .limit(reason: "time", limit: ms, size: nil))
        }
    }

    func page() throws(SessionError) -> SessionSearchPage {
        if let f = failure.withLock({ $0 }) { throw f }
        let list = merged.withLock { $0 }
        let more = list.afterCursor > list.top.count
        return SessionSearchPage(hits: list.top, totalHits: list.total, sessionsSearched: searched.load(ordering: .relaxed),
                                 nextCursor: more ? list.top.last.map { SearchCursor.encode($0.key, fingerprint: query.fingerprint) } : nil)
    }

    /// For a literal query: a matcher of the query as the journal's JSON escapes it, so records
    /// that cannot hold it are skipped unread. Nil for a regular expression.
    static func prefilter(_ m: TextMatcher) -> TextMatcher? {
        guard let (needle, folded) = m.literalNeedle else { return nil }
        let escaped = JSONCodec.encode(.string(String(decoding: needle, as: UTF8.self))).dropFirst().dropLast()
        return try? TextMatcher(query: String(decoding: escaped, as: UTF8.self), regex: false, caseSensitive: !folded)
    }
}

/// The best hits after a cursor, in rank order, at most `limit`; and how many there were.
struct HitList: Sendable {
    let limit: Int
    let after: RankKey?
    var top: [SessionSearchHit] = []
    var total = 0
    var afterCursor = 0

    init(limit: Int, after: RankKey?) {
        self.limit = limit
        self.after = after
    }

    mutating func add(_ hit: SessionSearchHit) {
        total += 1
        let key = hit.key
        if let after, !(after < key) { return }
        afterCursor += 1
        if top.count == limit, let last = top.last, !(key < last.key) { return }
        var lo = 0, hi = top.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if top[mid].key < key { lo = mid + 1 } else { hi = mid }
        }
        top.insert(hit, at: lo)
        if top.count > limit { top.removeLast() }
    }

    mutating func merge(_ other: HitList) {
        for h in other.top { add(h) }
        total += other.total - other.top.count
        afterCursor += other.afterCursor - other.top.count
    }
}
