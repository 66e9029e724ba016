
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

    public static func == (a: TurnStats, b: TurnStats) -> Bool {
        a.userMessageId == b.userMessageId && a.startedAtNanos == b.startedAtNanos && a.messages == b.messages
            && a.inputTokens == b.inputTokens && a.outputTokens == b.outputTokens && a.modelCalls == b.modelCalls
            && a.costUSD == b.costUSD && a.toolCallsByName == b.toolCallsByName && a.toolCallsByOutcome == b.toolCallsByOutcome
            && a.byModel.count == b.byModel.count
            && a.byModel.allSatisfy { m, u in b.byModel[m].map { $0 == u } ?? false }
    }

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
}
