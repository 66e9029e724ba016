import JSON
import Testing
@testable import AgentSessions

@Suite("Presets, tiers and prices")
struct PresetTests {
    @Test("the seeds' presets: research is balanced 50,000/4,000/20, quickChat is fast 10,000/1,000/5")
    func presets() {
        #expect(SessionPreset.research.config == SessionConfig(modelTier: .balanced, maxInputTokens: 50_000, maxOutputTokens: 4_000, maxTurns: 20))
        #expect(SessionPreset.quickChat.config == SessionConfig(modelTier: .fast, maxInputTokens: 10_000, maxOutputTokens: 1_000, maxTurns: 5))
        // What the caller sets explicitly wins over the preset.
        let mine = SessionPreset.research.applied(to: SessionConfig(maxTurns: 3, maxCostUSD: 1))
        #expect(mine == SessionConfig(modelTier: .balanced, maxInputTokens: 50_000, maxOutputTokens: 4_000, maxTurns: 3, maxCostUSD: 1))
    }

    @Test("agent types map to the seeds' tiers; a preset or an explicit tier wins; unknown types get none")
    func agentTypes() {
        #expect(AgentTypeTiers.tier(for: "quickLookup") == .fast)
        for t in ["chatAssistant", "researchAgent", "introductionWriter"] { #expect(AgentTypeTiers.tier(for: t) == .balanced) }
        #expect(AgentTypeTiers.tier(for: "profileGenerator") == .powerful)
        #expect(AgentTypeTiers.tier(for: "default") == nil)
        #expect(AgentTypeTiers.resolve(config: SessionConfig(), preset: nil, agentType: "profileGenerator").modelTier == .powerful)
        #expect(AgentTypeTiers.resolve(config: SessionConfig(), preset: .quickChat, agentType: "profileGenerator").modelTier == .fast)
        #expect(AgentTypeTiers.resolve(config: SessionConfig(modelTier: .balanced), preset: nil, agentType: "quickLookup").modelTier == .balanced)
    }

    @Test("the price table knows the seeds' model ids; an unknown model is unpriced, never priced as a tier")
    func prices() throws {
        let p = Pricing()
        #expect(p.quote(model: "claude-3-haiku-20240307", tier: .powerful) == .model("claude-3-haiku-20240307", Pricing.Price(input: 0.25, output: 1.25)))
        #expect(p.price(model: "claude-3-sonnet-20240229", tier: nil) == Pricing.Price(input: 3, output: 15))
        #expect(p.price(model: "claude-3-opus-20240229", tier: nil) == Pricing.Price(input: 15, output: 75))
        #expect(ModelTier.allCases.map(\.seedModelId) == ["claude-3-haiku-20240307", "claude-3-sonnet-20240229", "claude-3-opus-20240229"])
        #expect(p.quote(model: "gpt-9", tier: .fast) == .unpriced("gpt-9"))
        #expect(p.cost(inputTokens: 1_000_000, outputTokens: 1_000_000, model: "gpt-9", tier: .fast) == 0)
        // A user-added model is priced; a user price for a seed model replaces the seed's.
        let mine = try Pricing(json: ["models": ["my-model": ["input": 1, "output": 2], "claude-3-opus-20240229": ["input": 10, "output": 50]]])
        #expect(mine.price(model: "my-model", tier: nil) == Pricing.Price(input: 1, output: 2))
        #expect(mine.price(model: "claude-3-opus-20240229", tier: nil) == Pricing.Price(input: 10, output: 50))
        #expect(mine.price(model: "claude-3-haiku-20240307", tier: nil) == Pricing.Price(input: 0.25, output: 1.25))
    }

    @Test("recording usage of an unknown model counts the turn, costs nothing, and says the model is unpriced")
    func unpricedUsage() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(config: SessionConfig(modelTier: .powerful))
        let priced = try store.recordUsage(id: s.id, inputTokens: 1_000_000, outputTokens: 0, model: "claude-3-haiku-20240307")
        let unpriced = try store.recordUsage(id: s.id, inputTokens: 1_000_000, outputTokens: 0, model: "mystery-1")
        #expect(priced.unpricedModel == nil && priced.usage.estimatedCostUSD == 0.25)
        #expect(unpriced.unpricedModel == "mystery-1")
        #expect(unpriced.usage.estimatedCostUSD == 0.25 && unpriced.usage.turns == 2)
        #expect(f.lines(f.journal(s.id)).contains { $0.contains(#""unpriced":"mystery-1""#) })
    }
}

@Suite("Device policy applied")
struct WorkDecisionTests {
    let heavyNet = WorkFacts(needsNetwork: true, heavy: true)
    let lightNet = WorkFacts(needsNetwork: true, heavy: false)
    let heavyLocal = WorkFacts(needsNetwork: false, heavy: true)

    private func decide(_ c: DeviceConditions, _ w: WorkFacts, confirmed: Bool = false) -> WorkDecision {
        Policy(conditions: c).decide(w, conditions: c, userConfirmed: confirmed)
    }

    private func reason(_ d: WorkDecision) -> String? {
        if case .deferred(let r, _, _) = d { return r }
        return nil
    }

    @Test("on an expensive network heavy network work is deferred unless the user confirmed; light work runs")
    func expensiveNetwork() {
        let cellular = DeviceConditions(network: .cellular, isExpensive: true)
        #expect(reason(decide(cellular, heavyNet)) == "expensiveNetwork")
        #expect(decide(cellular, heavyNet, confirmed: true) == .allow)
        #expect(decide(cellular, lightNet) == .allow)
        #expect(decide(cellular, heavyLocal) == .allow)
        #expect(decide(.assumed, heavyNet) == .allow)
        guard case .deferred(_, let confirmable, _) = decide(cellular, heavyNet) else { Issue.record("not deferred"); return }
        #expect(confirmable)
        let error = decide(cellular, heavyNet).error(queued: true)
        #expect(error?.code == "Deferred" && error?.details == .deferred(reason: "expensiveNetwork", queued: true, confirmable: true))
        #expect(WorkDecision.allow.error(queued: false) == nil)
    }

    @Test("battery under 20% and not charging, or a serious or critical thermal state, defers heavy work")
    func batteryAndHeat() {
        let low = DeviceConditions(network: .wifi, batteryLevel: 0.19)
        #expect(reason(decide(low, heavyLocal)) == "lowBattery")
        #expect(decide(low, heavyLocal, confirmed: true) == .allow)
        #expect(decide(low, lightNet) == .allow)
        #expect(decide(DeviceConditions(network: .wifi, batteryLevel: 0.19, isCharging: true), heavyLocal) == .allow)
        #expect(decide(DeviceConditions(network: .wifi, batteryLevel: 0.2), heavyLocal) == .allow)
        for t in [DeviceConditions.ThermalState.serious, .critical] {
            #expect(reason(decide(DeviceConditions(network: .wifi, thermalState: t), heavyLocal)) == "thermal")
        }
        #expect(decide(DeviceConditions(network: .wifi, thermalState: .fair), heavyLocal) == .allow)
    }

    @Test("offline, network work is deferred and no confirmation helps; Low Power Mode caps the tier at fast")
    func offlineAndLowPower() {
        let offline = DeviceConditions(network: .offline)
        #expect(decide(offline, lightNet, confirmed: true) == .deferred(reason: "offline", confirmable: false,
            message: "This needs the network and the device is offline; it can run when the network returns."))
        #expect(decide(offline, heavyLocal) == .allow)
        let lowPower = Policy(conditions: DeviceConditions(network: .wifi, isLowPowerMode: true))
        #expect(lowPower.cap(.powerful) == .fast)
        #expect(lowPower.capped(SessionPreset.research.config).modelTier == .fast)
        #expect(Policy(conditions: DeviceConditions(network: .cellular, isExpensive: true)).cap(.powerful) == .balanced)
        #expect(Policy(conditions: .assumed).cap(.powerful) == .powerful)
    }

    @Test("a deferred call is recorded durably, visible, and leaves the list when it finally runs")
    func deferredRecorded() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        let d = try store.deferToolCall(id: s.id, toolCallId: "r1", name: "web_research", arguments: ["q": "x"], reason: "expensiveNetwork")
        #expect(d.reason == "expensiveNetwork")
        let reopened = f.store()
        #expect(try reopened.get(id: s.id).deferredToolCalls.map(\.toolCallId) == ["r1"])
        #expect(reopened.deferredToolCalls().map(\.sessionId) == [s.id])
        #expect(try reopened.get(id: s.id).deferredToolCalls.first?.reason == "expensiveNetwork")
        _ = try reopened.beginToolCall(id: s.id, toolCallId: "r1", name: "web_research", arguments: ["q": "x"])
        try reopened.finishToolCall(id: s.id, toolCallId: "r1", result: "done")
        #expect(try f.store().get(id: s.id).deferredToolCalls.isEmpty)
        // An abandoned deferred call can be closed with a result without running it.
        _ = try store.deferToolCall(id: s.id, toolCallId: "r2", name: "web_research", arguments: [:], reason: "lowBattery")
        try store.finishToolCall(id: s.id, toolCallId: "r2", result: "the user gave up", isError: true)
        #expect(try store.get(id: s.id).deferredToolCalls.isEmpty)
    }

    @Test("a deferral is found again by tool and arguments, and a read-only record of its id clears it (also after reopening)")
    func deferredFoundAndClearedByARead() throws {
        let f = Fixture()
        let store = f.store()
        let s = try session(in: .running, store)
        _ = try store.deferToolCall(id: s.id, toolCallId: "m1", name: "search_files", arguments: ["query": "a"], reason: "thermal")
        _ = try store.deferToolCall(id: s.id, toolCallId: "m2", name: "search_files", arguments: ["query": "b"], reason: "thermal")
        #expect(try store.openDeferral(id: s.id, name: "search_files") { $0["query"] == "b" }?.toolCallId == "m2")
        #expect(try store.openDeferral(id: s.id, name: "search_files", preferring: "m1") { _ in false }?.toolCallId == "m1")
        #expect(try store.openDeferral(id: s.id, name: "read_file") { _ in true } == nil)
        #expect(try store.openDeferral(id: s.id, name: "search_files") { $0["query"] == "c" } == nil)
        try store.recordReadOnlyToolCall(id: s.id, toolCallId: "m2", name: "search_files", arguments: ["query": "b"],
                                         result: "found", isError: false)
        #expect(try store.get(id: s.id).deferredToolCalls.map(\.toolCallId) == ["m1"])
        _ = try store.deferToolCall(id: s.id, toolCallId: "x", name: "write_file", arguments: [:], reason: "thermal")  // a durable write after the read
        #expect(try f.store().get(id: s.id).deferredToolCalls.map(\.toolCallId) == ["m1", "x"])
    }
}
