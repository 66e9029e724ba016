import AgentSessions
@testable import BridgeServer
@testable import MCPFace
import JSON
import Testing

/// Consent by effect (issue 22): every tool declares what its calls do, the declaration names only
/// real arguments, and the MCP annotations say the same.
@Suite("Tool effects")
struct ToolEffectTests {
    /// The effect table of docs/protocol.md: each tool's effect, and the argument value that changes it.
    static let table: [String: (plain: ToolEffect, changed: (argument: String, value: JSON, effect: ToolEffect)?)] = [
        "read_file": (.reads, nil), "read_multiple_files": (.reads, nil), "list_files": (.reads, nil), "get_file_info": (.reads, nil), "search_files": (.reads, nil),
        "get_storage_info": (.reads, nil), "read_context": (.reads, nil),
        "write_file": (.replaces, ("exclusive", true, .adds)),
        "append_file": (.adds, nil), "create_folder": (.adds, nil), "append_journal": (.adds, nil),
        "delete_file": (.replaces, nil), "move_file": (.replaces, nil),
        "copy_file": (.adds, ("overwrite", true, .replaces)),
        "update_context": (.adds, ("mode", "replace", .replaces)),
    ]

    @Test("every tool's effect is the documented one, and a new tool cannot go undocumented")
    func everyToolHasItsEffect() {
        #expect(Set(ToolTable.all.map(\.name)) == Set(Self.table.keys))
        for tool in ToolTable.all {
            guard let row = Self.table[tool.name] else { continue }
            #expect(tool.effects.effect(of: .object([:])) == row.plain, "\(tool.name)")
            if let changed = row.changed {
                #expect(tool.effects.effect(of: [changed.argument: changed.value]) == changed.effect, "\(tool.name)")
            } else {
                #expect(tool.effects.least == tool.effects.most, "\(tool.name) has no argument changing its effect")
            }
        }
    }

    @Test("an argument that changes an effect is one of the tool's arguments, with a value its schema allows")
    func effectArgumentsAreReal() throws {
        for tool in ToolTable.all {
            guard let argument = tool.effects.argument else { continue }
            let value = try #require(tool.effects.value)
            let schema = try #require(tool.inputSchema["properties"]?[argument], "\(tool.name) has no argument \(argument)")
            if let choices = schema["enum"]?.arrayValue {
                #expect(choices.contains(value), "\(tool.name).\(argument)")
            } else {
                #expect(schema["type"]?.stringValue == value.typeName, "\(tool.name).\(argument)")
            }
        }
    }

    @Test("the MCP annotations agree with the effect: read-only never changes, destructive can replace")
    func annotationsAgree() {
        for tool in ToolTable.all {
            let hints = tool.mcpJSON["annotations"]
            #expect(hints?["readOnlyHint"]?.boolValue == (tool.effects.most == .reads), "\(tool.name)")
            #expect(hints?["destructiveHint"]?.boolValue == (tool.effects.most == .replaces), "\(tool.name)")
            #expect(tool.json["annotations"] == hints, "\(tool.name): agent/listTools and tools/list say the same")
        }
    }

    @Test("the approval policy asks by the call's effect: an overwriting copy, a replacing update, not a plain copy")
    func policyAsksByEffect() throws {
        func asks(_ policy: ApprovalPolicy, _ name: String, _ arguments: JSON) throws -> Bool {
            policy.requiresConsent(try #require(ToolTable.byName[name]).facts(arguments))
        }
        let copy: JSON = ["from": "blank.txt", "to": "important.md"]
        let overwrite: JSON = ["from": "blank.txt", "to": "important.md", "overwrite": true]
        #expect(try asks(.destructive, "copy_file", overwrite))
        #expect(try asks(.destructive, "move_file", overwrite))
        #expect(try asks(.destructive, "move_file", copy))
        #expect(try !asks(.destructive, "copy_file", copy))
        #expect(try asks(.destructive, "update_context", ["content": "", "mode": "replace"]))
        #expect(try !asks(.destructive, "update_context", ["content": "note"]))
        #expect(try asks(.destructive, "write_file", ["path": "a", "content": ""]))
        #expect(try !asks(.destructive, "write_file", ["path": "a", "content": "", "exclusive": true]))
        let write = try #require(ApprovalPolicy(named: "write"))
        #expect(try asks(write, "copy_file", copy) && asks(write, "append_journal", ["entry": "x"]))
        #expect(try !asks(write, "search_files", ["query": "x"]))
    }
}
