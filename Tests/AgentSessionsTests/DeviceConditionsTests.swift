import JSON
import Testing
@testable import AgentSessions

struct ConditionsCase: Sendable, CustomTestStringConvertible {
    let name: String
    let conditions: DeviceConditions
    let deferHeavyWork: Bool
    let maxModelTier: ModelTier
    let allowNetworkTools: Bool
    let reasons: [String]
    var testDescription: String { name }
}

let conditionCases: [ConditionsCase] = [
    ConditionsCase(name: "wifi, nothing special", conditions: DeviceConditions(network: .wifi),
                   deferHeavyWork: false, maxModelTier: .powerful, allowNetworkTools: true, reasons: []),
    ConditionsCase(name: "battery 19% not charging", conditions: DeviceConditions(network: .wifi, batteryLevel: 0.19),
                   deferHeavyWork: true, maxModelTier: .powerful, allowNetworkTools: true, reasons: ["lowBattery"]),
    ConditionsCase(name: "battery 19% charging", conditions: DeviceConditions(network: .wifi, batteryLevel: 0.19, isCharging: true),
                   deferHeavyWork: false, maxModelTier: .powerful, allowNetworkTools: true, reasons: []),
    ConditionsCase(name: "battery exactly 20%", conditions: DeviceConditions(network: .wifi, batteryLevel: 0.2),
                   deferHeavyWork: false, maxModelTier: .powerful, allowNetworkTools: true, reasons: []),
    ConditionsCase(name: "battery unknown", conditions: DeviceConditions(network: .cellular),
                   deferHeavyWork: false, maxModelTier: .powerful, allowNetworkTools: true, reasons: []),
    ConditionsCase(name: "Low Power Mode", conditions: DeviceConditions(network: .wired, isLowPowerMode: true),
                   deferHeavyWork: false, maxModelTier: .fast, allowNetworkTools: true, reasons: ["lowPowerMode"]),
    ConditionsCase(name: "thermal fair", conditions: DeviceConditions(network: .wifi, thermalState: .fair),
                   deferHeavyWork: false, maxModelTier: .powerful, allowNetworkTools: true, reasons: []),
    ConditionsCase(name: "thermal serious", conditions: DeviceConditions(network: .wifi, thermalState: .serious),
                   deferHeavyWork: true, maxModelTier: .powerful, allowNetworkTools: true, reasons: ["thermal"]),
    ConditionsCase(name: "thermal critical", conditions: DeviceConditions(network: .wifi, thermalState: .critical),
                   deferHeavyWork: true, maxModelTier: .powerful, allowNetworkTools: true, reasons: ["thermal"]),
    ConditionsCase(name: "offline", conditions: DeviceConditions(network: .offline),
                   deferHeavyWork: false, maxModelTier: .powerful, allowNetworkTools: false, reasons: ["offline"]),
    ConditionsCase(name: "cellular, expensive", conditions: DeviceConditions(network: .cellular, isExpensive: true),
                   deferHeavyWork: false, maxModelTier: .balanced, allowNetworkTools: true, reasons: ["expensiveNetwork"]),
    ConditionsCase(name: "cellular, unmetered", conditions: DeviceConditions(network: .cellular, isExpensive: false),
                   deferHeavyWork: false, maxModelTier: .powerful, allowNetworkTools: true, reasons: []),
    ConditionsCase(name: "hotspot on wifi", conditions: DeviceConditions(network: .wifi, isExpensive: true),
                   deferHeavyWork: false, maxModelTier: .balanced, allowNetworkTools: true, reasons: ["expensiveNetwork"]),
    ConditionsCase(name: "Low Data Mode", conditions: DeviceConditions(network: .wifi, isConstrained: true),
                   deferHeavyWork: true, maxModelTier: .balanced, allowNetworkTools: true, reasons: ["constrainedNetwork"]),
    ConditionsCase(name: "expensive and Low Power Mode: the lowest cap wins",
                   conditions: DeviceConditions(network: .cellular, isExpensive: true, isLowPowerMode: true),
                   deferHeavyWork: false, maxModelTier: .fast, allowNetworkTools: true, reasons: ["lowPowerMode", "expensiveNetwork"]),
    ConditionsCase(name: "everything at once",
                   conditions: DeviceConditions(network: .offline, isExpensive: true, batteryLevel: 0.05, isLowPowerMode: true,
                                                thermalState: .critical),
                   deferHeavyWork: true, maxModelTier: .fast, allowNetworkTools: false,
                   reasons: ["lowBattery", "lowPowerMode", "thermal", "offline"]),
]

@Suite("Device conditions")
struct DeviceConditionsTests {
    @Test("the policy follows the rules table", arguments: conditionCases)
    func rules(_ c: ConditionsCase) {
        let p = Policy(conditions: c.conditions)
        #expect(p.deferHeavyWork == c.deferHeavyWork)
        #expect(p.maxModelTier == c.maxModelTier)
        #expect(p.allowNetworkTools == c.allowNetworkTools)
        #expect(p.reasons == c.reasons)
        #expect((p.message == nil) == c.reasons.isEmpty)
    }

    @Test("offline, the message lists what still works")
    func offlineMessage() {
        let p = Policy(conditions: DeviceConditions(network: .offline), offlineTools: ["read_file", "write_file"])
        #expect(p.message?.contains("read_file, write_file") == true)
        #expect(!p.allowNetworkTools)
        #expect(Policy(conditions: DeviceConditions(network: .offline)).message?.contains("workspace files") == true)
    }
}

@Suite("Building blocks")
struct BuildingBlockTests {
    @Test("CRC-32C matches the standard check value")
    func crc() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum(Array(repeating: 0, count: 32)) == 0x8A91_36AA)
    }

    @Test("a journal line carries its checksum and fails verification after any flipped bit")
    func lineFormat() {
        let line = JournalLine.encode(["t": "msg", "text": "a\nb"])
        #expect(line.filter { $0 == 0x0A }.count == 1)
        #expect(line.withUnsafeBytes { JournalLine.verify(UnsafeRawBufferPointer(rebasing: $0.dropLast())) } != nil)
        for i in 0..<(line.count - 1) {
            var bad = line
            bad[i] ^= 0x04
            #expect(bad.withUnsafeBytes { JournalLine.verify(UnsafeRawBufferPointer(rebasing: $0.dropLast())) } == nil)
        }
    }
}
