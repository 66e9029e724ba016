/// Folds the events of one batch into at most one change per path.
///
/// Rules, applied in event order: created then changed → created; created then deleted →
/// nothing; deleted then created → changed; changed then deleted → deleted; any repeat of a
/// kind → that kind once. A dictionary keeps each event O(1), so a burst of 100,000 events
/// costs one hash insert each.
struct ChangeCoalescer {
    private var pending: [String: FileChange.Kind] = [:]

    var isEmpty: Bool { pending.isEmpty }
    var count: Int { pending.count }

    mutating func add(_ path: String, _ kind: FileChange.Kind) {
        guard let previous = pending[path] else {
            pending[path] = kind
            return
        }
        switch (previous, kind) {
        case (.created, .deleted):
            pending[path] = nil          // appeared and vanished inside one batch
        case (.created, _):
            break                        // still new to the client
        case (.deleted, .created), (.deleted, .changed):
            pending[path] = .changed     // replaced: the client knew a file there before
        case (.changed, .deleted):
            pending[path] = .deleted
        case (.changed, _), (.deleted, .deleted):
            break
        }
    }

    /// Returns the batch sorted by the UTF-8 bytes of the path (the order `Workspace` lists
    /// in) and starts a new one.
    mutating func drain() -> [FileChange] {
        var batch = pending.map { FileChange(path: $0.key, kind: $0.value) }
        pending.removeAll(keepingCapacity: true)
        batch.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return batch
    }
}
