import AgentSessions
import JSON
import JSONRPC
import Workspace

/// One capability an agent may use, declared once: its name, schemas, and hints. The same
/// table answers `agent/listTools`, runs `session/callTool`, and MCP's `tools/list` and
/// `tools/call`, so an agent has exactly the user's powers over the workspace, no more.
///
/// A tool that mirrors a method (`x-agent-tool` in schema/openrpc.json) IS that method's
/// declaration plus an argument rename (`mirroring`): the same params decoder, schedule (its
/// claims), handler, error mapping and result. A tool of its own is a `ToolDeclaration`
/// (`declared`), declared the way methods are. A call decodes its arguments once
/// (`ToolInvocation`), which validates its paths once.
package struct Tool: Sendable {
    typealias Decode = @Sendable (_ arguments: JSON) throws -> ToolInvocation.Decoded

    package var name: String
    package var title: String
    package var description: String
    /// From schema/openrpc.json through the generated `ToolSchemas`.
    package var inputSchema: JSON
    package var outputSchema: JSON
    /// What its calls do (`ToolEffectRule`): the approval policy's input, and its annotations.
    var effects: ToolEffectRule
    var idempotent: Bool
    package var requiresNetwork = false
    /// Heavy work in the device policy's sense (much data, battery or heat): declared in the
    /// schema (`x-tool-heavy` on agent/listTools), deferred on a low battery or a hot device.
    package var heavy: Bool
    /// Whether some call of it writes, from its method's schedule (its declaration's for a tool
    /// of its own): what `readOnly` says and what the journal's `fsync` skip relies on.
    let writes: Bool
    /// What its calls reach: its method's (`MethodDeclaration.reaches`), or its declaration's.
    package let reaches: Set<Capability>
    let decode: Decode

    /// A tool whose schemas are the generated ones for `name`; a name the schema does not list is
    /// a programming error (stops at startup, where every test sees it).
    private init(name: String, title: String, description: String, effects: ToolEffectRule, idempotent: Bool,
                 writes: Bool, reaches: Set<Capability>, decode: @escaping Decode) {
        guard let input = ToolSchemas.input[name], let output = ToolSchemas.output[name] else {
            fatalError("tool \(name) is not in x-tool-table of schema/openrpc.json (run scripts/gen_tool_schemas.py)")
        }
        self.name = name
        self.title = title
        self.description = description
        self.inputSchema = input
        self.outputSchema = output
        self.effects = effects
        self.idempotent = idempotent
        self.heavy = ToolSchemas.heavy.contains(name)
        self.writes = writes
        self.reaches = reaches
        self.decode = decode
    }

    /// A call of this tool with `arguments`, decoded once.
    package func invocation(_ arguments: JSON) -> ToolInvocation { ToolInvocation(tool: self, arguments: arguments) }

    /// Whether any claim of `D`'s schedule writes, for params as a description decodes them
    /// (access depends on what a method does, not on the values).
    private static func writes<P: MethodParams>(_ p: P.Type, _ schedule: (P) throws -> Schedule) -> Bool {
        guard let placeholder = try? P(ParamReader(describing: FieldRecorder())), let s = try? schedule(placeholder) else { return true }
        if case .claims(let c) = s { return c.contains { $0.access == .write } }
        return s == .barrier
    }

    /// The tool that mirrors method `D`: its arguments renamed to `D`'s params (errors name the
    /// tool's arguments), decoded by `D`'s decoder, run by `D`'s handler; its structured content is
    /// `D`'s result encoded as the method encodes it, and `text` says that typed result for the
    /// model. The schema must declare this mirror.
    static func mirroring<D: MethodDeclaration>(_ d: D.Type, as name: String, title: String, description: String,
                                                effects: ToolEffectRule, idempotent: Bool,
                                                text: @escaping @Sendable (D.Result) -> String) -> Tool {
        guard let mirror = ToolSchemas.mirrors[name], mirror.method == D.method else {
            fatalError("tool \(name) does not mirror \(D.method) in schema/openrpc.json's x-agent-tool")
        }
        guard mirror.extra.isEmpty else { fatalError("tool \(name): extra arguments \(mirror.extra) have no reader") }
        let toParam = mirror.rename
        let toArgument = Dictionary(uniqueKeysWithValues: toParam.map { ($0.value, $0.key) })
        return Tool(name: name, title: title, description: description, effects: effects, idempotent: idempotent,
                    writes: writes(D.Params.self, D.schedule), reaches: D.reaches) { arguments in
            var params = JSONObject()
            if case .object(let o) = arguments { for (k, v) in o.members { params[toParam[k] ?? k] = v } }
            let p = try D.Params(try ParamReader(.object(params), aliases: toArgument))
            let claims = try D.schedule(p).toolClaims
            return ToolInvocation.Decoded(claims: claims, paths: claims.filter { $0.domain == "file" }.map(\.workspacePath)) { call in
                let result = try D.handle(p, call)
                return ToolOutput(text: text(result), structured: result.json)
            }
        }
    }

    /// No call of it changes anything (MCP's `readOnlyHint`): its method's schedule only reads
    /// (a test checks its effect rule says the same).
    package var readOnly: Bool { !writes }
    /// Some call of it replaces or removes existing content (MCP's `destructiveHint`).
    var destructive: Bool { effects.most == .replaces }

    /// What the approval policy weighs for a call of this tool with `arguments`.
    package func facts(_ arguments: JSON) -> ToolFacts {
        ToolFacts(name: name, effect: effects.effect(of: arguments), openWorld: requiresNetwork)
    }

    /// MCP's tool annotations, the same in `agent/listTools` and `tools/list`.
    package var annotations: JSON {
        ["title": .string(title), "readOnlyHint": .bool(readOnly), "destructiveHint": .bool(destructive),
         "idempotentHint": .bool(idempotent), "openWorldHint": false]
    }

    var json: JSON {
        ["name": .string(name), "title": .string(title), "description": .string(description),
         "inputSchema": inputSchema, "outputSchema": outputSchema, "annotations": annotations,
         "requiresNetwork": .bool(requiresNetwork), "heavy": .bool(heavy)]
    }

    /// A tool of its own.
    static func declared<D: ToolDeclaration>(_ d: D.Type, title: String, description: String, effects: ToolEffectRule,
                                             idempotent: Bool) -> Tool {
        guard ToolSchemas.mirrors[D.name] == nil else { fatalError("tool \(D.name) mirrors a method: declare it with mirroring") }
        return Tool(name: D.name, title: title, description: description, effects: effects, idempotent: idempotent,
                    writes: writes(D.Params.self, D.schedule), reaches: D.reaches) { arguments in
            let p = try D.Params(try ParamReader(arguments))
            return ToolInvocation.Decoded(claims: try D.schedule(p).toolClaims, paths: D.scopedPaths(p)) { call in try D.handle(p, call) }
        }
    }
}

/// A tool without a method, declared like a method: name, typed params, schedule, handler, result.
protocol ToolDeclaration: Sendable {
    associatedtype Params: MethodParams
    static var name: String { get }
    /// What its calls reach (required, as a method's: `MethodDeclaration.reaches`).
    static var reaches: Set<Capability> { get }
    static func schedule(_ p: Params) throws -> Schedule
    static func handle(_ p: Params, _ call: Call) throws -> ToolOutput
    /// The caller's paths a face's scope (MCP roots) checks. Default none: the context tools'
    /// files are the agent's own notes at fixed places.
    static func scopedPaths(_ p: Params) -> [WorkspacePath]
}

extension ToolDeclaration {
    static func scopedPaths(_ p: Params) -> [WorkspacePath] { [] }
}

/// A tool's answer: text for the model and the same facts as structured content.
struct ToolOutput: Sendable {
    var text: String
    var structured: JSON
}

/// The result of one call, in the shape shared by `session/callTool` and MCP `tools/call`.
package struct ToolResult: Sendable {
    var content: [JSON]
    package var structuredContent: JSON?
    package var isError: Bool
    /// A failed call's `data.code` (also in its structured content).
    package var code: String?

    package init(content: [JSON], structuredContent: JSON?, isError: Bool) {
        self.content = content
        self.structuredContent = structuredContent
        self.isError = isError
    }

    package var json: JSON {
        var o: JSONObject = ["content": .array(content)]
        if let structuredContent { o["structuredContent"] = structuredContent }
        o["isError"] = .bool(isError)
        return .object(o)
    }

    package static func text(_ t: String) -> JSON { ["type": "text", "text": .string(t)] }

    package static func failure(_ message: String, code: String?) -> ToolResult {
        var s: JSONObject = ["error": .string(message)]
        if let code { s["code"] = .string(code) }
        var r = ToolResult(content: [text(message)], structuredContent: .object(s), isError: true)
        r.code = code
        return r
    }
}
