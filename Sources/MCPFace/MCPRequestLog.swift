import BridgeServer
import JSON
import JSONRPC
import Logging

/// The 2026-07-28 era's logging, per request (logging.mdx; `logging/setLevel` is gone): one
/// `debug` line per modern request naming the method, the tool and the outcome (like every line
/// logged while serving the request, it carries the request's trace context: `MCPTraceContext`).
/// The same line goes to the client as `notifications/message`, before the response, only when
/// that request's `_meta` asked for `debug`; a request that did not ask gets no log message at all.
enum MCPRequestLog {
    static func record(_ call: Call, _ envelope: MCPEnvelope, method: String, outcome: @autoclosure () -> String) {
        // Nothing to build when neither stderr nor the client wants the line (the common case).
        guard let ctx = call.request, ctx.logger.logLevel <= .debug || envelope.logLevel == "debug" else { return }
        let outcome = outcome()
        let tool = method == "tools/call" ? ctx.params?["name"]?.stringValue : nil
        let subject = tool.map { "\(method) \($0)" } ?? method
        ctx.logger.debug("mcp \(subject): \(outcome)")
        guard envelope.logLevel == "debug" else { return }
        var data: JSONObject = ["method": .string(method), "outcome": .string(outcome)]
        if let tool { data["tool"] = .string(tool) }
        ctx.notify("notifications/message", ["level": "debug", "logger": "workspace-bridge", "data": .object(data)])
    }

    /// "ok", or for a tool call that ended `isError`, "isError" and its `code` (`MCPToolAnswer`).
    static func outcome<R: MethodResult>(of answer: R) -> String {
        (answer as? MCPToolAnswer)?.outcome ?? "ok"
    }
}
