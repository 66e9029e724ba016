import Synchronization

/// The LSP lifecycle of one connection: uninitialized → running → shut down.
///
/// Read and changed only by the router on the reader thread and by inline lifecycle
/// handlers (which also run there); the lock makes reads from other threads safe.
final class Lifecycle: Sendable {
    enum Phase: Sendable { case uninitialized, running, shutDown }

    private let phase = Mutex(Phase.uninitialized)
    private let mcp = Mutex(false)

    var current: Phase { phase.withLock { $0 } }

    func set(_ p: Phase) { phase.withLock { $0 = p } }

    /// True once an MCP `initialize` switched the connection to MCP's method table.
    var isMCP: Bool { mcp.withLock { $0 } }
    func setMCP() { mcp.withLock { $0 = true } }
}
