import BridgeServer
import JSON
import JSONRPC
import Synchronization
import SystemSupport
import Workspace

/// The tasks extension (`io.modelcontextprotocol/tasks`, docs/mcp-2026.md §10) on the modern MCP
/// face: a `tools/call` of a tool that may take long, from a client that declared the extension
/// on that request, answers at once with a task (`resultType: "task"`) whose work goes on in the
/// background; the client polls `tasks/get` from any later request, may `tasks/cancel` it, and
/// reads the result (the exact `CallToolResult` the call would have given) once it is done.
///
/// Which calls become tasks: `search_files` over a tree of `bigTree` files or more (counted before
/// searching, stopping at the threshold), and `copy_file` when it is still running after `grace`;
/// everything else, and every call of a client that did not declare the extension, is answered
/// inline. Bounds: at most `maxWorking` tasks run at once (a call beyond that is answered inline,
/// so nothing is refused), at most `maxKept` are remembered, and a finished task is kept `ttlMs`
/// after it ended (then `tasks/get` says it is not found).
enum MCPTasks {
    static let extensionID = "io.modelcontextprotocol/tasks"
    /// The tools that may answer with a task; `tools/list` says so in each one's `_meta`.
    static let mayRunAsTask: Set<String> = ["search_files", "copy_file"]
    static let bigTree = 2000
    static let grace: UInt64 = 200_000_000
    static let ttlMs: Int64 = 600_000
    static let pollIntervalMs: Int64 = 250
    static let maxWorking = 8
    static let maxKept = 100

    /// The `_meta` a tool carries in the modern era's `tools/list`: whether it may run as a task.
    static func toolMeta(_ name: String) -> JSON? {
        guard mayRunAsTask.contains(name) else { return Optional<JSON>.none }
        return [extensionID: ["taskSupport": "optional"]]
    }

    /// `tools/call` in the modern era: a task when the client declared the extension and the call
    /// is worth one, else the plain result.
    /// The call is journaled under `toolCallId` (its approval, if it needed one, was given).
    static func call(_ p: CallMCPTool.Params, _ call: Call, _ envelope: MCPEnvelope, toolCallId: String) throws -> MCPToolAnswer {
        guard envelope.declares(extension: extensionID), mayRunAsTask.contains(p.name), let ctx = call.request,
              p.name != "search_files" || isBigSearch(p.arguments, call, ctx)
        else { return try CallMCPTool.run(p, call, toolCallId: toolCallId) }
        let services = call.services
        let store = try call.mcp().modern.tasks
        guard let task = store.start(ctx, statusMessage: p.name == "search_files" ? "searching \(bigTree)+ files" : "copying",
                                     mapError: { services.mapError($0) },
                                     run: { work in try CallMCPTool.run(p, Call(services: services, request: work, face: call.face), toolCallId: toolCallId).json })
        else { return try CallMCPTool.run(p, call, toolCallId: toolCallId) }
        if p.name != "search_files", let inline = try store.awaitQuickly(task, within: grace) { return .answer(inline) }
        return .answer(store.detail(task, resultType: "task") ?? ["resultType": "task"])
    }

    /// Whether the tree a `search_files` call searches holds `bigTree` files or more (a bounded
    /// listing, no contents read). A path that cannot be listed, or outside the client's scope,
    /// is answered inline, where the search itself reports the problem.
    static func isBigSearch(_ arguments: JSON, _ call: Call, _ ctx: RequestContext) -> Bool {
        guard let ws = try? call.services.workspace(), let args = try? ParamReader(arguments),
              let path = try? args.path("path", default: ""), (try? call.mcp().roots.check(path)) != nil
        else { return false }
        var o = Workspace.ListOptions()
        o.path = path
        o.recursive = true
        o.limit = bigTree
        o.includeHidden = (try? args.bool("includeHidden")) ?? false
        o.includeIgnored = (try? args.bool("includeIgnored")) ?? false
        guard let page = try? ws.list(o, isCancelled: { ctx.isCancelled }) else { return false }
        return page.next != nil || page.entries.filter { $0.type == .file }.count >= bigTree
    }

    static func notFound(_ id: String) -> RPCError {
        RPCError(code: ErrorCode.invalidParams, message: "Failed to retrieve task: Task not found", dataCode: "InvalidParams",
                 data: ["field": "taskId", "expected": "a task this server created that has not expired", "got": .string(id)])
    }
}

/// The params of the task methods: the task's id.
struct TaskIDParams: MethodParams {
    var taskId: String
    init(_ p: ParamReader) throws { taskId = try p.requiredString("taskId") }
}

/// A task method: modern era only, for clients that declared the extension; task bookkeeping
/// never waits for file work (it answers while a task, or anything, runs).
protocol TaskMethod: MCPRequestDeclaration {}

extension TaskMethod {
    static var servedIn2025: Bool { false }
    static var requiredExtension: String? { MCPTasks.extensionID }
    static func schedule(_ p: Params) -> Schedule { .unordered }
}

enum GetTask: TaskMethod {
    typealias Params = TaskIDParams
    static let method = "tasks/get"
    static let reaches: Set<Capability> = []
    static func handle(_ p: TaskIDParams, _ call: Call) throws -> MCPTaskDetail {
        guard let detail = try call.mcp().modern.tasks.detail(p.taskId, resultType: "complete") else { throw MCPTasks.notFound(p.taskId) }
        return MCPTaskDetail(json: detail)
    }
}

enum CancelTask: TaskMethod {
    typealias Params = TaskIDParams
    static let method = "tasks/cancel"
    static let reaches: Set<Capability> = []
    static func handle(_ p: TaskIDParams, _ call: Call) throws -> EmptyResult {
        guard try call.mcp().modern.tasks.cancel(p.taskId) else { throw MCPTasks.notFound(p.taskId) }
        return EmptyResult()
    }
}

/// `tasks/update` carries answers to a task's `input_required`; no task of this server asks
/// for input, so a known task is refused as not waiting for any, an unknown one as not found.
enum UpdateTask: TaskMethod {
    static let method = "tasks/update"
    static let reaches: Set<Capability> = []
    struct Params: MethodParams {
        var taskId: String
        var hasInputResponses: Bool
        init(_ p: ParamReader) throws {
            taskId = try p.requiredString("taskId")
            hasInputResponses = try p.object("inputResponses") != nil
        }
    }
    static func handle(_ p: Params, _ call: Call) throws -> EmptyResult {
        guard p.hasInputResponses else {
            throw RPCError.invalidParams(field: "inputResponses", expected: "the answers to the task's input requests (an object)", got: "nothing")
        }
        guard try call.mcp().modern.tasks.detail(p.taskId, resultType: "complete") != nil else { throw MCPTasks.notFound(p.taskId) }
        throw RPCError.invalidParams(field: "taskId", expected: "a task waiting for input (status input_required)",
                                     got: "a task that asks for none")
    }
}

extension RPCError {
    /// MCP's `MissingRequiredClientCapability` (`-32021`): the request needs an extension the
    /// client did not declare in its `_meta`.
    static func missingClientCapability(extension id: String) -> RPCError {
        RPCError(code: MCPErrorCode.missingRequiredClientCapability,
                 message: "Missing required client capability: declare the \(id) extension in _meta's clientCapabilities",
                 dataCode: "MissingRequiredClientCapability",
                 data: ["requiredCapabilities": ["extensions": .object([id: .object(JSONObject())])]])
    }
}
