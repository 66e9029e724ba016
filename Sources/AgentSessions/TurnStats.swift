import JSON
import SystemSupport

/// Statistics of one turn of a session, or of all of them: a turn starts at a user message and
/// holds everything the journal recorded until the next one (messages, usage, tool calls).
public struct TurnStats: Sendable, Equatable {
    /// The user message that opened the turn (`nil` for what came before the first one).
    public var userMessageId: String?
    public var startedAtNanos: Int64?
    public var messages = 0
    public var inputTokens = 0
    public var outputTokens = 0
    /// Usage records (model calls) in the turn.
    public var modelCalls = 0
    public var costUSD = 0.0
    /// Tokens by model (`session/recordUsage`'s `model`; usage recorded without one is under "").
    public var byModel: [String: (input: Int, output: Int)] = [:]
    /// Tool calls begun in the turn, by name, and by outcome (`ok`, `error`, `unfinished`).
    public var toolCallsByName: [String: Int] = [:]
    public var toolCallsByOutcome: [String: Int] = [:]

    public static func == (a: TurnStats, b: TurnStats) -> Bool { a.json == b.json }

    public var toolCalls: Int { toolCallsByName.values.reduce(0, +) }

    mutating func add(_ o: TurnStats) {
        messages += o.messages
        inputTokens += o.inputTokens
        outputTokens += o.outputTokens
        modelCalls += o.modelCalls
        costUSD += o.costUSD
        for (m, u) in o.byModel {
            let was = byModel[m] ?? (0, 0)
            byModel[m] = (was.input + u.input, was.output + u.output)
        }
        for (k, n) in o.toolCallsByName { toolCallsByName[k, default: 0] += n }
        for (k, n) in o.toolCallsByOutcome { toolCallsByOutcome[k, default: 0] += n }
    }

    /// `{userMessageId?, startedAt?, messages, usage: {inputTokens, outputTokens, modelCalls,
    /// estimatedCostUSD, byModel: [{model, inputTokens, outputTokens}]}, toolCalls: {count,
    /// byName, byOutcome}}`.
    public var json: JSON {
        var o = JSONObject()
        if let userMessageId { o["userMessageId"] = .string(userMessageId) }
        if let startedAtNanos { o["startedAt"] = .string(Timestamp.iso8601(nanos: startedAtNanos)) }
        o["messages"] = JSON(messages)
        let models: [JSON] = byModel.keys.sorted().map { m in
            let u = byModel[m] ?? (0, 0)
            return ["model": .string(m), "inputTokens": JSON(u.input), "outputTokens": JSON(u.output)]
        }
        o["usage"] = ["inputTokens": JSON(inputTokens), "outputTokens": JSON(outputTokens), "modelCalls": JSON(modelCalls),
                      "estimatedCostUSD": .double(costUSD), "byModel": .array(models)]
        o["toolCalls"] = ["count": JSON(toolCalls), "byName": Self.counts(toolCallsByName),
                          "byOutcome": Self.counts(toolCallsByOutcome)]
        return .object(o)
    }

    private static func counts(_ d: [String: Int]) -> JSON {
        var o = JSONObject()
        for k in d.keys.sorted() { o[k] = JSON(d[k] ?? 0) }
        return .object(o)
    }
}

/// `session/stats`' answer: every turn in order, their totals, and the usage the session holds
/// from before its journal's records (a rewritten or imported journal starts from totals, not
/// turns).
public struct SessionStats: Sendable, Equatable {
    public var sessionId: String
    public var turns: [TurnStats]
    public var totals: TurnStats
    public var unattributedInputTokens = 0
    public var unattributedOutputTokens = 0

    public var json: JSON {
        var o: JSONObject = ["id": .string(sessionId), "turns": .array(turns.map(\.json)), "totals": totals.json]
        if unattributedInputTokens > 0 || unattributedOutputTokens > 0 {
            o["unattributed"] = ["inputTokens": JSON(unattributedInputTokens), "outputTokens": JSON(unattributedOutputTokens)]
        }
        return .object(o)
    }
}
