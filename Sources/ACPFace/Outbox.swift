#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import Dispatch
import JSONRPC
import Logging
import Synchronization

/// The one ordered way out of the proxy, to the editor and to the agent, with group commit.
///
/// Guarantees: items leave in the order they were posted; an item's journal records are durable
/// in the session's journal (one `fsync` per session per batch) before its `send` runs, so the
/// editor is never shown what is not on disk; items posted while a batch is being flushed form
/// the next batch. A send only queues the message for its side's writer (`Peer.send`), so a
/// batch never waits for either side to read. At most `limit` items wait: `post` blocks while
/// that many do (back-pressure on the reader that posts, while journal writes catch up). A journal write that fails is logged, and the item runs its
/// `unless` instead of its send when it has one (a prompt: refused rather than sent unjournaled),
/// else it is still sent (the agent's output cannot be taken back; the gap is named on stderr).
final class Outbox: Sendable {
    struct Item: Sendable {
        var records: [(session: String, message: MessageInput)] = []
        var send: @Sendable () -> Void
        /// Runs instead of `send` when a record of the item could not be journaled (nil: `send`
        /// runs anyway, and the gap is logged).
        var unless: (@Sendable (SessionError) -> Void)? = nil
    }

    private let store: SessionStore
    private let logger: Logger
    private let queue = DispatchQueue(label: "acp.outbox")
    private let pending = Mutex<(items: [Item], scheduled: Bool)>(([], false))
    static let limit = 4096
    /// The most items journaled (and then sent) as one batch. A batch is on disk before the
    /// editor is shown any of it, and its sends wait on a slow editor; so this bounds how much the
    /// journal holds that the editor was never shown, which a proxy killed then must replay
    /// (and the editor take in) before it can answer the next `session/load`. Past a few
    /// hundred items the `fsync` a batch shares costs nothing more per item.
    static let batchLimit = 256

    init(store: SessionStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Posts one item (journal records, then its send).
    func post(_ item: Item) {
        while pending.withLock({ $0.items.count }) >= Self.limit { usleep(500) }
        let schedule = pending.withLock { p -> Bool in
            p.items.append(item)
            defer { p.scheduled = true }
            return !p.scheduled
        }
        if schedule { queue.async { self.drain() } }
    }

    /// Waits while more than `admitLimit` items wait (a reader's back-pressure before it reads
    /// the next message: what is journaled runs at most this far ahead of the writer queues, and
    /// the wait is for the disk only, never for a side to read).
    func waitForRoom() {
        while pending.withLock({ $0.items.count }) > Self.admitLimit { usleep(200) }
    }

    static let admitLimit = 256

    /// Posts a send with nothing to journal.
    func post(_ send: @escaping @Sendable () -> Void) { post(Item(send: send)) }

    /// Returns once everything posted before the call has been journaled and sent.
    /// (A drain runs until nothing is pending, and any post schedules one ahead of this call.)
    func flush() { queue.sync {} }

    private func drain() {
        while true {
            let batch = pending.withLock { p -> [Item] in
                let taken = Array(p.items.prefix(Self.batchLimit))
                p.items.removeFirst(taken.count)
                if taken.isEmpty { p.scheduled = false }
                return taken
            }
            if batch.isEmpty { return }
            let failed = journal(batch)
            for item in batch {
                if let unless = item.unless, let e = item.records.lazy.compactMap({ failed[$0.session] }).first {
                    unless(e)
                } else {
                    item.send()
                }
            }
        }
    }

    /// All records of a batch, grouped by session in posting order: one durable append each.
    /// Returns the sessions whose append failed, with the error.
    private func journal(_ batch: [Item]) -> [String: SessionError] {
        var failed: [String: SessionError] = [:]
        var order: [String] = []
        var bySession: [String: [MessageInput]] = [:]
        for item in batch {
            for r in item.records {
                if bySession[r.session] == nil { order.append(r.session) }
                bySession[r.session, default: []].append(r.message)
            }
        }
        for id in order {
            do throws(SessionError) { _ = try store.appendMessages(id: id, messages: bySession[id] ?? []) } catch {
                logger.error("acp: session \(id): \(bySession[id]?.count ?? 0) records not journaled: \(error.message)")
                failed[id] = error
            }
        }
        return failed
    }
}
