import JSON

/// The model size class a session may use, smallest first (so tiers compare by cost).
public enum ModelTier: String, Sendable, CaseIterable, Comparable {
    case fast
    case balanced
    case powerful

    public static func < (a: ModelTier, b: ModelTier) -> Bool { a.rank < b.rank }

    /// The position in `allCases` (smallest first).
    private var rank: Int {
        switch self {
        case .fast: 0
        case .balanced: 1
        case .powerful: 2
        }
    }
}

/// A session's model choice and its budget. Every limit is optional; a limit is exceeded when
/// usage goes *over* it (reaching it exactly is allowed).
public struct SessionConfig: Sendable, Equatable {
    public var modelTier: ModelTier?
    public var model: String?
    public var maxInputTokens: Int?
    public var maxOutputTokens: Int?
    public var maxTurns: Int?
    public var maxCostUSD: Double?

    public init(modelTier: ModelTier? = nil, model: String? = nil, maxInputTokens: Int? = nil,
                maxOutputTokens: Int? = nil, maxTurns: Int? = nil, maxCostUSD: Double? = nil) {
        self.modelTier = modelTier
        self.model = model
        self.maxInputTokens = maxInputTokens
        self.maxOutputTokens = maxOutputTokens
        self.maxTurns = maxTurns
        self.maxCostUSD = maxCostUSD
    }

    /// A config handed over whole (a request's `config`, an import's): unknown members are
    /// ignored, null reads as absent, a wrong type or a negative limit is `InvalidArgument`
    /// naming the member (`config.maxTurns must be an integer >= 0`).
    public init(checking json: JSON) throws(SessionError) {
        try self.init(checking: json, as: "config")
    }
}

/// A config's journal form, which is also the protocol's `config` object and an export's: only
/// the members set. Read strictly: a member present but of the wrong type, or a negative limit,
/// refuses the whole config (a journal then reads it as no config at all, as it always did;
/// `init(checking:as:)` says which member, for a request or an import).
extension SessionConfig: StoredForm {
    static let storedFields: [StoredField<SessionConfig>] = [
        StoredField.optionalStrict("modelTier", \.modelTier).expecting("one of fast, balanced, powerful"),
        StoredField.optionalStrict("model", \.model).expecting("a string"),
        limit("maxInputTokens", \.maxInputTokens), limit("maxOutputTokens", \.maxOutputTokens), limit("maxTurns", \.maxTurns),
        StoredField.optionalStrict("maxCostUSD", \.maxCostUSD, accept: { $0 >= 0 && $0.isFinite }).expecting("a number >= 0"),
    ]
    static var unread: SessionConfig { SessionConfig() }

    private static func limit(_ key: String, _ path: any WritableKeyPath<SessionConfig, Int?> & Sendable) -> StoredField<SessionConfig> {
        StoredField.optionalStrict(key, path, accept: { $0 >= 0 }).expecting("an integer >= 0")
    }
}

/// What a session has used so far: the sums of every acknowledged `recordUsage` call.
/// The cost is an estimate from `Pricing`.
public struct Usage: Sendable, Equatable {
    public var inputTokens: Int
    public var outputTokens: Int
    public var turns: Int
    public var estimatedCostUSD: Double

    public init(inputTokens: Int = 0, outputTokens: Int = 0, turns: Int = 0, estimatedCostUSD: Double = 0) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.turns = turns
        self.estimatedCostUSD = estimatedCostUSD
    }
}

/// A usage's journal form: all four sums, each read on its own (0 when missing or unreadable).
extension Usage: StoredForm {
    static let storedFields: [StoredField<Usage>] = [
        .always("inputTokens", \.inputTokens, else: 0), .always("outputTokens", \.outputTokens, else: 0),
        .always("turns", \.turns, else: 0), .always("estimatedCostUSD", \.estimatedCostUSD, else: 0),
    ]
    static var unread: Usage { Usage() }
}

/// What is left of each limit a session has (`nil` where there is no limit), never negative.
public struct BudgetRemaining: Sendable, Equatable {
    public var inputTokens: Int?
    public var outputTokens: Int?
    public var turns: Int?
    public var costUSD: Double?
}

/// The budget rules, as pure functions of a config and a usage.
enum Budget {
    /// The names of the limits that `usage` is over (`maxInputTokens`, `maxOutputTokens`,
    /// `maxTurns`, `maxCostUSD`), in that order.
    static func exceeded(_ config: SessionConfig, _ usage: Usage) -> [String] {
        var out: [String] = []
        if let m = config.maxInputTokens, usage.inputTokens > m { out.append("maxInputTokens") }
        if let m = config.maxOutputTokens, usage.outputTokens > m { out.append("maxOutputTokens") }
        if let m = config.maxTurns, usage.turns > m { out.append("maxTurns") }
        // A relative tolerance: summing many small prices must not trip a limit it sits on.
        if let m = config.maxCostUSD, usage.estimatedCostUSD > m * (1 + 1e-12) + 1e-15 { out.append("maxCostUSD") }
        return out
    }

    static func remaining(_ config: SessionConfig, _ usage: Usage) -> BudgetRemaining {
        BudgetRemaining(
            inputTokens: config.maxInputTokens.map { max(0, $0 - usage.inputTokens) },
            outputTokens: config.maxOutputTokens.map { max(0, $0 - usage.outputTokens) },
            turns: config.maxTurns.map { max(0, $0 - usage.turns) },
            costUSD: config.maxCostUSD.map { max(0, $0 - usage.estimatedCostUSD) })
    }
}
