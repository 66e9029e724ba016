#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization

/// The single writer of protocol bytes.
///
/// Every message is framed and written whole, under one lock, so messages never interleave.
/// While the reader is working through one read's worth of input it "corks" the channel:
/// replies are gathered and written with one system call when it uncorks, which is what
/// makes pipelined requests cheap. A write blocks while the client is not reading
/// (back-pressure); after the client has gone (EPIPE), output is discarded.
public final class OutputChannel: Sendable {
    private struct State {
        var framing: Framing
        var pending: [UInt8] = []
        var corked = false
        var broken = false
    }

    private let fd: Int32
    private let state: Mutex<State>

    public init(fd: Int32, framing: Framing) {
        self.fd = fd
        self.state = Mutex(State(framing: framing))
    }

    /// Sets the framing once the client's first byte has decided it.
    public func setFraming(_ framing: Framing) {
        state.withLock { $0.framing = framing }
    }

    public var isBroken: Bool { state.withLock { $0.broken } }

    /// Encodes and sends one message.
    public func send(_ message: JSON) {
        let body = JSONCodec.encode(message)
        state.withLock { s in
            s.framing.frame(body, into: &s.pending)
            if !s.corked { flushLocked(&s) }
        }
    }

    /// Writes anything gathered so far, even while corked (for exits outside the read loop).
    public func flushNow() {
        state.withLock { flushLocked(&$0) }
    }

    func cork() { state.withLock { $0.corked = true } }

    func uncork() {
        state.withLock { s in
            s.corked = false
            flushLocked(&s)
        }
    }

    private func flushLocked(_ s: inout State) {
        defer { s.pending.removeAll(keepingCapacity: s.pending.capacity <= 1 << 20) }
        guard !s.broken, !s.pending.isEmpty else { return }
        let ok = s.pending.withUnsafeBytes { raw -> Bool in
            var off = 0
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return false
                }
                off += n
            }
            return true
        }
        if !ok { s.broken = true }
    }
}
