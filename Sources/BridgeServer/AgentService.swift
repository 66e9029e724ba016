#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import JSON
import JSONRPC
import Logging
import Storage
import Synchronization
import Workspace

/// The sessions and the offline queue of the active workspace root, plus the device
/// conditions the host reports. Opened on first use, and again when the active root changes
/// (sessions live in `.workspace/` of the root, so they follow the workspace across devices).
final class AgentService: Sendable {
    private struct Open { var root: String; var sessions: SessionStore; var queue: OfflineQueue }
    private let open = Mutex<Open?>(nil)
    private let opening = OpeningLock()
    /// What this process's host reported (then it, not the shared conditions, applies); nil before.
    private let reported = Mutex<DeviceConditions?>(nil)
    /// The conditions assumed when no host reported any.
    private static let assumed = DeviceConditions(network: .wifi)
    private let configDirectory: String
    private let logger: Logger
    private let notify: @Sendable (String, JSON) -> Void

    /// Nothing is read or created until sessions are first used (a server that only serves
    /// files starts faster).
    init(configDirectory: String, logger: Logger, notify: @escaping @Sendable (String, JSON) -> Void) {
        self.configDirectory = configDirectory
        self.logger = logger
        self.notify = notify
    }

    /// Opening is serialised: concurrent first calls get the same stores (and one device id).
    func stores(for ws: Workspace) throws -> (SessionStore, OfflineQueue) {
        let root = ws.rootPath
        if let o = open.withLock({ $0 }), o.root == root { return (o.sessions, o.queue) }
        opening.lock()
        defer { opening.unlock() }
        if let o = open.withLock({ $0 }), o.root == root { return (o.sessions, o.queue) }
        let notify = self.notify
        let owner = Self.machineOwner(configDirectory: configDirectory)
        let pricing = (try? Pricing.load(file: configDirectory + "/pricing.json")) ?? Pricing()
        let sessions = SessionStore(directory: root + "/.workspace/sessions", owner: owner, pricing: pricing,
                                    onStateChange: { change in
                                        var p: JSONObject = ["id": .string(change.id), "from": .string(change.from.rawValue),
                                                             "to": .string(change.to.rawValue)]
                                        if let r = change.reason { p["reason"] = .string(r) }
                                        notify("session/didChangeState", .object(p))
                                    })
        let queue = try OfflineQueue(directory: root + "/.workspace/queue")
        // The retention policy is applied when the sessions open (and after appends, and by session/prune).
        if let retention = try? sessions.retentionPolicy(), !retention.isEmpty {
            do { _ = try sessions.prune() } catch { logger.warning("sessions: the start-up prune failed: \(error.message)") }
        }
        let previous = open.withLock { o -> Open? in
            defer { o = Open(root: root, sessions: sessions, queue: queue) }
            return o
        }
        previous?.sessions.close()
        return (sessions, queue)
    }

    /// Gives up every session lease this server holds (at `shutdown`), so another device can go
    /// on with the sessions at once instead of waiting for the leases to expire.
    func releaseAll() {
        open.withLock { $0 }?.sessions.close()
    }

    func logWarnings(_ store: SessionStore) {
        for w in store.drainWarnings() { logger.warning("sessions: \(w)") }
    }

    /// The device's conditions: what this process's host reported (`host/setConditions`), else
    /// what the host of another running server process of the same config folder reported
    /// (`SharedConditions`: how an MCP process learns them), else the assumed ones.
    var currentConditions: DeviceConditions {
        if let here = reported.withLock({ $0 }) { return here }
        return SharedConditions.read(configDirectory: configDirectory) ?? Self.assumed
    }

    /// Records new conditions, and shares them with the other server processes of this config
    /// folder; when the network comes back, due queue items are announced.
    func setConditions(_ c: DeviceConditions, queue: OfflineQueue?) -> Policy {
        let earlier = reported.withLock { s -> DeviceConditions? in
            defer { s = c }
            return s
        }
        let before = earlier ?? SharedConditions.read(configDirectory: configDirectory) ?? Self.assumed
        do throws(SharedConditionsError) { try SharedConditions.write(c, configDirectory: configDirectory) } catch {
            logger.warning("device conditions: not shared with other server processes: \(error.reason)")
        }
        if before.network == .offline && c.network != .offline, let queue, let items = try? queue.ready(networkAvailable: true),
            !items.isEmpty
        {
            notify("queue/ready", ["items": .array(items.map(\.json))])
        }
        if let sessions = open.withLock({ $0 })?.sessions {
            let ready = SessionMethods.newlyRunnable(sessions, before: (before, policy(for: before)), after: (c, policy(for: c)))
            if !ready.isEmpty { notify("session/deferredReady", ["calls": .array(ready)]) }
        }
        return policy(for: c)
    }

    func policy(for c: DeviceConditions) -> Policy {
        Policy(conditions: c, offlineTools: ToolTable.all.filter { !$0.requiresNetwork }.map(\.name))
    }

    /// A stable id for this device (kept in the config folder), so a restarted server still
    /// owns the leases it held before a crash.
    static func machineOwner(configDirectory: String) -> String {
        DeviceIdentity.id(configDirectory: configDirectory)
    }
}

/// A plain lock held while the stores are opened (file I/O inside, so not a `Mutex` closure).
final class OpeningLock: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(m, nil) }
    deinit { pthread_mutex_destroy(m); m.deallocate() }
    func lock() { pthread_mutex_lock(m) }
    func unlock() { pthread_mutex_unlock(m) }
}
