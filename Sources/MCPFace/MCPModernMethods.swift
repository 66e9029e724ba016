import BridgeServer
import JSON
import JSONRPC

/// `server/discover`: the versions, capabilities and instructions of the modern era (its
/// envelope, `resultType` and cache hints are `MCPModern.serve`'s).
enum Discover: MCPRequestDeclaration {
    static let method = MCPModern.discover
    static let reaches: Set<Capability> = []
    static let servedIn2025 = false
    // Not inline: the first modern request opens storage and the session (file system work,
    // fsyncs), which inline handlers must never do (`Method`); `.unordered` still answers it
    // whatever else runs.
    static func schedule(_ p: NoParams) -> Schedule { .unordered }
    static func handle(_ p: NoParams, _ call: Call) throws -> MCPDiscovery {
        // Opened by `MCPModernState.prepare` before: this returns the same root and session.
        let state = try call.mcp()
        let (root, sessionID) = try MCPMethods.openSession(call.services, state, clientName: "MCP client")
        return MCPDiscovery(instructions: MCPMethods.instructions(root: root, sessionID: sessionID, folders: state.roots.configuredFolders))
    }
}

extension ListMCPTools: MCPRequestDeclaration {
    /// The tool table as the modern era lists it: the same tools in the same order, each that may
    /// run as a task saying so in its `_meta`.
    static let modernToolList: JSON = .array(ToolTable.all.map { tool in
        guard var o = tool.mcpJSON.objectValue, let meta = MCPTasks.toolMeta(tool.name) else { return tool.mcpJSON }
        o["_meta"] = meta
        return .object(o)
    })

    static func handleModern(_ p: NoParams, _ call: Call, _ envelope: MCPEnvelope) throws -> MCPToolList { MCPToolList(tools: modernToolList) }
}

extension CallMCPTool: MCPRequestDeclaration {
    /// The approval step (`MCPApprovals.gateModern`: `input_required` and its retry), the device
    /// step (`MCPDevice`: the same), then a task when the client declared the tasks extension and
    /// the call is worth one (`MCPTasks`).
    static func handleModern(_ p: Params, _ call: Call, _ envelope: MCPEnvelope) throws -> MCPToolAnswer {
        let tool = try tool(p.name)
        let approved: String
        switch try MCPApprovals.gateModern(p, tool, call, envelope) {
        case .answer(let result): return .answer(result)
        case .run(let toolCallId): approved = toolCallId
        }
        switch try MCPDevice.gate(p, tool, call, toolCallId: approved, modern: envelope) {
        case .answer(let result): return .answer(result)
        case .run(let toolCallId): return try MCPTasks.call(p, call, envelope, toolCallId: toolCallId)
        }
    }
}

// The other MCP requests are served alike in both eras (or only in the 2025 one, `MCPModern.removed`).
extension Ping: MCPRequestDeclaration {}
extension ListResources: MCPRequestDeclaration {}
extension ReadResource: MCPRequestDeclaration {}
extension ResourceTemplates: MCPRequestDeclaration {}
extension SubscribeResource: MCPRequestDeclaration {}
extension UnsubscribeResource: MCPRequestDeclaration {}
extension SetLogLevel: MCPRequestDeclaration {}
