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

    /// Parses the protocol's `config` object; unknown members are ignored, wrong types and
    /// negative limits are `InvalidArgument`.
    public init(json: JSON) throws(SessionError) {
        guard case .object(let o) = json else { throw .invalid("config must be an object, got \(json.typeName)") }
        if let t = o["modelTier"], !t.isNull {
            guard let s = t.stringValue, let tier = ModelTier(rawValue: s) else {
                throw .invalid("config.modelTier must be one of fast, balanced, powerful")
            }
            modelTier = tier
        }
        if let m = o["model"], !m.isNull {
            guard let s = m.stringValue else { throw .invalid("config.model must be a string") }
            model = s
        }
        maxInputTokens = try Self.limit(o, "maxInputTokens")
        maxOutputTokens = try Self.limit(o, "maxOutputTokens")
        maxTurns = try Self.limit(o, "maxTurns")
        if let c = o["maxCostUSD"], !c.isNull {
            guard let d = c.doubleValue, d >= 0, d.isFinite else {
                throw .invalid("config.maxCostUSD must be a number >= 0")
            }
            maxCostUSD = d
        }
    }

    private static func limit(_ o: JSONObject, _ key: String) throws(SessionError) -> Int? {
        guard let v = o[key], !v.isNull else { return nil }
        guard let i = v.intValue, i >= 0 else { throw .invalid("config.\(key) must be an integer >= 0") }
        return Int(i)
    }

    /// The protocol encoding: only the members that are set.
    public var json: JSON {
        var o = JSONObject()
        if let modelTier { o["modelTier"] = .string(modelTier.rawValue) }
        if let model { o["model"] = .string(model) }
        if let maxInputTokens { o["maxInputTokens"] = JSON(maxInputTokens) }
        if let maxOutputTokens { o["maxOutputTokens"] = JSON(maxOutputTokens) }
        if let maxTurns { o["maxTurns"] = JSON(maxTurns) }
        if let maxCostUSD { o["maxCostUSD"] = .double(maxCostUSD) }
        return .object(o)
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

    public var json: JSON {
        ["inputTokens": JSON(inputTokens), "outputTokens": JSON(outputTokens), "turns": JSON(turns),
         "estimatedCostUSD": .double(estimatedCostUSD)]
    }

    init(stored json: JSON) {
        inputTokens = Int(json["inputTokens"]?.intValue ?? 0)
        outputTokens = Int(json["outputTokens"]?.intValue ?? 0)
        turns = Int(json["turns"]?.intValue ?? 0)
        estimatedCostUSD = json["estimatedCostUSD"]?.doubleValue ?? 0
    }
}

/// What is left of each limit a session has (`nil` where there is no limit), never negative.
public struct BudgetRemaining: Sendable, Equatable {
    public var inputTokens: Int?
    public var outputTokens: Int?
    public var turns: Int?
    public var costUSD: Double?

    /// Only the limits that are set.
    public var json: JSON {
        var o = JSONObject()
        if let inputTokens { o["inputTokens"] = JSON(inputTokens) }
        if let outputTokens { o["outputTokens"] = JSON(outputTokens) }
        if let turns { o["turns"] = JSON(turns) }
        if let costUSD { o["costUSD"] = .double(costUSD) }
        return .object(o)
    }
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
