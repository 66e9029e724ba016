import AgentSessions
import JSON
import SystemSupport

// The protocol's forms of the session store's policies and reports (retention, device
// conditions, approvals, statistics, an import's omissions), declared with the methods that
// answer them as the session values are (`SessionValueResults.swift`): `AgentSessions` keeps
// typed values, and the stored form where a file or journal holds one. Each field list is the
// order the fields are sent in; an optional field without a value is left out.

/// `{maxBytesPerSession?, keepCompactedOriginalsSeconds?, keepEndedSessions?}`: only the limits
/// that are set.
extension RetentionPolicy: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("maxBytesPerSession", \.maxBytesPerSession),
        .field("keepCompactedOriginalsSeconds", \.keepCompactedOriginalsSeconds),
        .field("keepEndedSessions", \.keepEndedSessions),
    ]
}

/// `{sessions, deletedSessions}`.
extension PruneReport: ObjectResult {
    package static let fields: [ResultField<Self>] = [.field("sessions", \.sessions), .field("deletedSessions", \.deletedSessions)]
}

/// `{id, bytesBefore, bytesAfter, droppedOriginals, droppedMessages}`.
extension PrunedSession: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("id", \.id), .field("bytesBefore", \.bytesBefore), .field("bytesAfter", \.bytesAfter),
        .field("droppedOriginals", \.droppedOriginals), .field("droppedMessages", \.droppedMessages),
    ]
}

/// `{decidedApprovals, rememberedDecisions}`.
extension NotImported: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("decidedApprovals", \.decidedApprovals), .field("rememberedDecisions", \.rememberedDecisions),
    ]
}

/// `{network, isExpensive, isConstrained, batteryLevel?, isCharging, isLowPowerMode, thermalState?}`
/// (`host/getConditions`, and the shared conditions file, `SharedConditions`).
extension DeviceConditions: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("network", \.network.rawValue), .field("isExpensive", \.isExpensive), .field("isConstrained", \.isConstrained),
        .field("batteryLevel", \.batteryLevel), .field("isCharging", \.isCharging), .field("isLowPowerMode", \.isLowPowerMode),
        .field("thermalState", \.thermalState?.rawValue),
    ]
}

/// `{deferHeavyWork, maxModelTier, allowNetworkTools, reasons, message?}`.
extension Policy: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("deferHeavyWork", \.deferHeavyWork), .field("maxModelTier", \.maxModelTier.rawValue),
        .field("allowNetworkTools", \.allowNetworkTools), .field("reasons", \.reasons), .field("message", \.message),
    ]
}

/// `{allowed: true}` or `{allowed: false, reason, confirmable, message}`.
extension WorkDecision: ObjectResult {
    private var deferral: (reason: String, confirmable: Bool, message: String)? {
        guard case .deferred(let reason, let confirmable, let message) = self else { return nil }
        return (reason, confirmable, message)
    }

    package static let fields: [ResultField<Self>] = [
        .field("allowed", \.isAllowed), .field("reason", { $0.deferral?.reason }),
        .field("confirmable", { $0.deferral?.confirmable }), .field("message", { $0.deferral?.message }),
    ]
}

/// `"none"`, `"destructive"` or `{tools, annotations}` (each sorted): the form the journal holds
/// too, read back by `ApprovalPolicy(reading:)` (the protocol's parser, `ApprovalPolicyParam`).
extension ApprovalPolicy: ResultValue {
    /// A rules policy's object.
    private struct Rules: ObjectResult {
        var tools: Set<String>
        var annotations: Set<String>
        static let fields: [ResultField<Self>] = [.field("tools", { $0.tools.sorted() }), .field("annotations", { $0.annotations.sorted() })]
    }

    package var json: JSON {
        switch self {
        case .none: "none"
        case .destructive: "destructive"
        case .rules(let tools, let annotations): Rules(tools: tools, annotations: annotations).json
        }
    }

    /// A string or an object.
    package static var jsonType: String? { nil }
}

/// `session/stats`: `{id, turns, totals, unattributed?}`; `unattributed` (`{inputTokens,
/// outputTokens}`) only when the session holds usage from before its journal's records.
extension SessionStats: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("id", \.sessionId), .field("turns", \.turns), .field("totals", \.totals),
        .field("unattributed", { s in
            s.unattributedInputTokens > 0 || s.unattributedOutputTokens > 0
                ? Tokens(inputTokens: s.unattributedInputTokens, outputTokens: s.unattributedOutputTokens) : nil
        }),
    ]

    struct Tokens: ObjectResult {
        var inputTokens: Int
        var outputTokens: Int
        static let fields: [ResultField<Self>] = [.field("inputTokens", \.inputTokens), .field("outputTokens", \.outputTokens)]
    }
}

/// One turn's statistics (or their totals): `{userMessageId?, startedAt?, messages, usage,
/// toolCalls}`.
extension TurnStats: ObjectResult {
    package static let fields: [ResultField<Self>] = [
        .field("userMessageId", \.userMessageId), .field("startedAt", { $0.startedAtNanos.map(Timestamp.iso8601(nanos:)) }),
        .field("messages", \.messages), .field("usage", TurnUsage.init), .field("toolCalls", ToolCalls.init),
    ]

    /// `{inputTokens, outputTokens, modelCalls, estimatedCostUSD, byModel: [{model, inputTokens,
    /// outputTokens}]}`, the models sorted by name.
    struct TurnUsage: ObjectResult {
        var turn: TurnStats
        static let fields: [ResultField<Self>] = [
            .field("inputTokens", \.turn.inputTokens), .field("outputTokens", \.turn.outputTokens),
            .field("modelCalls", \.turn.modelCalls), .field("estimatedCostUSD", \.turn.costUSD),
            .field("byModel", { u in
                u.turn.byModel.keys.sorted().map { m in
                    let t = u.turn.byModel[m] ?? (0, 0)
                    return ModelTokens(model: m, inputTokens: t.input, outputTokens: t.output)
                }
            }),
        ]
    }

    struct ModelTokens: ObjectResult {
        var model: String
        var inputTokens: Int
        var outputTokens: Int
        static let fields: [ResultField<Self>] = [
            .field("model", \.model), .field("inputTokens", \.inputTokens), .field("outputTokens", \.outputTokens),
        ]
    }

    /// `{count, byName, byOutcome}`, each count object's keys sorted.
    struct ToolCalls: ObjectResult {
        var turn: TurnStats
        static let fields: [ResultField<Self>] = [
            .field("count", \.turn.toolCalls), .field("byName", { Counts($0.turn.toolCallsByName) }),
            .field("byOutcome", { Counts($0.turn.toolCallsByOutcome) }),
        ]
    }

    /// Counts by name: `{name: count}`, the names sorted.
    struct Counts: ResultValue {
        var counts: [String: Int]
        init(_ counts: [String: Int]) { self.counts = counts }
        var json: JSON { .object(JSONObject(counts.keys.sorted().map { ($0, JSON(counts[$0] ?? 0)) })) }
        static var jsonType: String? { "object" }
    }
}
