import AgentSessions
import JSON
import JSONRPC

/// The consent and device-policy steps of a tool call (issue 17): `session/setApprovalPolicy`,
/// `session/approve`, `session/listDeferred`; the gate `session/callTool` passes before it runs
/// anything is `SessionMethods.runGated` (`SessionToolCalls.swift`).
enum SetApprovalPolicy: SessionMethod {
    static let method = "session/setApprovalPolicy"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = SessionObject
    struct Params: SessionParams {
        var id: String
        var policy: ApprovalPolicy
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            policy = try SessionMethods.decodeRequired(p, "approvalPolicy", expected: "\"none\", \"destructive\" or {tools, annotations}",
                                                       placeholder: .none, ApprovalPolicy.param)
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> SessionObject {
        SessionObject(session: try store.setApprovalPolicy(id: p.id, p.policy))
    }
}

extension ApprovalPolicy {
    /// The `approvalPolicy` param: `ApprovalPolicy(reading:)` (the one reading, the journal's
    /// too), its refusal worded for the client as `InvalidArgument`.
    static func param(_ j: JSON) throws(SessionError) -> ApprovalPolicy {
        do { return try ApprovalPolicy(reading: j) } catch {
            let message = switch error {
            case .notAPolicy: "approvalPolicy must be \"none\", \"destructive\" or {tools, annotations}"
            case .notNames(let key): "approvalPolicy.\(key) must be an array of strings"
            case .unknownAnnotation(let name): "unknown annotation \(name) in approvalPolicy.annotations (destructive, openWorld, write)"
            }
            throw SessionError(.invalidArgument, message)
        }
    }
}

/// Records the decision, then runs an allowed call (through the device policy, like any call)
/// or closes a refused one with an error result: `{approval, result}`. Answering again returns
/// the recorded result; nothing runs twice. An approval another face's call asked for (it has an
/// `origin`, e.g. an MCP client's `tools/call`, `origin: "mcp"`) is only decided (`{approval}`):
/// that client's identical call runs or is refused by that face, so the tool never runs twice.
enum ApproveToolCall: MethodDeclaration {
    static let method = "session/approve"
    /// The session, and whatever tool an allowed call runs: its name is in the journal, not in
    /// the params, so the planner cannot narrow it to one tool's.
    static let reaches: Set<Capability> = ToolTable.reaches.union([.workspace])
    struct Params: MethodParams {
        var id: String
        var toolCallId: String
        var decision: Approval.Decision
        var remember: Bool
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            toolCallId = try p.requiredString("toolCallId")
            decision = try p.requiredChoice("decision", as: Approval.Decision.self, expected: "\"allow\" or \"deny\"")
            remember = try p.bool("remember") ?? false
        }
    }

    /// The session, and the workspace for the tool an allowed call runs (its name is in the
    /// journal, not in the params, so its paths cannot be claimed more narrowly).
    static func schedule(_ p: Params) -> Schedule { .claims([.write("session", p.id), .write("file", "")]) }

    static func handle(_ p: Params, _ call: Call) throws -> Result {
        try SessionMethods.onStore(call) { store in
            let approval = try store.approve(id: p.id, toolCallId: p.toolCallId, decision: p.decision, remember: p.remember)
            if approval.origin != nil { return Result(approval: approval) }
            guard let tool = ToolTable.byName[approval.name] else { throw SessionMethods.unknownTool(approval.name) }
            let toolCall = SessionMethods.ToolCall(session: p.id, toolCallId: p.toolCallId, invocation: tool.invocation(approval.arguments),
                                                   userConfirmed: false)
            return Result(approval: approval, result: try SessionMethods.runGated(store, toolCall, call))
        }
    }

    struct Result: ObjectResult {
        var approval: Approval
        var result: JSON?
        static let fields: [ResultField<Self>] = [.field("approval", \.approval), .field("result", \.result)]
    }
}

/// Every deferred tool call of the workspace's sessions, oldest first, and whether the device
/// policy would run it now (send the same `session/callTool` again to run it).
enum ListDeferred: MethodDeclaration {
    static let method = "session/listDeferred"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: NoParams) -> Schedule { .claims([.read("session", "")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> Result {
        let agents = call.services.agents
        let (store, _) = try call.services.stores()
        let conditions = agents.currentConditions
        return Result(calls: SessionMethods.deferredCalls(store, conditions, agents.policy(for: conditions)).map(\.json))
    }

    struct Result: ObjectResult {
        var calls: [JSON]
        static let fields: [ResultField<Self>] = [.field("calls", \.calls)]
    }
}

extension SessionMethods {
    /// The deferred calls of `store` and whether each would run under `conditions`.
    static func deferredCalls(_ store: SessionStore, _ conditions: DeviceConditions,
                              _ policy: Policy) -> [(json: JSON, runnable: Bool, key: String)] {
        store.deferredToolCalls().map { entry in
            var o = entry.call.json.objectValue ?? JSONObject()
            o["sessionId"] = .string(entry.sessionId)
            let facts = ToolTable.byName[entry.call.name].map { WorkFacts(needsNetwork: $0.requiresNetwork, heavy: $0.heavy) }
            let runnable = facts.map { policy.decide($0, conditions: conditions).isAllowed } ?? false
            o["runnableNow"] = .bool(runnable)
            return (.object(o), runnable, entry.sessionId + "/" + entry.call.toolCallId)
        }
    }

    /// The deferred calls that new conditions let run and the old ones did not: what
    /// `session/deferredReady` announces (empty: nothing to say).
    static func newlyRunnable(_ store: SessionStore, before: (DeviceConditions, Policy), after: (DeviceConditions, Policy)) -> [JSON] {
        let was = Set(deferredCalls(store, before.0, before.1).filter(\.runnable).map(\.key))
        return deferredCalls(store, after.0, after.1).filter { $0.runnable && !was.contains($0.key) }.map(\.json)
    }
}
