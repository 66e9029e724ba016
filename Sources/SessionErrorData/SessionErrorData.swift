import AgentSessions
import JSON
import SystemSupport

extension SessionError {
    /// The protocol's `error.data` fields of this failure (besides `code`), from its typed
    /// `details`: the one mapping every face sends (the JSON-RPC and MCP faces through
    /// `ErrorMapping`, the ACP face through `ACPErrors.store`), so a client sees the same keys, in
    /// the same order, whichever face it speaks. Times are ISO 8601.
    public var data: JSONObject {
        switch details {
        case .none: [:]
        case .id(let id): ["id": .string(id)]
        case .transition(let from, let to):
            ["from": .string(from.rawValue), "to": .string(to.rawValue),
             "allowed": .array(from.allowedTransitions.map { .string($0.rawValue) })]
        case .system(let code, let path):
            JSONObject([("errno", .int(Int64(code)))] + (path.map { [("path", JSON.string($0))] } ?? []))
        case .path(let path): ["path": .string(path)]
        case .toolCall(let sessionId, let toolCallId): ["id": .string(sessionId), "toolCallId": .string(toolCallId)]
        case .toolCallId(let toolCallId): ["toolCallId": .string(toolCallId)]
        case .toolCallOf(let toolCallId, let name): ["toolCallId": .string(toolCallId), "name": .string(name)]
        case .approvalOf(let toolCallId, let approvalId, let name):
            ["toolCallId": .string(toolCallId), "approvalId": .string(approvalId), "name": .string(name)]
        case .answered(let toolCallId, let decision): ["toolCallId": .string(toolCallId), "decision": .string(decision.rawValue)]
        case .budget(let sessionId, let error): ["id": .string(sessionId), "error": error]
        case .final(let sessionId, let state): ["id": .string(sessionId), "state": .string(state.rawValue)]
        case .message(let param, let id): JSONObject([(param, .string(id))])
        case .sessionCompaction(let sessionId, let compactionId): ["id": .string(sessionId), "compactionId": .string(compactionId)]
        case .compaction(let id, let reason):
            JSONObject([("compactionId", .string(id))] + (reason.map { [("reason", JSON.string($0))] } ?? []))
        case .lease(let owner, let expiresAt): ["owner": .string(owner), "expiresAt": .string(Timestamp.iso8601(nanos: expiresAt))]
        case .deferred(let reason, let queued, let confirmable):
            ["reason": .string(reason), "queued": .bool(queued), "confirmable": .bool(confirmable)]
        case .tooLarge(let limit, let size): ["limit": .int(limit), "size": .int(size)]
        case .limit(let reason, let limit, let size):
            JSONObject([("reason", .string(reason)), ("limit", .int(limit))] + (size.map { [("size", JSON.int($0))] } ?? []))
        case .field(let field): ["field": .string(field)]
        case .fieldReason(let field, let reason): ["field": .string(field), "reason": .string(reason)]
        case .reason(let reason): ["reason": .string(reason)]
        case .unimportable(let reason, let field, let id):
            JSONObject([("reason", .string(reason))] + (field.map { [("field", JSON.string($0))] } ?? [])
                + (id.map { [("id", JSON.string($0))] } ?? []))
        }
    }
}
