import AgentSessions
import JSON

extension SessionMethods {
    /// What the device policy says of one tool call, and under which conditions.
    package struct DeviceCheck {
        package var decision: WorkDecision
        package var conditions: DeviceConditions
        var policy: Policy
        /// The tool needs the network and the device is offline: not deferred, the call answers
        /// the `Offline` error result (`offlineResult`).
        package var offline: Bool
    }

    /// The device step every tool call passes after the approval step, `session/callTool` and
    /// MCP's `tools/call` alike (so the two faces decide the same): the device policy's decision
    /// for `tool` under the current conditions (`AgentService.currentConditions`). Pure: nothing
    /// is recorded (`deferCall` records a deferral). Light work that needs no network always runs.
    package static func deviceDecision(_ tool: Tool, userConfirmed: Bool, agents: AgentService) -> DeviceCheck {
        // Light local work always runs: the conditions are not even read (most calls).
        guard tool.heavy || tool.requiresNetwork else {
            return DeviceCheck(decision: .allow, conditions: .assumed, policy: Policy(conditions: .assumed), offline: false)
        }
        let conditions = agents.currentConditions
        let policy = agents.policy(for: conditions)
        if tool.requiresNetwork && !policy.allowNetworkTools {
            return DeviceCheck(decision: .allow, conditions: conditions, policy: policy, offline: true)
        }
        let decision = policy.decide(WorkFacts(needsNetwork: tool.requiresNetwork, heavy: tool.heavy), conditions: conditions,
                                     userConfirmed: userConfirmed)
        return DeviceCheck(decision: decision, conditions: conditions, policy: policy, offline: false)
    }

    /// Records a deferred call in the session's deferred calls (`session/listDeferred`), where it
    /// stays until the call is begun or finished.
    package static func deferCall(_ store: SessionStore, session: String, toolCallId: String, tool: Tool, arguments: JSON,
                          reason: String) throws {
        _ = try store.deferToolCall(id: session, toolCallId: toolCallId, name: tool.name, arguments: arguments, reason: reason)
    }

    /// The error result of a network tool called while the device is offline.
    package static func offlineResult(_ tool: Tool, _ check: DeviceCheck) -> ToolResult {
        .failure("\(tool.name) needs the network, and the device is offline. \(check.policy.message ?? "")", code: "Offline")
    }

    /// The conditions behind a deferral, in words a user reads ("battery at 12%, not charging").
    package static func reasonText(_ reason: String, _ c: DeviceConditions) -> String {
        switch reason {
        case "lowBattery":
            let level = c.batteryLevel.map { "battery at \(Int(($0 * 100).rounded()))%" } ?? "battery low"
            return level + (c.isCharging ? ", charging" : ", not charging")
        case "thermal": return "the device is hot (thermal state \(c.thermalState?.rawValue ?? "serious"))"
        case "expensiveNetwork": return "on an expensive network (\(c.network.rawValue))"
        case "constrainedNetwork": return "Low Data Mode is on"
        case "offline": return "the device is offline"
        default: return reason
        }
    }
}
