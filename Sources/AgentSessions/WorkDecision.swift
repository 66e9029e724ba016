import JSON

/// What a piece of work needs from the device: the facts `Policy.decide` weighs.
public struct WorkFacts: Sendable, Equatable {
    /// It goes out to the network (a web search, a model call, a download).
    public var needsNetwork: Bool
    /// It uses much data, battery or heat (the seeds' `isHeavy`: research, bulk work).
    public var heavy: Bool

    public init(needsNetwork: Bool, heavy: Bool) {
        self.needsNetwork = needsNetwork
        self.heavy = heavy
    }
}

/// The answer of `Policy.decide`: run now, or defer with a reason the user can read.
public enum WorkDecision: Sendable, Equatable {
    case allow
    /// Not run now. `reason` is one of `offline`, `expensiveNetwork`, `constrainedNetwork`,
    /// `lowBattery`, `thermal`; `confirmable` says whether the user's confirmation would run it
    /// anyway (everything but `offline`); `message` is for the user ("Research uses data — continue?").
    case deferred(reason: String, confirmable: Bool, message: String)

    public var isAllowed: Bool { self == .allow }

    /// The typed error for a deferred decision (`nil` for `allow`): `Deferred` with `reason`,
    /// `queued` (whether the call was recorded to run later) and `confirmable`.
    public func error(queued: Bool) -> SessionError? {
        guard case .deferred(let reason, let confirmable, let message) = self else { return nil }
        return Self.deferredError(reason: reason, confirmable: confirmable, message: message, queued: queued)
    }

    /// The typed error of a deferral (see `error(queued:)`).
    public static func deferredError(reason: String, confirmable: Bool, message: String, queued: Bool) -> SessionError {
        SessionError(.deferred, message, .deferred(reason: reason, queued: queued, confirmable: confirmable))
    }
}

extension Policy {
    /// Whether work with `facts` may run under these conditions. A pure function; rules in order:
    ///
    /// | rule | decision |
    /// | --- | --- |
    /// | needs the network, device offline | deferred `offline` (a confirmation cannot help) |
    /// | needs the network, heavy, on an expensive network | deferred `expensiveNetwork` unless confirmed |
    /// | needs the network, heavy, Low Data Mode | deferred `constrainedNetwork` unless confirmed |
    /// | heavy, battery under 20% and not charging | deferred `lowBattery` unless confirmed |
    /// | heavy, thermal state serious or critical | deferred `thermal` unless confirmed |
    ///
    /// Light work always runs (when it has the network it needs). The user's confirmation is the
    /// seeds' "Research uses data — continue?" answered yes.
    public func decide(_ facts: WorkFacts, conditions c: DeviceConditions, userConfirmed: Bool = false) -> WorkDecision {
        if facts.needsNetwork && !allowNetworkTools {
            return .deferred(reason: "offline", confirmable: false,
                             message: "This needs the network and the device is offline; it can run when the network returns.")
        }
        guard facts.heavy, !userConfirmed else { return .allow }
        if facts.needsNetwork && c.isExpensive {
            return .deferred(reason: "expensiveNetwork", confirmable: true,
                             message: "This uses data on an expensive network (cellular or a hotspot). Continue, or wait for Wi-Fi?")
        }
        if facts.needsNetwork && c.isConstrained {
            return .deferred(reason: "constrainedNetwork", confirmable: true,
                             message: "Low Data Mode is on and this uses much data. Continue, or wait?")
        }
        if reasons.contains("lowBattery") {
            return .deferred(reason: "lowBattery", confirmable: true,
                             message: "The battery is low and this task uses significant battery. Continue, or defer until charging?")
        }
        if reasons.contains("thermal") {
            return .deferred(reason: "thermal", confirmable: true,
                             message: "The device is hot; this heavy task waits until it cools down. Continue anyway?")
        }
        return .allow
    }

    /// `tier` capped at what the conditions allow (Low Power Mode: fast; expensive network: balanced).
    public func cap(_ tier: ModelTier?) -> ModelTier? { tier.map { min($0, maxModelTier) } }

    /// `config` with its tier capped (a config without a tier gets none: the default is the client's).
    public func capped(_ config: SessionConfig) -> SessionConfig {
        var c = config
        c.modelTier = cap(c.modelTier)
        return c
    }
}
