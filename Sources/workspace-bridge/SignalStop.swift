#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONRPC
import SystemSupport

/// What SIGTERM, SIGINT and SIGHUP do to a server process (docs/decisions.md, "Signals (issue 16)").
///
/// The first one ends input (`Connection.endInput`): the process then ends exactly as at end of
/// input or `exit`, requests in flight answered within `--exit-grace` (the stuck ones named on stderr),
/// nothing new answered, the clean-exit work done, exit status 0 (1 when a request was
/// abandoned). A second one exits at once with 128 + its number, after waiting at most 100 ms for
/// a message being written so stdout still ends on a whole one.
enum SignalStop {
    /// The signals that stop the server gracefully.
    static let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks the signals in this thread and so in every later one: call before any thread starts.
    static func block() -> SignalWaiter { SignalWaiter.block(signals) }

    /// Starts taking the signals blocked by `waiter`, on a thread of their own; throws when
    /// that thread cannot be started (the server must not serve with the signals unheard).
    static func start(_ waiter: SignalWaiter, connection: Connection, grace: Duration) throws(OSThread.StartError) {
        try waiter.start { number in
            let name = SignalWaiter.name(of: number)
            if let inFlight = connection.endInput(reason: name) {
                if inFlight > 0 {
                    say("\(name): stopping: waiting at most \(grace.secondsText) s for \(inFlight) request(s) in flight (a second signal exits at once)")
                }
                return
            }
            let status = 128 + number
            say("\(name) again: exiting at once (exit status \(status))")
            _ = connection.output.closeNow(patienceMs: 100)
            _exit(status)
        }
    }

    /// One line on stderr, written directly: the logger may forward to the client, whose output
    /// may be blocked, and this thread must stay free for the next signal.
    private static func say(_ line: String) {
        _ = FileIO.writeAll(2, Array("workspace-bridge: \(line)\n".utf8))
    }

}
