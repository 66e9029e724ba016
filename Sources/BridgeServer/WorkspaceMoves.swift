import Logging
import Synchronization
import Workspace

/// Something that watches the active workspace for a client and must follow it when the
/// storage choice moves it to another root (`watchFiles`, `resources/subscribe`,
/// `subscriptions/listen`).
package protocol FollowsWorkspace: Sendable {
    /// Moves what it watches to `workspace`'s root. Throws when it cannot watch there; it has
    /// then told (or dropped) its own subscribers, so nothing is left unwatched.
    func follow(_ workspace: Workspace) throws
}

/// The one seam through which a change of the active root reaches every watcher of the
/// workspace: whoever changes (or notices a change of) the storage choice calls `announce`,
/// and every follower moves, in the order given.
///
/// Guarantees: every follower is told, even when an earlier one fails; the first failure is
/// thrown after all were told (so `chooseStorage` keeps reporting a watch it could not move).
/// Announcing the root already followed changes nothing.
package final class WorkspaceMoves: Sendable {
    private let followers: Mutex<[any FollowsWorkspace]>
    private let logger: Logger

    init(_ followers: [any FollowsWorkspace], logger: Logger) {
        self.followers = Mutex(followers)
        self.logger = logger
    }

    /// A face's followers, told before the core's (in the order given): a face's session may be
    /// what the move's notifications prompt calls into.
    func admitFirst(_ faceFollowers: [any FollowsWorkspace]) {
        followers.withLock { $0 = faceFollowers + $0 }
    }

    func announce(_ workspace: Workspace) throws {
        var first: (any Error)?
        for f in followers.withLock({ $0 }) {
            do {
                try f.follow(workspace)
            } catch {
                logger.error("cannot follow the workspace to \(workspace.rootPath): \(error)")
                if first == nil { first = error }
            }
        }
        if let first { throw first }
    }
}
