/// What `FileWatcher` needs from a platform implementation.
protocol WatcherBackend: Sendable {
    /// Idempotent; after it returns no callback runs.
    func stop()
}

/// The callbacks and settings one watcher was started with.
struct WatcherCallbacks: Sendable {
    let ignore: @Sendable (String) -> Bool
    let onChanges: @Sendable ([FileChange]) -> Void
    let onOverflow: @Sendable () -> Void
    let diagnostics: (@Sendable (String) -> Void)?

    func diagnose(_ message: @autoclosure () -> String) {
        diagnostics?(message())
    }
}
