import JSON

/// Model prices in US dollars per million tokens, used to estimate what a session costs.
///
/// The defaults are the seeds' tiers: fast $0.25 input / $1.25 output, balanced $3 / $15,
/// powerful $15 / $75, and the seeds' model ids at their tier's price (`claude-3-haiku-20240307`,
/// `claude-3-sonnet-20240229`, `claude-3-opus-20240229`). `load(file:)` overrides them and adds
/// models from a JSON file; a model's own price wins over its tier's. A model id the table does
/// not know is *unpriced* (`quote` says so, `cost` is 0): it is never priced as a tier, because
/// a guess at money is worse than a visible gap. A value type: safe to share between threads.
public struct Pricing: Sendable, Equatable {
    /// Dollars per million input and output tokens.
    public struct Price: Sendable, Equatable {
        public var input: Double
        public var output: Double
        public init(input: Double, output: Double) {
            self.input = input
            self.output = output
        }
        public var json: JSON { ["input": .double(input), "output": .double(output)] }
    }

    public var tiers: [ModelTier: Price]
    public var models: [String: Price]
    /// The tier priced when a session names neither a known model nor a tier.
    public var defaultTier: ModelTier = .balanced

    /// Each tier's price when the table names none (a total function: every tier has one).
    public static func defaultPrice(_ tier: ModelTier) -> Price {
        switch tier {
        case .fast: Price(input: 0.25, output: 1.25)
        case .balanced: Price(input: 3, output: 15)
        case .powerful: Price(input: 15, output: 75)
        }
    }

    public static let defaultTiers: [ModelTier: Price] = Dictionary(uniqueKeysWithValues: ModelTier.allCases.map {
        ($0, defaultPrice($0))
    })

    /// The seeds' model ids, each at its tier's default price.
    public static let seedModels: [String: Price] = Dictionary(uniqueKeysWithValues: ModelTier.allCases.map {
        ($0.seedModelId, defaultPrice($0))
    })

    public init(tiers: [ModelTier: Price] = Pricing.defaultTiers, models: [String: Price] = [:]) {
        self.tiers = Self.defaultTiers.merging(tiers) { _, new in new }
        self.models = Self.seedModels.merging(models) { _, new in new }
    }

    /// How a call is priced.
    public enum Quote: Sendable, Equatable {
        /// The model's own price.
        case model(String, Price)
        /// No model named: the tier's price (the session's, else the default tier's).
        case tier(ModelTier, Price)
        /// A model id the table does not know: not priced (cost 0), reported as such.
        case unpriced(String)

        public var price: Price? {
            switch self {
            case .model(_, let p), .tier(_, let p): p
            case .unpriced: nil
            }
        }
    }

    /// The price that applies to a call naming `model` in a session of `tier`.
    public func quote(model: String?, tier: ModelTier?) -> Quote {
        if let model {
            if let p = models[model] { return .model(model, p) }
            return .unpriced(model)
        }
        let t = tier ?? defaultTier
        return .tier(t, tiers[t] ?? Self.defaultPrice(t))
    }

    /// The defaults overridden by `{"tiers": {"fast": {"input": …, "output": …}, …},
    /// "models": {"name": {"input": …, "output": …}}}`. A tier may give only one of the two
    /// prices; the other keeps its default. A missing file is `NotFound`; a malformed one (or one over
    /// `FileCap.pricing`) `InvalidArgument` (never silently ignored: prices are money).
    public static func load(file path: String) throws(SessionError) -> Pricing {
        guard let bytes = try Disk.readFile(path, cap: .pricing) else {
            throw SessionError(.notFound, "no pricing file at \(path)", .path(path))
        }
        let json: JSON
        do { json = try JSONCodec.decode(bytes) } catch {
            throw .invalid("the pricing file \(path) is not valid JSON: \(error)")
        }
        return try Pricing(json: json)
    }

    /// Parses the pricing file's content (see `load(file:)`).
    public init(json: JSON) throws(SessionError) {
        self.init()
        guard case .object(let root) = json else { throw .invalid("pricing must be an object") }
        if let t = root["tiers"] {
            guard case .object(let tiers) = t else { throw .invalid("pricing.tiers must be an object") }
            for (name, value) in tiers.members {
                guard let tier = ModelTier(rawValue: name) else {
                    throw .invalid("unknown model tier \(name) in pricing (fast, balanced, powerful)")
                }
                self.tiers[tier] = try Self.price(value, base: self.tiers[tier], what: "tiers.\(name)")
            }
        }
        if let m = root["models"] {
            guard case .object(let models) = m else { throw .invalid("pricing.models must be an object") }
            for (name, value) in models.members {
                self.models[name] = try Self.price(value, base: nil, what: "models.\(name)")
            }
        }
        if let d = root["defaultTier"]?.stringValue {
            guard let tier = ModelTier(rawValue: d) else { throw .invalid("unknown defaultTier \(d)") }
            defaultTier = tier
        }
    }

    private static func price(_ v: JSON, base: Price?, what: String) throws(SessionError) -> Price {
        guard case .object(let o) = v else { throw .invalid("pricing.\(what) must be an object") }
        func number(_ key: String) throws(SessionError) -> Double? {
            guard let x = o[key] else { return nil }
            guard let d = x.doubleValue, d >= 0, d.isFinite else {
                throw .invalid("pricing.\(what).\(key) must be a number >= 0")
            }
            return d
        }
        let input = try number("input") ?? base?.input
        let output = try number("output") ?? base?.output
        guard let input, let output else { throw .invalid("pricing.\(what) needs input and output prices") }
        return Price(input: input, output: output)
    }

    /// The price that applies: the model's own if listed, else (no model named) the tier's, else
    /// the default tier's; `nil` for an unknown model.
    public func price(model: String?, tier: ModelTier?) -> Price? { quote(model: model, tier: tier).price }

    /// The estimated cost in dollars of one model call (0 for an unpriced model).
    public func cost(inputTokens: Int, outputTokens: Int, model: String?, tier: ModelTier?) -> Double {
        guard let p = price(model: model, tier: tier) else { return 0 }
        return (Double(inputTokens) * p.input + Double(outputTokens) * p.output) / 1_000_000
    }

    /// The table as JSON, in the file's shape.
    public var json: JSON {
        var t = JSONObject()
        for tier in ModelTier.allCases { if let p = tiers[tier] { t[tier.rawValue] = p.json } }
        var m = JSONObject()
        for (name, p) in models.sorted(by: { $0.key < $1.key }) { m[name] = p.json }
        return ["tiers": .object(t), "models": .object(m), "defaultTier": .string(defaultTier.rawValue)]
    }
}
