#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import SystemSupport

/// Sends `$/progress` for one request's `workDoneToken`.
///
/// Guarantees: `begin` is sent at most once and first; `report`s are rate-limited to one per
/// `minimumInterval` (10 a second by default; reports inside the interval are dropped, as they
/// are superseded by the next one); `end` is sent exactly once if `begin` was, and always
/// before the request's response (the connection ends it if the handler did not).
public final class ProgressReporter: Sendable {
    public let token: JSON
    private let send: @Sendable (JSON) -> Void
    private let now: @Sendable () -> UInt64
    private let minimumInterval: UInt64
    private struct State { var begun = false; var ended = false; var lastReport: UInt64? }
    private let state = Mutex(State())

    public init(token: JSON, minimumIntervalNanos: UInt64 = 100_000_000,
                now: @escaping @Sendable () -> UInt64 = MonotonicClock.nanos,
                send: @escaping @Sendable (JSON) -> Void) {
        self.token = token
        self.minimumInterval = minimumIntervalNanos
        self.now = now
        self.send = send
    }

    public func begin(title: String, message: String? = nil, percentage: Int? = nil, cancellable: Bool = true) {
        let go = state.withLock { s -> Bool in
            if s.begun { return false }
            s.begun = true
            return true
        }
        guard go else { return }
        var v: JSONObject = ["kind": "begin", "title": .string(title), "cancellable": .bool(cancellable)]
        if let message { v["message"] = .string(message) }
        if let percentage { v["percentage"] = .int(Int64(percentage)) }
        emit(v)
    }

    public func report(message: String? = nil, percentage: Int? = nil) {
        let t = now()
        let go = state.withLock { s -> Bool in
            guard s.begun, !s.ended else { return false }
            if let last = s.lastReport, t - last < minimumInterval { return false }
            s.lastReport = t
            return true
        }
        guard go else { return }
        var v: JSONObject = ["kind": "report"]
        if let message { v["message"] = .string(message) }
        if let percentage { v["percentage"] = .int(Int64(max(0, min(100, percentage)))) }
        emit(v)
    }

    /// Ends the progress; afterwards nothing more is sent for this token, not even a `begin`.
    public func end(message: String? = nil) {
        let go = state.withLock { s -> Bool in
            defer { s.begun = true; s.ended = true }
            return s.begun && !s.ended
        }
        guard go else { return }
        var v: JSONObject = ["kind": "end"]
        if let message { v["message"] = .string(message) }
        emit(v)
    }

    private func emit(_ value: JSONObject) {
        send(["token": token, "value": .object(value)])
    }
}
