import AgentSessions
import JSON
import Workspace
import JSONRPC
import SessionErrorData

/// The errors the ACP face itself answers with. Codes are ACP's (`ErrorCode` in the ACP schema:
/// JSON-RPC's, plus -32002 "resource not found", sent with `NotFound`); `data.code` is the typed
/// name from our contract (`schema/openrpc.json`, `ErrorData.code`).
enum ACPErrors {
    /// The agent exited, or could not be started, before it answered.
    static func agentUnavailable(_ why: String, method: String) -> RPCError {
        RPCError(code: ErrorCode.internalError,
                 message: "The agent is not running (\(why)); \(method) was not answered. The session is kept: the next request starts the agent again.",
                 dataCode: "AgentUnavailable", data: ["method": .string(method), "reason": .string(why)])
    }

    /// Too many requests are waiting for an answer from the other side (`limit` of them).
    static func busy(limit: Int) -> RPCError {
        RPCError(code: -32803, message: "\(limit) requests are already waiting for an answer; send this one again later",
                 dataCode: "ServerBusy", data: ["reason": "pendingRequests", "limit": .int(Int64(limit))])
    }

    /// The session went over its budget (`error`: the session's `{code, message, exceeded, usage, limits}`).
    static func budgetExceeded(_ id: String, _ error: JSON) -> RPCError {
        var data: JSONObject = ["sessionId": .string(id)]
        for k in ["exceeded", "usage", "limits"] { if let v = error[k] { data[k] = v } }
        return RPCError(code: -32803, message: "Session \(id) went over its budget (\(error["message"]?.stringValue ?? "BudgetExceeded")); it takes no more prompts",
                        dataCode: "BudgetExceeded", data: data)
    }

    /// A workspace refusal (the sandbox's own typed codes; ACP's -32002 for a missing file).
    static func workspace(_ e: WorkspaceError) -> RPCError {
        var data: JSONObject = [:]
        if let path = e.path { data["path"] = .string(path) }
        return RPCError(code: e.code == .notFound ? -32002 : -32803, message: e.message, dataCode: e.code.rawValue, data: data)
    }

    static func sessionNotFound(_ id: String) -> RPCError {
        RPCError(code: -32002, message: "No session \(id) in the workspace's session store", dataCode: "NotFound",
                 data: ["sessionId": .string(id)])
    }

    static func notInitialized(_ method: String) -> RPCError {
        .invalidRequest("\(method) before initialize: send initialize first")
    }

    static func invalidParams(_ field: String, _ expected: String) -> RPCError {
        .invalidParams(field: field, expected: expected)
    }

    /// A store failure (disk full, a session held by another device…), named as the store names it.
    static func store(_ e: SessionError) -> RPCError {
        RPCError(code: e.kind == .notFound ? -32002 : ErrorCode.internalError, message: e.message, dataCode: e.code, data: e.data)
    }
}
