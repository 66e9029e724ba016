import JSON

/// The seeds' agent presets (`AgentConfig.research`, `AgentConfig.quickChat`): a tier and a budget.
public enum SessionPreset: String, Sendable, CaseIterable {
    /// Balanced tier, 50,000 input tokens, 4,000 output tokens, 20 turns.
    case research
    /// Fast tier, 10,000 input tokens, 1,000 output tokens, 5 turns.
    case quickChat

    /// The preset's config. Members the caller sets explicitly win (`applied(to:)`).
    public var config: SessionConfig {
        switch self {
        case .research: SessionConfig(modelTier: .balanced, maxInputTokens: 50_000, maxOutputTokens: 4_000, maxTurns: 20)
        case .quickChat: SessionConfig(modelTier: .fast, maxInputTokens: 10_000, maxOutputTokens: 1_000, maxTurns: 5)
        }
    }

    /// `explicit` with every member it leaves unset taken from the preset.
    public func applied(to explicit: SessionConfig) -> SessionConfig {
        let p = config
        return SessionConfig(modelTier: explicit.modelTier ?? p.modelTier, model: explicit.model ?? p.model,
                             maxInputTokens: explicit.maxInputTokens ?? p.maxInputTokens,
                             maxOutputTokens: explicit.maxOutputTokens ?? p.maxOutputTokens,
                             maxTurns: explicit.maxTurns ?? p.maxTurns, maxCostUSD: explicit.maxCostUSD ?? p.maxCostUSD)
    }
}

/// The seeds' agent-type table (`agentConfigs: [AgentType: ModelTier]`).
public enum AgentTypeTiers {
    public static let table: [String: ModelTier] = [
        "quickLookup": .fast,
        "chatAssistant": .balanced,
        "researchAgent": .balanced,
        "introductionWriter": .balanced,
        "profileGenerator": .powerful,
    ]

    /// The tier the seeds give `agentType`, or `nil` for a type they do not name.
    public static func tier(for agentType: String?) -> ModelTier? { agentType.flatMap { table[$0] } }

    /// The config a new session gets: the preset (if any) under the caller's explicit members,
    /// and the agent type's tier when neither names one.
    public static func resolve(config: SessionConfig, preset: SessionPreset?, agentType: String?) -> SessionConfig {
        var c = preset.map { $0.applied(to: config) } ?? config
        if c.modelTier == nil { c.modelTier = tier(for: agentType) }
        return c
    }
}

extension ModelTier {
    /// The seeds' model id for the tier (`ModelTier.modelId`).
    public var seedModelId: String {
        switch self {
        case .fast: "claude-3-haiku-20240307"
        case .balanced: "claude-3-sonnet-20240229"
        case .powerful: "claude-3-opus-20240229"
        }
    }
}
