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

    /// What some tool reaches (what a call that names its tool only later, in the journal, may reach).
    package static let reaches: Set<Capability> = Set(byName.values.flatMap(\.reaches))

    /// The tool named `name`; an unknown name is a protocol error (`-32602`).
    package static func tool(named name: String, listedBy list: String = "agent/listTools") throws(RPCError) -> Tool {
        guard let tool = byName[name] else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from \(list) (\(all.map(\.name).joined(separator: ", ")))",
                                         got: "\"\(name)\"")
        }
        return tool
    }

    /// Runs a tool by name (its arguments decoded here; see the other `call`).
    package static func call(_ name: String, arguments: JSON?, services: Services, request: RequestContext?,
                             scope: (any ToolScope)? = nil) throws -> ToolResult {
        try call(try tool(named: name).invocation(arguments ?? .object(JSONObject())), services: services, request: request, scope: scope)
    }

    /// Runs a decoded call: bad arguments and domain failures (mapped by `Services.mapError`, as
    /// the method's own errors are) come back as `isError: true` with a message the model can act on.
    package static func call(_ invocation: ToolInvocation, services: Services, request: RequestContext?,
                             scope: (any ToolScope)? = nil) throws -> ToolResult {
        let name = invocation.tool.name
        if let problem = JSONSchemaValidator.validate(invocation.arguments, against: invocation.tool.inputSchema) {
            return .failure("Invalid arguments for \(name): \(problem.description).", code: "InvalidParams")
        }
        do {
            _ = try services.workspace()
            let decoded = try invocation.decoded.get()
            try scope?.check(paths: decoded.paths)
            let out = try decoded.run(Call(services: services, request: request))
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
