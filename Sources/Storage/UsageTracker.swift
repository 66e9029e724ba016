import Synchronization
import Workspace

/// Keeps the file count and byte total of one workspace current without walking the tree on
/// every question: one walk at the start, then each reported change is applied by looking at
/// that path alone.
///
/// Thread-safe. `apply` is fed by a file watcher; `totals` is O(1) after the first walk.
public final class UsageTracker: Sendable {
    private struct State { var sizes: [String: Int64] = [:]; var bytes: Int64 = 0; var walked = false }
    private let state = Mutex(State())
    public let workspace: Workspace

    public init(workspace: Workspace) { self.workspace = workspace }

    public func totals() -> (files: Int, bytes: Int64) {
        if !state.withLock({ $0.walked }) { rescan() }
        return state.withLock { ($0.sizes.count, $0.bytes) }
    }

    /// Walks the whole tree again (at the start, and after a watcher overflow).
    public func rescan() {
        var sizes: [String: Int64] = [:]
        var bytes: Int64 = 0
        try? workspace.forEachFile { p, n in
            sizes[p.string] = n
            bytes += n
        }
        state.withLock { s in
            s.sizes = sizes
            s.bytes = bytes
            s.walked = true
        }
    }

    /// Applies reported changes: each path is looked at again (a created folder is walked).
    public func apply(changedPaths: [String]) {
        guard state.withLock({ $0.walked }) else { return }
        for raw in changedPaths where !Workspace.isServerPrivate(relativePath: raw) {
            guard let path = try? WorkspacePath(raw) else { continue }
            let status = try? workspace.status(path)
            var added: [String: Int64] = [:]
            switch status?.type {
            case .file?: added[raw] = status?.size
            case .directory?: try? workspace.forEachFile(under: path) { p, n in added[p.string] = n }
            default: break
            }
            state.withLock { s in
                // Forget what was known at and under the path, then add what is there now.
                if let old = s.sizes.removeValue(forKey: raw) {
                    s.bytes -= old
                } else if status?.type != .file {
                    // Not a known file: it was (or is) a folder; drop what was under it.
                    let prefix = raw + "/"
                    let gone = s.sizes.filter { $0.key.hasPrefix(prefix) }
                    for (k, v) in gone {
                        s.sizes[k] = nil
                        s.bytes -= v
                    }
                }
                for (k, v) in added {
                    s.bytes += v - (s.sizes.updateValue(v, forKey: k) ?? 0)
                }
            }
        }
    }
}
