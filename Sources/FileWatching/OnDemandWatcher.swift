import Synchronization

/// One recursive `FileWatcher` shared by a changing set of subscribers, running only while at
/// least one is subscribed: the first `add` starts it, the `remove` of the last one stops it.
///
/// Guarantees:
/// - **Thread-safety**: `add`, `remove` and the readers may be called from any thread, at once.
/// - **No subscriber without a watcher**: when `add` returns (without throwing), a watcher is
///   running that started before it returned, so every change after it reaches the subscriber
///   until it is removed. A start racing a stop (a subscriber arriving while the last one
///   leaves) never leaves a subscriber unwatched.
/// - **No watcher without a subscriber**: when the last subscriber is removed the watcher is
///   stopped; a watcher whose start finishes after every subscriber left is stopped at once,
///   never kept.
/// - **Current subscribers only**: each batch (or overflow) is handed to the subscribers
///   present when it is delivered, as a snapshot; one removed before is never given it. A
///   stopped (or superseded) watcher's late batches are dropped. Callbacks run one at a time
///   on the watcher's thread (see `FileWatcher`).
/// - **One start at a time**: at most one watcher is being started (its initial walk) at a
///   time; a subscriber arriving meanwhile waits for it instead of walking the tree again.
/// - **Failure**: when the watcher cannot start, `add` throws and the subscriber is not kept.
///
/// Callbacks may call `remove` (it stops without waiting on itself) but must not block on a
/// thread that is inside `add` or `remove`. The root is that of the `add` that starts the
/// watcher, until `retarget` moves it (the workspace moved to another storage root): the
/// subscribers stay, and from then on only changes under the new root reach them.
public final class OnDemandWatcher<Key: Hashable & Sendable, Subscriber: Sendable>: Sendable {
    /// What the watcher reports: a batch of changes, or an overflow (anything may have changed).
    public enum Event: Sendable {
        case changes([FileChange])
        case overflow
    }

    private struct State {
        var subscribers: [Key: Subscriber] = [:]
        var watcher: FileWatcher?
        /// The watcher whose callbacks are delivered: the one running or being started.
        var live: UInt64?
        var lastToken: UInt64 = 0
        /// The root the running watcher watches.
        var root: String?
    }

    /// A `retarget` whose new watcher could not start: the subscribers it had are removed
    /// (none is kept unwatched) and named here, so their holder can tell them.
    public struct RetargetFailure: Error {
        public let error: FileWatcherError
        public let dropped: [Key: Subscriber]
    }

    private let state = Mutex(State())
    /// Held while a watcher is being started, never by callbacks nor while stopping one.
    private let starting = Mutex(())
    private let latencyMilliseconds: Int
    private let ignore: @Sendable (String) -> Bool
    private let deliver: @Sendable (Event, [Key: Subscriber]) -> Void
    private let diagnostics: (@Sendable (String) -> Void)?

    /// `ignore`, `latencyMilliseconds` and `diagnostics` are passed to every `FileWatcher`
    /// started; `deliver` receives each event with the subscribers present at that moment
    /// (never empty), on the watcher's thread.
    public init(latencyMilliseconds: Int = 50,
                ignore: @escaping @Sendable (String) -> Bool,
                diagnostics: (@Sendable (String) -> Void)? = nil,
                deliver: @escaping @Sendable (Event, [Key: Subscriber]) -> Void) {
        self.latencyMilliseconds = latencyMilliseconds
        self.ignore = ignore
        self.deliver = deliver
        self.diagnostics = diagnostics
    }

    /// Adds (or replaces) the subscriber under `key`, starting a watcher of `root` if none runs.
    public func add(_ key: Key, _ subscriber: Subscriber, root: String) throws(FileWatcherError) {
        state.withLock { $0.subscribers[key] = subscriber }
        var discarded: FileWatcher?
        defer { discarded?.stop() }   // outside both locks: stop waits for a running callback
        try starting.withLock { _ throws(FileWatcherError) in
            // A watcher started (or this subscriber left) while we waited: nothing to start.
            let token = state.withLock { s -> UInt64? in
                guard s.watcher == nil, s.subscribers[key] != nil else { return nil }
                s.lastToken += 1
                s.live = s.lastToken
                return s.lastToken
            }
            guard let token else { return }
            let watcher: FileWatcher
            do throws(FileWatcherError) {
                watcher = try start(root: root, token: token)
            } catch {
                state.withLock { s in
                    s.subscribers[key] = nil
                    if s.live == token { s.live = nil }
                }
                throw error
            }
            if !install(watcher, token: token, root: root) { discarded = watcher }
        }
    }

    /// Moves the watcher to `root` (the workspace's storage root changed), keeping every
    /// subscriber, each first passed through `update` (to restate what it names in the new
    /// root). When `root` is already the one watched, nothing changes and `update` is not
    /// called; with no subscriber, nothing runs and the next `add` starts on its own root.
    /// Once it returns, every change under the new root reaches the subscribers and none from
    /// the old one does (the old watcher's late batches are dropped). When the new watcher
    /// cannot start, the subscribers present are removed and thrown back (`RetargetFailure`).
    /// Returns whether subscribers were moved.
    @discardableResult
    public func retarget(root: String, update: (Key, Subscriber) -> Subscriber = { $1 }) throws(RetargetFailure) -> Bool {
        var discarded: [FileWatcher] = []
        defer { for w in discarded { w.stop() } }   // outside both locks, as in `add`
        return try starting.withLock { _ throws(RetargetFailure) -> Bool in
            let moving = state.withLock { s -> (token: UInt64, keys: [Key])? in
                guard s.root != root || s.watcher == nil else { return nil }
                if let old = s.watcher { discarded.append(old) }
                s.watcher = nil
                s.root = nil
                s.live = nil
                guard !s.subscribers.isEmpty else { return nil }
                for (k, v) in s.subscribers { s.subscribers[k] = update(k, v) }
                s.lastToken += 1
                s.live = s.lastToken
                return (s.lastToken, Array(s.subscribers.keys))
            }
            guard let moving else { return false }
            let watcher: FileWatcher
            do throws(FileWatcherError) {
                watcher = try start(root: root, token: moving.token)
            } catch {
                let dropped = state.withLock { s -> [Key: Subscriber] in
                    if s.live == moving.token { s.live = nil }
                    var dropped: [Key: Subscriber] = [:]
                    for k in moving.keys { dropped[k] = s.subscribers.removeValue(forKey: k) }
                    return dropped
                }
                throw RetargetFailure(error: error, dropped: dropped)
            }
            let kept = install(watcher, token: moving.token, root: root)
            if !kept { discarded.append(watcher) }
            return kept
        }
    }

    /// Keeps a watcher just started with `token` as the running one, unless every subscriber
    /// left meanwhile (then it is not kept: the caller stops it outside the locks). `starting` held.
    private func install(_ watcher: FileWatcher, token: UInt64, root: String) -> Bool {
        state.withLock { s -> Bool in
            guard !s.subscribers.isEmpty else {
                if s.live == token { s.live = nil }
                return false
            }
            s.watcher = watcher
            s.live = token
            s.root = root
            return true
        }
    }

    /// The root being watched (nil while no watcher runs).
    public var root: String? { state.withLock { $0.root } }

    private func start(root: String, token: UInt64) throws(FileWatcherError) -> FileWatcher {
        try FileWatcher(
            root: root, latencyMilliseconds: latencyMilliseconds, ignore: ignore,
            onChanges: { [weak self] in self?.handle(.changes($0), from: token) },
            onOverflow: { [weak self] in self?.handle(.overflow, from: token) },
            diagnostics: diagnostics)
    }

    /// Removes the subscriber under `key` (nothing if absent); stops the watcher when it was the last.
    public func remove(_ key: Key) {
        let stopping = state.withLock { s -> FileWatcher? in
            s.subscribers[key] = nil
            guard s.subscribers.isEmpty, let w = s.watcher else { return nil }
            s.watcher = nil
            s.live = nil
            s.root = nil
            return w
        }
        stopping?.stop()
    }

    /// Whether a watcher is running (started and kept).
    public var isRunning: Bool { state.withLock { $0.watcher != nil } }

    /// The subscribers now.
    public var subscribers: [Key: Subscriber] { state.withLock { $0.subscribers } }

    private func handle(_ event: Event, from token: UInt64) {
        let current = state.withLock { $0.live == token ? $0.subscribers : [:] }
        if !current.isEmpty { deliver(event, current) }
    }
}
