import Synchronization
import SystemSupport

/// Searches a list of files on every core and merges the results in list order.
///
/// Files are taken in increasing index order from a shared counter; workers stop taking new
/// files once the matches found reach the limit. Every file taken is finished, so the taken
/// files always form a prefix of the list, and the merged first `maxResults` matches are exactly
/// those a sequential search would return.
final class ParallelSearch: Sendable {
    let workspace: Workspace
    let options: Workspace.SearchOptions
    let files: [WorkspacePath]
    private let next = Atomic<Int>(0)
    private let found = Atomic<Int>(0)
    private let searched = Atomic<Int>(0)
    private let results: Mutex<[Int: [Workspace.SearchMatch]]> = Mutex([:])
    private let failure = Mutex<WorkspaceError?>(nil)
    /// Set with `failure`: the other workers stop too (a file half searched is not kept).
    private let failed = Atomic<Bool>(false)

    init(workspace: Workspace, options: Workspace.SearchOptions, files: [WorkspacePath]) {
        self.workspace = workspace
        self.options = options
        self.files = files
    }

    func run(isCancelled: @escaping @Sendable () -> Bool, progress: @escaping @Sendable (Int) -> Void) throws(WorkspaceError) {
        let workers = min(Parallel.cores, max(1, files.count / 8))
        Parallel.run(workers) { [self] worker in
            guard let matcher = try? options.matcher() else { return }
            let stop = { isCancelled() || self.failed.load(ordering: .relaxed) }
            while found.load(ordering: .relaxed) <= options.maxResults, !failed.load(ordering: .relaxed) {
                if isCancelled() {
                    failure.withLock { $0 = $0 ?? .cancelled(options.path) }
                    return
                }
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < files.count else { return }
                let ofFile: [Workspace.SearchMatch]?
                do throws(WorkspaceError) {
                    ofFile = try workspace.searchOne(files[i], matcher: matcher, limit: options.maxResults,
                                                    maxFileBytes: options.maxFileBytes, isCancelled: stop)
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                    failed.store(true, ordering: .relaxed)
                    return
                }
                if let matches = ofFile {
                    let n = searched.add(1, ordering: .relaxed).newValue
                    if !matches.isEmpty {
                        results.withLock { $0[i] = matches }
                        found.add(matches.count, ordering: .relaxed)
                    }
                    if worker == 0 { progress(n) }
                }
            }
        }
        if let f = failure.withLock({ $0 }) { throw f }
    }

    func result() -> Workspace.SearchResult {
        let byIndex = results.withLock { $0 }
        var matches: [Workspace.SearchMatch] = []
        var truncated = false
        for (_, found) in byIndex.sorted(by: { $0.key < $1.key }) {
            for m in found {
                if matches.count == options.maxResults { truncated = true; break }
                matches.append(m)
            }
            if truncated { break }
        }
        return Workspace.SearchResult(matches: matches, truncated: truncated, filesSearched: searched.load(ordering: .relaxed))
    }
}
