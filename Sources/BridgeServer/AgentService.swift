#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import Dispatch
import JSON
import JSONRPC
import Logging
import Storage
import Synchronization
import Workspace

/// The sessions and the offline queue of the active workspace root, plus the device
/// conditions the host reports. Opened on first use, and again when the active root changes
/// (sessions live in `.workspace/` of the root, so they follow the workspace across devices).
package final class AgentService: Sendable {
    private struct Open { var root: String; var sessions: SessionStore; var queue: OfflineQueue }
    private let open = Mutex<Open?>(nil)
    private let opening = OpeningLock()
    /// What this process's host reported (then it, not the shared conditions, applies); nil before.
    private let reported = Mutex<DeviceConditions?>(nil)
    /// The conditions assumed when no host reported any.
    private static let assumed = DeviceConditions(network: .wifi)
    private let configDirectory: String
    /// How long shared conditions stay trusted, in milliseconds (`--conditions-max-age`).
    private let conditionsMaxAge: Int64
    /// The session hub the stores replicate to (`--hub`), if any.
    package let hub: (any SessionReplica)?
    private let logger: Logger
    private let notify: @Sendable (String, JSON) -> Void
    /// The last warning about the shared conditions file, so a bad file is reported once, not on every call.
    private let sharedWarning = Mutex<String?>(nil)
    /// Rewrites what this process's host reported while they are the shared conditions (started
    /// by the first `host/setConditions`).
    private let refresher = Mutex<ConditionsRefresher?>(nil)

    /// Nothing is read or created until sessions are first used (a server that only serves
    /// files starts faster).
    init(configDirectory: String, conditionsMaxAge: Duration, hub: (any SessionReplica)? = nil, logger: Logger,
         notify: @escaping @Sendable (String, JSON) -> Void) {
        self.configDirectory = configDirectory
        self.conditionsMaxAge = max(1, Int64(clamping: conditionsMaxAge.clampedNanoseconds / 1_000_000))
        self.hub = hub
        self.logger = logger
        self.notify = notify
    }

    /// Opening is serialised: concurrent first calls get the same stores (and one device id).
    package func stores(for ws: Workspace) throws -> (SessionStore, OfflineQueue) {
        let root = ws.rootPath
        if let o = open.withLock({ $0 }), o.root == root { return (o.sessions, o.queue) }
        opening.lock()
        defer { opening.unlock() }
        if let o = open.withLock({ $0 }), o.root == root { return (o.sessions, o.queue) }
        let notify = self.notify
        let owner = Self.machineOwner(configDirectory: configDirectory)
        let pricing = loadPricing()
        let sessions = SessionStore(directory: root + "/.workspace/sessions", owner: owner, pricing: pricing,
                                    onStateChange: { change in
                                        var p: JSONObject = ["id": .string(change.id), "from": .string(change.from.rawValue),
                                                             "to": .string(change.to.rawValue)]
                                        if let r = change.reason { p["reason"] = .string(r) }
                                        notify("session/didChangeState", .object(p))
                                    }, replica: hub)
        let queue = try OfflineQueue(directory: root + "/.workspace/queue")
        hub?.opened(sessions)
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

    /// `<config>/pricing.json`, else the default prices; a file that is there but cannot be used
    /// (damaged, over `FileCap.pricing`) is ignored with a warning.
    private func loadPricing() -> Pricing {
        do throws(SessionError) { return try Pricing.load(file: configDirectory + "/pricing.json") } catch {
            if error.kind != .notFound { logger.warning("sessions: \(error.message); the default prices apply") }
            return Pricing()
        }
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
        return sharedConditions() ?? Self.assumed
    }

    /// The fresh conditions of another process's host (`SharedConditions.read`), warning once
    /// about a file that is there but ignored.
    private func sharedConditions() -> DeviceConditions? {
        let read = SharedConditions.read(configDirectory: configDirectory, maxAge: conditionsMaxAge)
        let warn = sharedWarning.withLock { last -> Bool in
            defer { last = read.warning }
            return read.warning != nil && read.warning != last
        }
        if warn, let w = read.warning { logger.warning("device conditions: \(w)") }
        return read.conditions
    }

    /// Records new conditions, and shares them with the other server processes of this config
    /// folder; when the network comes back, due queue items are announced.
    func setConditions(_ c: DeviceConditions, queue: OfflineQueue?) -> Policy {
        let earlier = reported.withLock { s -> DeviceConditions? in
            defer { s = c }
            return s
        }
        let before = earlier ?? sharedConditions() ?? Self.assumed
        do throws(SharedConditionsError) { try SharedConditions.write(c, configDirectory: configDirectory) } catch {
            logger.warning("device conditions: not shared with other server processes: \(error.reason)")
        }
        startRefreshing()
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

    /// Keeps the shared conditions fresh while this process runs: every fifth of
    /// `--conditions-max-age` they are rewritten with a new `at`, as long as this
    /// process was the last to write them (another host's report is never put back).
    private func startRefreshing() {
        refresher.withLock { r in
            guard r == nil else { return }
            r = ConditionsRefresher(every: max(1, conditionsMaxAge / 5)) { [weak self] in
                guard let self, let c = self.reported.withLock({ $0 }) else { return }
                do throws(SharedConditionsError) {
                    try SharedConditions.write(c, configDirectory: self.configDirectory, onlyIfOurs: true)
                } catch {
                    self.logger.warning("device conditions: not refreshed for other server processes: \(error.reason)")
                }
            }
        }
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

/// A repeating timer on a queue of its own, cancelled when dropped.
final class ConditionsRefresher: @unchecked Sendable {  // the Dispatch source is thread-safe
    private let timer: any DispatchSourceTimer

    init(every milliseconds: Int64, _ tick: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "workspace-bridge.conditions-refresh"))
        let interval = DispatchTimeInterval.milliseconds(Int(milliseconds))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(milliseconds / 10)))
        timer.setEventHandler(handler: tick)
        timer.resume()
    }

    deinit { timer.cancel() }
}

/// A plain lock held while the stores are opened (file I/O inside, so not a `Mutex` closure).
final class OpeningLock: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(m, nil) }
    deinit { pthread_mutex_destroy(m); m.deallocate() }
    func lock() { pthread_mutex_lock(m) }
    func unlock() { pthread_mutex_unlock(m) }
}
