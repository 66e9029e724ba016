import AgentSessions
import JSON
import SystemSupport

// The protocol's forms of the values the session store hands out, declared with the methods that
// answer them (as the session object is, `SessionResults.swift`): `AgentSessions` keeps typed
// values and their journal form (`StoredForm`), the wire names and the ISO 8601 times live here.
// Each field list is the order the fields are sent in; an optional field without a value is left out.

private func iso(_ nanos: Int64) -> String { Timestamp.iso8601(nanos: nanos) }

/// `{id, role, content, toolCalls?, toolCallId?, metadata?, at, compaction?, compactedBy?}`.
extension Message: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("id", \.id), .field("role", \.role.rawValue), .field("content", \.content), .field("toolCalls", \.toolCalls),
        .field("toolCallId", \.toolCallId), .field("metadata", \.metadata), .field("at", \.at),
        .field("compaction", \.compaction), .field("compactedBy", \.compactedBy),
    ]
}

/// `{id, firstMessageId, throughMessageId, count, by, at, active, undoneAt?, originalsKept}`.
extension Compaction: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("id", \.id), .field("firstMessageId", \.firstMessageId), .field("throughMessageId", \.throughMessageId),
        .field("count", \.count), .field("by", \.by), .field("at", { iso($0.atNanos) }), .field("active", \.isActive),
        .field("undoneAt", { $0.undoneAtNanos.map(iso) }), .field("originalsKept", { $0.originalsDroppedAtNanos == nil }),
    ]
}

/// Where a fork came from: `{parentId, messageId?, at}` (the session object's `forkedAt`).
extension Lineage: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("parentId", \.parentId), .field("messageId", \.messageId), .field("at", { iso($0.atNanos) }),
    ]
}

/// `{approvalId, toolCallId, name, arguments, requestedAt, decision?, effect?, origin?}`.
extension Approval: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("approvalId", \.approvalId), .field("toolCallId", \.toolCallId), .field("name", \.name),
        .field("arguments", \.arguments), .field("requestedAt", { iso($0.requestedAtNanos) }),
        .field("decision", \.decision?.rawValue), .field("effect", \.effect?.rawValue), .field("origin", \.origin),
    ]
}

/// `{toolCallId, name, arguments, reason, at}`.
extension DeferredCall: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("toolCallId", \.toolCallId), .field("name", \.name), .field("arguments", \.arguments),
        .field("reason", \.reason), .field("at", { iso($0.atNanos) }),
    ]
}

/// The offline queue's item: `{id, kind, payload, idempotencyKey, requiresNetwork, status, attempts,
/// result?, error?, createdAt, updatedAt}`.
extension QueueItem: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("id", \.id), .field("kind", \.kind), .field("payload", \.payload), .field("idempotencyKey", \.idempotencyKey),
        .field("requiresNetwork", \.requiresNetwork), .field("status", \.status.rawValue), .field("attempts", \.attempts),
        .field("result", \.result), .field("error", \.error), .field("createdAt", { iso($0.createdAtNanos) }),
        .field("updatedAt", { iso($0.updatedAtNanos) }),
    ]
}

/// A session's `config`: only the members set (`{modelTier?, model?, maxInputTokens?,
/// maxOutputTokens?, maxTurns?, maxCostUSD?}`).
extension SessionConfig: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("modelTier", \.modelTier?.rawValue), .field("model", \.model), .field("maxInputTokens", \.maxInputTokens),
        .field("maxOutputTokens", \.maxOutputTokens), .field("maxTurns", \.maxTurns), .field("maxCostUSD", \.maxCostUSD),
    ]
}

/// `{inputTokens, outputTokens, turns, estimatedCostUSD}`.
extension Usage: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("inputTokens", \.inputTokens), .field("outputTokens", \.outputTokens), .field("turns", \.turns),
        .field("estimatedCostUSD", \.estimatedCostUSD),
    ]
}

/// What is left of each limit the session has: `{inputTokens?, outputTokens?, turns?, costUSD?}`.
extension BudgetRemaining: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("inputTokens", \.inputTokens), .field("outputTokens", \.outputTokens), .field("turns", \.turns),
        .field("costUSD", \.costUSD),
    ]
}

/// An unfinished tool call: `{toolCallId, name, arguments, status, startedAt?}`.
extension ToolCallRecord: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("toolCallId", \.toolCallId), .field("name", \.name), .field("arguments", \.arguments),
        .field("status", \.status.rawValue), .field("startedAt", { $0.startedAtNanos.map(iso) }),
    ]
}

/// A backgrounded session's last checkpoint: `{checkpointId, at, pendingToolCalls, partialResults}`.
extension BackgroundCheckpoint: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("checkpointId", \.checkpointId), .field("at", { iso($0.atNanos) }), .field("pendingToolCalls", \.pendingToolCalls),
        .field("partialResults", \.partialResults),
    ]
}
