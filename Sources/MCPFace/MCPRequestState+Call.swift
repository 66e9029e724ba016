import BridgeServer
import JSON
import JSONRPC
import SystemSupport

/// The two ends of a `tools/call` that asks for input in the 2026-07-28 era (approvals and
/// device confirmations alike): the `input_required` answer carrying a signed state, and the
/// retry's state verified against the call it comes back with.
extension MCPRequestState {
    static let expectedOnRetry = "a requestState this server issued for this call, unexpired"

    /// When a state issued now expires (`--approval-timeout`).
    static func expiry(_ services: Services) -> Int64 {
        WallClock.nanos() / 1_000_000 + services.configuration.mcpApprovalTimeout.milliseconds
    }

    /// The `input_required` result asking one `elicitation/create` (`params`) under `name`, with
    /// `state` signed by this process's key.
    static func inputRequired(_ name: String, params: JSON, state: MCPRequestState, _ call: Call) throws -> JSON {
        ["resultType": "input_required",
         "inputRequests": .object([name: ["method": "elicitation/create", "params": params]]),
         "requestState": .string(try state.encoded(key: call.mcp().approvals.key))]
    }

    /// The state a retry of `tools/call` carries, verified: signed by this process, unexpired, and
    /// for this very call (tool, arguments' digest, session); otherwise `-32602` naming why.
    static func verified(_ text: String, tool: String, digest: () throws -> String, session: String,
                         _ call: Call) throws -> MCPRequestState {
        let state: MCPRequestState
        let key = try call.mcp().approvals.key
        do {
            state = try decode(text, key: key, nowMs: WallClock.nanos() / 1_000_000)
        } catch {
            throw RPCError.invalidParams(field: "requestState", expected: expectedOnRetry, got: error.reason)
        }
        let mismatch: String? = state.method != CallMCPTool.method ? "a requestState for \(state.method)"
            : state.tool != tool ? "a requestState for the tool \(state.tool)"
            : state.argumentsDigest != (try digest()) ? "a requestState for other arguments"
            : state.session != session ? "a requestState for another session" : nil
        if let mismatch { throw RPCError.invalidParams(field: "requestState", expected: expectedOnRetry, got: mismatch) }
        return state
    }
}
