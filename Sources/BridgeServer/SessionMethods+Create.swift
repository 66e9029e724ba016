import AgentSessions
import JSON
import JSONRPC

/// `session/create`: presets, the agent type's tier, the approval policy and the device policy
/// (issue 17).
enum CreateSession: MethodDeclaration {
    static let method = "session/create"
    static let reaches: Set<Capability> = [.workspace]
    /// Writes only a session no request can name before the answer (the store's index has its
    /// own lock); claiming all sessions would make it wait for a running tool call of any.
    static func schedule(_ p: Params) -> Schedule { .free }
    struct Params: MethodParams {
        var title: String?
        var agentType: String?
        var config: SessionConfig
        var metadata: JSON?
        var preset: SessionPreset?
        var approvalPolicy: ApprovalPolicy
        var userConfirmed: Bool
        var parentId: String?
        init(_ p: ParamReader) throws {
            config = try SessionMethods.decode(p, "config", SessionConfig.init(checking:)) ?? SessionConfig()
            title = try p.string("title")
            agentType = try p.string("agentType")
            metadata = p.value("metadata")
            preset = try p.choice("preset", SessionPreset.allCases.map(\.rawValue)).flatMap(SessionPreset.init(rawValue:))
            approvalPolicy = try SessionMethods.decode(p, "approvalPolicy", ApprovalPolicy.param) ?? .none
            userConfirmed = try p.bool("userConfirmed") ?? false
            parentId = try p.string("parentId")
        }
    }

    /// The config is resolved once: explicit members over the preset over the agent type's tier,
    /// then capped by the device's conditions (Low Power Mode: fast). A `research` session is
    /// heavy network work (the seeds' "Research uses data — continue?"): refused with `Deferred`
    /// (nothing created, `queued: false`) when the policy defers heavy work, unless `userConfirmed`.
    static func handle(_ p: Params, _ call: Call) throws -> SessionObject {
        let agents = call.services.agents
        let (store, _) = try call.services.stores()
        let conditions = agents.currentConditions
        let policy = agents.policy(for: conditions)
        if p.preset == .research,
           let refusal = policy.decide(WorkFacts(needsNetwork: true, heavy: true), conditions: conditions,
                                       userConfirmed: p.userConfirmed).error(queued: false) {
            throw refusal
        }
        let config = policy.capped(AgentTypeTiers.resolve(config: p.config, preset: p.preset, agentType: p.agentType))
        return SessionObject(session: try store.create(title: p.title, agentType: p.agentType, config: config, metadata: p.metadata,
                                                       approvalPolicy: p.approvalPolicy, parentId: p.parentId))
    }
}
