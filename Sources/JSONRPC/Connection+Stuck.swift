#if canImport(Glibc)
import SystemSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JSON

/// What the connection does about requests that do not finish: `shutdown` waits for them a
/// bounded time (`drain`), end of input and `exit` name them on stderr before ending (`run()`).
extension Connection {
    /// One request still in flight, as `drain` and the end-of-input report name it.
    public struct Pending: Sendable, CustomStringConvertible {
        public var method: String
        public var id: RequestID?
        /// Seconds since its handler started; nil while it waits for an earlier request.
        public var runningSeconds: Double?

        public var description: String {
            let who = "\(method) (id \(id.map(String.init(describing:)) ?? "none"))"
            guard let s = runningSeconds else { return "\(who) waiting for an earlier request" }
            return "\(who) running for \(Decimal1.text(s)) s"
        }
    }

    /// For `shutdown`: waits until every request admitted before `context`'s is answered (or,
    /// for a notification, finished), at most `exitGrace`; returns the ones still pending
    /// (the end of the connection then does not wait for them again).
    public func drain(before context: RequestContext) -> [Pending] {
        let deadline = MonotonicClock.nanos() &+ options.exitGrace.clampedNanoseconds
        while true {
            let left = pending(before: context)
            if left.isEmpty { return left }
            if MonotonicClock.nanos() >= deadline {
                drainGaveUp.store(true, ordering: .releasing)
                return left
            }
            usleep(2_000)
        }
    }

    /// Requests admitted before `context`'s (all of them when nil) and not yet answered.
    func pending(before context: RequestContext?) -> [Pending] {
        let now = MonotonicClock.nanos()
        return state.withLock { s in
            var out: [Pending] = []
            for job in s.jobs {
                if let context, job.context === context { break }
                if job.isAnswerSent { continue }
                out.append(Pending(method: job.context.method, id: job.context.id,
                                   runningSeconds: job.startedAt == 0 ? nil : Double(now &- job.startedAt) / 1e9))
            }
            return out
        }
    }

    /// Names the requests still in flight on stderr, one line each, written directly (the
    /// logger may forward to the client, which may be gone), with the status the process ends with.
    func reportStuck(at moment: String, after grace: Duration, exitStatus: Int32) {
        let left = state.withLock { s in s.jobs.count }
        let pending = pending(before: nil)
        var lines = "workspace-bridge: \(moment): \(left) request(s) still in flight after the "
            + "\(grace.secondsText) s grace, abandoned (exit status \(exitStatus))" + ":\n"
        for p in pending { lines += "workspace-bridge:   \(p)\n" }
        if pending.count < left {
            lines += "workspace-bridge:   \(left - pending.count) cancelled request(s) still stuck in their handler\n"
        }
        _ = FileIO.writeAll(2, Array(lines.utf8))
    }


    static func dispatchInterval(_ d: Duration) -> DispatchTimeInterval {
        .nanoseconds(Int(clamping: d.clampedNanoseconds))
    }

    /// A short account of an answer, for the log line of a result discarded after a cancel.
    static func describeAnswer(_ answer: JSON) -> String {
        if let e = answer["error"] { return "error \(e["code"]?.intValue.map(String.init) ?? "?")" }
        return "a result"
    }
}
