import BridgeServer
import JSON
import JSONRPC
import Synchronization

/// MCP's conventions for the connection: progress from `params._meta.progressToken`, sent as
/// `notifications/progress {progressToken, progress, total, message}`; a cancelled request gets
/// no answer at all (MCP: nothing more is sent for it); no `$/logTrace`.
enum MCPConventions {
    static let value = Connection.Conventions(
        progressToken: { $0?["_meta"]?["progressToken"] },
        progressNotifier: {
            let adapter = MCPProgress()
            return { value in adapter.convert(value).map { ("notifications/progress", $0) } }
        },
        answersCancelledRequests: false, traces: false)
}

/// Turns one request's LSP-style progress values into MCP's `notifications/progress` params,
/// keeping MCP's rule that `progress` increases with every notification: percentages are used
/// (with `total: 100`) when the work reports them, otherwise a count of reports (no total).
/// A value that would not increase is dropped.
final class MCPProgress: Sendable {
    private struct State { var last: Int64 = -1; var percent: Bool? }
    private let state = Mutex(State())

    func convert(_ value: JSON) -> JSON? {
        let v = value["value"] ?? .null
        let kind = v["kind"]?.stringValue ?? "report"
        let pct = v["percentage"]?.intValue
        let next: (Int64, Bool)? = state.withLock { s in
            if s.percent == nil, kind != "end" { s.percent = pct != nil }
            let usesPercent = s.percent ?? (pct != nil)
            let candidate: Int64 =
                if usesPercent { kind == "end" ? 100 : (pct ?? s.last) } else { s.last + 1 }
            guard candidate > s.last else { return nil }
            s.last = candidate
            return (candidate, usesPercent)
        }
        guard let (progress, usesPercent) = next else { return nil }
        var o: JSONObject = ["progressToken": value["token"] ?? .null, "progress": .int(progress)]
        if usesPercent { o["total"] = 100 }
        if let m = v["message"]?.stringValue ?? v["title"]?.stringValue { o["message"] = .string(m) }
        return .object(o)
    }
}
