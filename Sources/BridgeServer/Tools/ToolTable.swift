import JSON
import JSONRPC
import Workspace

/// The one table of agent tools and the code that runs them.
package enum ToolTable {
    package static let byName: [String: Tool] = Dictionary(uniqueKeysWithValues: (FileTools.all + ContextTools.all).map { ($0.name, $0) })

    /// Every tool, in the schema's stable order (`x-tool-table`); a tool implemented but not in
    /// the schema, or the reverse, stops the server at startup.
    package static let all: [Tool] = {
        guard Set(byName.keys) == Set(ToolSchemas.names) else {
            fatalError("the tools implemented (\(byName.keys.sorted())) are not the schema's x-tool-table (\(ToolSchemas.names))")
        }
        return ToolSchemas.names.compactMap { byName[$0] }  // every name: checked just above
    }()

    /// Runs a tool: unknown names are a protocol error (`-32602`); bad arguments and domain
    /// failures come back as `isError: true` with a message the model can act on.
    package static func call(_ name: String, arguments: JSON?, services: Services, request: RequestContext?,
                     scope: (any ToolScope)? = nil) throws -> ToolResult {
        guard let tool = byName[name] else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from agent/listTools (\(all.map(\.name).joined(separator: ", ")))",
                                         got: "\"\(name)\"")
        }
        let args = arguments ?? .object(JSONObject())
        if let problem = JSONSchemaValidator.validate(args, against: tool.inputSchema) {
            return .failure("Invalid arguments for \(name): \(problem.description).", code: "InvalidParams")
        }
        do {
            _ = try services.workspace()
            try scope?.check(tool: tool, arguments: try ParamReader(args))
            let out = try tool.run(args, Call(services: services, request: request))
            return ToolResult(content: [ToolResult.text(out.text)], structuredContent: out.structured, isError: false)
        } catch let e as RPCError where e.code == ErrorCode.requestCancelled {
            throw e
        } catch {
            let e = services.mapError(error)
            if e.code == ErrorCode.requestCancelled { throw e }
            if e.code == ErrorCode.internalError { throw e }
            return .failure("\(name) failed: \(e.message)", code: e.dataCode)
        }
    }
}
