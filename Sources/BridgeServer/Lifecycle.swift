import Synchronization

/// The LSP lifecycle of one connection: uninitialized → initializing → running → shut down.
///
/// `initializing` starts on the reading thread when `initialize` is admitted (its `prepare`),
/// so the messages after it are routed as in `running` (they wait for `initialize`, which is a
/// barrier, except the control messages); its handler, on the pool, ends it. The lock makes
/// reads from any thread safe.
package final class Lifecycle: Sendable {
    package enum Phase: Sendable { case uninitialized, initializing, running, shutDown }

    private let phase = Mutex(Phase.uninitialized)
    private let face = Mutex<FaceID?>(nil)

    package var current: Phase { phase.withLock { $0 } }

    func set(_ p: Phase) { phase.withLock { $0 = p } }

    /// `initialize` admitted: the connection speaks `face` from now on.
    func beginInitializing(face chosen: FaceID) {
        phase.withLock { $0 = .initializing }
        face.withLock { $0 = chosen }
    }

    /// `initialize` answered: running when it succeeded, uninitialized again (a client may
    /// retry) when it failed; a `shutdown` that came meanwhile stays in force.
    func endInitializing(succeeded: Bool) {
        phase.withLock { p in
            if p == .initializing { p = succeeded ? .running : .uninitialized }
        }
        if !succeeded { face.withLock { $0 = nil } }
    }

    /// The face the connection speaks: chosen by `initialize`, or by a face's own request that
    /// needs no handshake (`choose`); nil before either.
    var chosenFace: FaceID? { face.withLock { $0 } }
    /// Whether the connection speaks `id`.
    package func speaks(_ id: FaceID) -> Bool { chosenFace == id }
    package func choose(_ id: FaceID) { face.withLock { $0 = id } }
}
