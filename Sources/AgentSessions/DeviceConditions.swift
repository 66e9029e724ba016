import JSON

/// What the host reports about the device (`host/setConditions`).
public struct DeviceConditions: Sendable, Equatable {
    public enum Network: String, Sendable, CaseIterable { case offline, wifi, cellular, wired }
    public enum ThermalState: String, Sendable, CaseIterable { case nominal, fair, serious, critical }

    public var network: Network
    public var isExpensive: Bool
    /// Low Data Mode (the user asked apps to save data).
    public var isConstrained: Bool
    /// 0…1, `nil` when unknown (no battery, or the host did not say).
    public var batteryLevel: Double?
    /// When the host gives a battery level without `isCharging`, it is taken as not charging.
    public var isCharging: Bool
    public var isLowPowerMode: Bool
    public var thermalState: ThermalState?

    public init(network: Network, isExpensive: Bool = false, isConstrained: Bool = false, batteryLevel: Double? = nil,
                isCharging: Bool = false, isLowPowerMode: Bool = false, thermalState: ThermalState? = nil) {
        self.network = network
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.batteryLevel = batteryLevel
        self.isCharging = isCharging
        self.isLowPowerMode = isLowPowerMode
        self.thermalState = thermalState
    }

    /// Before the host says anything: online, unmetered, no battery information.
    public static let assumed = DeviceConditions(network: .wifi)
}

/// What the server allows under some device conditions. A pure function of them
/// (`Policy(conditions:)`), so the rules are one table:
///
/// | condition | effect | reason |
/// | --- | --- | --- |
/// | battery under 20% and not charging | defer heavy work | `lowBattery` |
/// | Low Power Mode | tier at most `fast` | `lowPowerMode` |
/// | thermal state `serious` or `critical` | defer heavy work | `thermal` |
/// | offline | no network tools (with a message of what still works) | `offline` |
/// | an expensive network (cellular, or a hotspot on Wi-Fi), online | tier at most `balanced` | `expensiveNetwork` |
/// | Low Data Mode, online | defer heavy work, tier at most `balanced` | `constrainedNetwork` |
///
/// Choices beyond the seeds: the expensive-network cap follows `isExpensive` on any interface
/// (the OS marks a phone's hotspot as expensive, and a cellular plan without limits as not);
/// Low Data Mode is treated like an expensive network that also asks to postpone bulk work;
/// an unknown battery level never defers anything.
public struct Policy: Sendable, Equatable {
    public var deferHeavyWork: Bool
    public var maxModelTier: ModelTier
    public var allowNetworkTools: Bool
    /// The rules that applied, in table order.
    public var reasons: [String]
    /// For the user or the model when something is limited (offline: what still works).
    public var message: String?

    /// - Parameter offlineTools: names of the tools that work without a network, to list in the
    ///   offline message (a generic description when empty).
    public init(conditions c: DeviceConditions, offlineTools: [String] = []) {
        deferHeavyWork = false
        maxModelTier = .powerful
        allowNetworkTools = true
        reasons = []
        if let level = c.batteryLevel, level < 0.2, !c.isCharging {
            deferHeavyWork = true
            reasons.append("lowBattery")
        }
        if c.isLowPowerMode {
            maxModelTier = .fast
            reasons.append("lowPowerMode")
        }
        if c.thermalState == .serious || c.thermalState == .critical {
            deferHeavyWork = true
            reasons.append("thermal")
        }
        if c.network == .offline {
            allowNetworkTools = false
            reasons.append("offline")
            let works = offlineTools.isEmpty
                ? "reading, writing, listing and searching workspace files, the context file and the journal"
                : offlineTools.joined(separator: ", ")
            message = "The device is offline: tools that need the network are unavailable until it returns. "
                + "Still available offline: \(works). Work that needs the network can be queued and runs when it returns."
        } else {
            if c.isExpensive {
                maxModelTier = min(maxModelTier, .balanced)
                reasons.append("expensiveNetwork")
            }
            if c.isConstrained {
                deferHeavyWork = true
                maxModelTier = min(maxModelTier, .balanced)
                reasons.append("constrainedNetwork")
            }
        }
        if message == nil, !reasons.isEmpty {
            message = "Limited by device conditions: " + reasons.joined(separator: ", ") + "."
        }
    }
}
