/// Watches a directory tree and reports changes in coalesced batches, for LSP's
/// `workspace/didChangeWatchedFiles`-style notifications.
///
/// Guarantees:
/// - **Coverage**: every directory under the root is watched, including ones created or
///   moved in later; their existing entries are reported `created` when they appear.
///   Symbolic links are reported as entries and never followed. Paths for which `ignore`
///   returns true are never reported, and ignored directories are not descended into.
/// - **Batches**: the first event of a burst opens a batch that is delivered
///   `latencyMilliseconds` later (a long burst is delivered in slices of that length). A
///   batch holds at most one change per path (created+changed → created, created+deleted →
///   nothing, deleted+created → changed, repeats → once), sorted by the path's UTF-8 bytes.
/// - **Threads**: all callbacks, `ignore` included, run one at a time on the watcher's own
///   thread (Linux: a dedicated OS thread; macOS: a private serial dispatch queue), except
///   that `ignore` also runs on the caller's thread during `init` (initial walk). Batches
///   are delivered in the order the events happened.
/// - **Overflow**: when events were lost (kernel queue overflow, or no inotify watches
///   left; the latter reported once) `onOverflow` runs after any pending batch; the client
///   should rescan. The watcher keeps running and re-establishes its watches.
/// - **Stopping**: `stop()` is idempotent, may be called from any thread including a
///   callback, and once it returns no callback runs (from another thread it waits for a
///   running callback to finish, so a callback must not block on a thread that is inside
///   `stop()`). Releasing the last reference stops the watcher too.
public final class FileWatcher: Sendable {
    private let backend: any WatcherBackend

    /// Starts watching `root` recursively. `ignore(relativePath)` returns true for paths whose
    /// events must never be reported (the server's own temp files, e.g. names matching
    /// `.syncthing.*.tmp`, and its private `.workspace/` folder); ignored directories are not
    /// descended into. `onChanges` is called on the watcher's own thread with a coalesced,
    /// de-duplicated batch at most every `latencyMilliseconds` after the first event of a
    /// burst; `onOverflow` when the kernel queue overflowed (the client should rescan).
    /// `diagnostics` receives rare human-readable notes (unreadable folders, names that are
    /// not UTF-8); nothing is logged otherwise.
    ///
    /// The initial walk happens before `init` returns, so every change made after it is seen.
    /// Throws when the root cannot be opened or watched.
    public init(root: String, latencyMilliseconds: Int = 50,
                ignore: @escaping @Sendable (String) -> Bool,
                onChanges: @escaping @Sendable ([FileChange]) -> Void,
                onOverflow: @escaping @Sendable () -> Void,
                diagnostics: (@Sendable (String) -> Void)? = nil) throws(FileWatcherError) {
        let callbacks = WatcherCallbacks(ignore: ignore, onChanges: onChanges,
                                         onOverflow: onOverflow, diagnostics: diagnostics)
        #if os(Linux)
        backend = try InotifyBackend(root: root, latencyMilliseconds: latencyMilliseconds,
                                     callbacks: callbacks)
        #elseif canImport(CoreServices)
        backend = try FSEventsBackend(root: root, latencyMilliseconds: latencyMilliseconds,
                                      callbacks: callbacks)
        #else
        _ = callbacks
        throw .unsupportedPlatform
        #endif
    }

    /// Stops watching. Idempotent; after it returns no callback runs.
    public func stop() {
        backend.stop()
    }

    deinit {
        backend.stop()
    }

    #if os(Linux)
    /// Test hook: feeds raw inotify records to the watcher thread as if read from the kernel.
    func injectForTesting(_ events: [InotifyEvent]) {
        (backend as? InotifyBackend)?.inject(events.flatMap { $0.encoded() })
    }
    #endif
}
