import JSON
import JSONRPC
import Workspace

/// The one table of agent tools and the code that runs them.
enum ToolTable {
    /// Every tool, in a stable order (the order of this list).
    static let all: [Tool] = FileTools.all + ContextTools.all

    static let byName: [String: Tool] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Runs a tool: unknown names are a protocol error (`-32602`); bad arguments and domain
    /// failures come back as `isError: true` with a message the model can act on.
    static func call(_ name: String, arguments: JSON?, server: BridgeServer, request: RequestContext?,
                     scope: MCPRootScope? = nil) throws -> ToolResult {
        guard let tool = byName[name] else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from agent/listTools (\(all.map(\.name).joined(separator: ", ")))",
                                         got: "\"\(name)\"")
        }
        let args = arguments ?? .object(JSONObject())
        if let problem = JSONSchemaValidator.validate(args, against: tool.inputSchema) {
            return .failure("Invalid arguments for \(name): \(problem.description).", code: "InvalidParams")
        }
        do {
            let ws = try server.workspace()
            let params = try Params(args)
            try scope?.check(tool: tool, arguments: params)
            let out = try tool.run(ToolContext(arguments: params, workspace: ws, server: server, request: request))
            return ToolResult(content: [ToolResult.text(out.text)], structuredContent: out.structured, isError: false)
        } catch let e as RPCError where e.code == ErrorCode.requestCancelled {
            throw e
        } catch let move as MoveToWorkerPool {
            throw move
        } catch {
            let e = server.mapError(error)
            if e.code == ErrorCode.requestCancelled { throw e }
            if e.code == ErrorCode.internalError { throw e }
            return .failure("\(name) failed: \(e.message)", code: e.dataCode)
        }
    }
}

/// Helpers to write schemas compactly.
enum Schema {
    static func object(_ properties: [(String, JSON)], required: [String] = []) -> JSON {
        ["type": "object", "properties": .object(JSONObject(properties)), "required": .array(required.map(JSON.string)),
         "additionalProperties": false]
    }
    static func string(_ description: String) -> JSON { ["type": "string", "description": .string(description)] }
    static func integer(_ description: String, minimum: Int64 = 0) -> JSON {
        ["type": "integer", "minimum": .int(minimum), "description": .string(description)]
    }
    static func boolean(_ description: String) -> JSON { ["type": "boolean", "description": .string(description)] }
    static func choice(_ values: [String], _ description: String) -> JSON {
        ["type": "string", "enum": .array(values.map(JSON.string)), "description": .string(description)]
    }
    static let path = string("A workspace-relative path, '/'-separated; \"\" is the workspace root.")
    static let write: JSON = object([("path", string("")), ("size", integer("")), ("etag", string("")), ("modified", string(""))],
                                    required: ["path", "size", "etag", "modified"])
    static let moved: JSON = object([("from", string("")), ("to", string("")), ("type", string("")), ("size", integer("")),
                                     ("etag", string("")), ("modified", string(""))], required: ["from", "to", "type"])
}
