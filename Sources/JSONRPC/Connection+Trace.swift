import SystemSupport
import JSON

/// LSP tracing: with `trace` `messages` or `verbose` (from `initialize` or `$/setTrace`) the
/// connection reports each request and notification it handled as `$/logTrace {message}`,
/// after the answer; `verbose` adds `verbose` (the params and the answer, each cut to
/// `verboseLimit` characters). With `off`, and under conventions without tracing (`Conventions.traces`), nothing is sent.
extension Connection {
    public enum Trace: UInt8, Sendable { case off, messages, verbose }

    /// The most characters of params, and of the answer, in one `verbose` field.
    static let verboseLimit = 1_000

    public func setTrace(_ trace: Trace) { traceLevel.store(trace.rawValue, ordering: .relaxed) }
    public var trace: Trace { Trace(rawValue: traceLevel.load(ordering: .relaxed)) ?? .off }

    /// Called after a handled message's answer (if any) was delivered.
    ///
    /// A message is traced at the level in force when it was read, never above the level now: one
    /// read before `$/setTrace` turned tracing on is not traced whenever it finishes, and turning
    /// tracing off silences every message still running. `$/setTrace` itself is traced at the
    /// level it set.
    func traceHandled(_ job: Job, answer: JSON?, abandoned: Bool = false) {
        let now = trace
        let level = job.context.method == "$/setTrace"
            ? now : Trace(rawValue: min(now.rawValue, job.traceAtAdmission.rawValue)) ?? .off
        guard level != .off, conventions.traces else { return }
        let context = job.context
        let elapsed = job.startedAt == 0 ? 0 : MonotonicClock.nanos() &- job.startedAt
        let ms = Decimal1.text(Double(elapsed) / 1e6)
        let outcome: String
        if abandoned {
            outcome = "cancelled while running (-32800); its handler is abandoned"
        } else if let e = answer?["error"] {
            outcome = "error \(e["code"]?.intValue.map(String.init) ?? "?") \(e["data"]?["code"]?.stringValue ?? "")"
        } else {
            outcome = context.id == nil ? "handled" : "answered"
        }
        let what = context.id.map { "request '\(context.method)' (id \(String(describing: $0)))" }
            ?? "notification '\(context.method)'"
        var params: JSONObject = ["message": .string("\(what): \(outcome) in \(ms) ms")]
        if level == .verbose {
            let p = context.params.map { Self.cut(JSONCodec.encodeString($0)) } ?? "none"
            var text = "params: \(p)"
            if let answer, !abandoned {
                text += "\nanswer: " + Self.cut(JSONCodec.encodeString(answer["result"] ?? answer["error"] ?? .null))
            }
            params["verbose"] = .string(text)
        }
        notify("$/logTrace", .object(params))
    }

    private static func cut(_ s: String) -> String {
        s.count <= verboseLimit ? s : String(s.prefix(verboseLimit)) + "…"
    }
}
