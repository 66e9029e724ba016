import Synchronization

/// The LSP lifecycle of one connection: uninitialized → initializing → running → shut down.
///
/// `initializing` starts on the reading thread when `initialize` is admitted (its `prepare`),
/// so the messages after it are routed as in `running` (they wait for `initialize`, which is a
/// barrier, except the control messages); its handler, on the pool, ends it. The lock makes
/// reads from any thread safe.
final class Lifecycle: Sendable {
    enum Phase: Sendable { case uninitialized, initializing, running, shutDown }

    private let phase = Mutex(Phase.uninitialized)
    private let mcp = Mutex(false)

    var current: Phase { phase.withLock { $0 } }

    func set(_ p: Phase) { phase.withLock { $0 = p } }

    /// `initialize` admitted: the connection speaks MCP from now on when `mcp`.
    func beginInitializing(mcp isMCP: Bool) {
        phase.withLock { $0 = .initializing }
        mcp.withLock { $0 = isMCP }
    }

    /// `initialize` answered: running when it succeeded, uninitialized again (a client may
    /// retry) when it failed; a `shutdown` that came meanwhile stays in force.
    func endInitializing(succeeded: Bool) {
        phase.withLock { p in
            if p == .initializing { p = succeeded ? .running : .uninitialized }
        }
        if !succeeded { mcp.withLock { $0 = false } }
    }

    /// True once an MCP `initialize` switched the connection to MCP's method table.
    var isMCP: Bool { mcp.withLock { $0 } }
    func setMCP() { mcp.withLock { $0 = true } }
}
