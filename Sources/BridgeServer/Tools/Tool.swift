import JSON
import JSONRPC
import Workspace

/// One capability an agent may use, declared once: its name, schemas, and hints. The same
/// table answers `agent/listTools`, runs `session/callTool`, and (later) MCP's `tools/list` and
/// `tools/call`, so an agent has exactly the user's powers over the workspace, no more.
struct Tool: Sendable {
    typealias Run = @Sendable (ToolContext) throws -> ToolOutput

    var name: String
    var title: String
    var description: String
    /// From schema/openrpc.json through the generated `ToolSchemas`.
    var inputSchema: JSON
    var outputSchema: JSON
    /// The arguments that are workspace paths (an absent one means the workspace root).
    var pathArguments: [String]
    var readOnly: Bool
    var destructive: Bool
    var idempotent: Bool
    var requiresNetwork = false
    /// Heavy work in the device policy's sense (much data, battery or heat): declared in the
    /// schema (`x-tool-heavy` on agent/listTools), deferred on a low battery or a hot device.
    var heavy: Bool
    var run: Run

    /// A tool whose schemas are the generated ones for `name`; a name the schema does not list is
    /// a programming error (stops at startup, where every test sees it).
    init(name: String, title: String, description: String, readOnly: Bool, destructive: Bool, idempotent: Bool,
         run: @escaping Run) {
        guard let input = ToolSchemas.input[name], let output = ToolSchemas.output[name] else {
            fatalError("tool \(name) is not in x-tool-table of schema/openrpc.json (run scripts/gen_tool_schemas.py)")
        }
        self.name = name
        self.title = title
        self.description = description
        self.inputSchema = input
        self.outputSchema = output
        self.pathArguments = ToolSchemas.pathArguments[name] ?? []
        self.readOnly = readOnly
        self.destructive = destructive
        self.idempotent = idempotent
        self.heavy = ToolSchemas.heavy.contains(name)
        self.run = run
    }

    var json: JSON {
        ["name": .string(name), "title": .string(title), "description": .string(description),
         "inputSchema": inputSchema, "outputSchema": outputSchema,
         "annotations": ["title": .string(title), "readOnlyHint": .bool(readOnly), "destructiveHint": .bool(destructive),
                         "idempotentHint": .bool(idempotent), "openWorldHint": false],
         "requiresNetwork": .bool(requiresNetwork), "heavy": .bool(heavy)]
    }
}

/// What a tool gets: the validated arguments and the active workspace.
struct ToolContext {
    var arguments: Params
    var workspace: Workspace
    var server: BridgeServer
    var request: RequestContext?
}

/// A tool's answer: text for the model and the same facts as structured content.
struct ToolOutput: Sendable {
    var text: String
    var structured: JSON
}

/// The result of one call, in the shape shared by `session/callTool` and MCP `tools/call`.
struct ToolResult: Sendable {
    var content: [JSON]
    var structuredContent: JSON?
    var isError: Bool

    var json: JSON {
        var o: JSONObject = ["content": .array(content)]
        if let structuredContent { o["structuredContent"] = structuredContent }
        o["isError"] = .bool(isError)
        return .object(o)
    }

    static func text(_ t: String) -> JSON { ["type": "text", "text": .string(t)] }

    static func failure(_ message: String, code: String?) -> ToolResult {
        var s: JSONObject = ["error": .string(message)]
        if let code { s["code"] = .string(code) }
        return ToolResult(content: [text(message)], structuredContent: .object(s), isError: true)
    }
}
