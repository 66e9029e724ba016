@testable import BridgeServer
@testable import MCPFace
import JSON
import JSONRPC
import Testing

extension MethodDeclaration {
    /// The schedule of a request whose params are the describing placeholders (the decoder run
    /// as the schema agreement check runs it).
    static func describedSchedule() throws -> Schedule {
        try schedule(Params(ParamReader(describing: FieldRecorder())))
    }

    static func schedule(_ params: JSON) throws -> Schedule {
        try schedule(Params(ParamReader(params)))
    }
}

/// Every declaration states its schedule (without one it does not compile: `MethodDeclaration`
/// has no default); these tests pin what was decided for the methods that claim nothing and for
/// the writers that used to claim nothing by silence.
@Suite("Schedules")
struct ScheduleTests {
    static func every() -> [any MethodDeclaration.Type] {
        SchemaAgreementTests.declared() + MCPMethods.requests + MCPMethods.notifications + MCPModern.own
    }

    /// Reviewed one by one (docs/decisions.md, "No silent defaults, no crash points"): each
    /// touches nothing shared, or must not hold anything back. A new `.free` method is a
    /// deliberate choice added here.
    static let free: Set<String> = [
        "debug/echo", "debug/fail", "debug/log", "debug/blob", "initialized", "tools/list", "agent/listTools",
        "resources/templates/list", "subscriptions/listen", "session/create", "session/list",
        "notifications/initialized", "notifications/roots/list_changed",
        "debug/sleep",  // claims the `key` its params name, nothing without one
    ]

    @Test("only the reviewed methods claim nothing")
    func onlyReviewedAreFree() throws {
        var free: Set<String> = []
        for d in Self.every() where try d.describedSchedule() == .free { free.insert(d.method) }
        #expect(free == Self.free)
    }

    private func conflicts(_ later: Schedule, _ earlier: Schedule) -> Bool {
        guard case .claims(let a) = later, case .claims(let b) = earlier else { return false }
        return a.contains { x in b.contains { x.conflicts(with: $0) } }
    }

    @Test("a watch and the unwatch after it run in order, on both faces")
    func watchesAreOrdered() throws {
        #expect(conflicts(try UnwatchFiles.schedule(.object([:])), try WatchFiles.schedule(.object([:]))))
        let uri: JSON = ["uri": "file:///w/a.txt"]
        #expect(conflicts(try UnsubscribeResource.schedule(uri), try SubscribeResource.schedule(uri)))
    }

    @Test("a command is scheduled as the method it names: a save and a load of one path stay in order")
    func commandsKeepTheirMethodsClaims() throws {
        let save = try ExecuteCommand.schedule(["command": "wsb.saveFile", "arguments": [["path": "a.txt", "data": "x"]]])
        let load = try ExecuteCommand.schedule(["command": "wsb.loadFile", "arguments": [["path": "a.txt"]]])
        #expect(save == (try SaveFile.schedule(["path": "a.txt", "data": "x"])))
        #expect(conflicts(load, save))
        #expect(!conflicts(try ExecuteCommand.schedule(["command": "wsb.loadFile", "arguments": [["path": "b.txt"]]]), save))
    }

    @Test("a conditions report waits for the one before it, and reads the queue")
    func conditionsAreOrdered() throws {
        let report = try SetConditions.schedule(["network": "wifi"])
        #expect(conflicts(report, report))
        #expect(conflicts(report, .claims([.write("queue", "")])))
    }

    @Test("reading a resource waits for an earlier write to a file of the workspace")
    func resourcesReadAfterWrites() throws {
        let write = Schedule.claims([.write("file", "notes/a.md")])
        #expect(conflicts(try ReadResource.schedule(["uri": "file:///w/notes/a.md"]), write))
        #expect(conflicts(try ListResources.schedule(.object([:])), write))
        #expect(try ReadResource.schedule(["uri": "file:///w/a"]).onlyReads)
    }
}
