#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import Dispatch
import Logging
import Synchronization

/// The one ordered way out of the proxy, to the editor and to the agent, with group commit.
///
/// Guarantees: items leave in the order they were posted; an item's journal records are durable
/// in the session's journal (one `fsync` per session per batch) before its `send` runs, so the
/// editor is never shown what is not on disk; items posted while a batch is being flushed form
/// the next batch. At most `limit` items wait: `post` blocks while that many do (back-pressure
/// on the reader that posts). A journal write that fails is logged and the item is still sent (the agent's
/// turn goes on; the gap is named on stderr).
final class Outbox: Sendable {
    struct Item: Sendable {
        var records: [(session: String, message: MessageInput)] = []
        var send: @Sendable () -> Void
    }

    private let store: SessionStore
    private let logger: Logger
    private let queue = DispatchQueue(label: "acp.outbox")
    private let pending = Mutex<(items: [Item], scheduled: Bool)>(([], false))
    static let limit = 4096

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

    /// Posts a send with nothing to journal.
    func post(_ send: @escaping @Sendable () -> Void) { post(Item(send: send)) }

    /// Returns once everything posted before the call has been journaled and sent.
    /// (A drain runs until nothing is pending, and any post schedules one ahead of this call.)
    func flush() { queue.sync {} }

    private func drain() {
        while true {
            let batch = pending.withLock { p -> [Item] in
                let taken = p.items
                p.items = []
                if taken.isEmpty { p.scheduled = false }
                return taken
            }
            if batch.isEmpty { return }
            journal(batch)
            for item in batch { item.send() }
        }
    }

    /// All records of a batch, grouped by session in posting order: one durable append each.
    private func journal(_ batch: [Item]) {
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
            }
        }
    }
}
