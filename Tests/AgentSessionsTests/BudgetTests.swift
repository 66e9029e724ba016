import JSON
import Synchronization
import Testing
@testable import AgentSessions

struct LimitCase: Sendable, CustomTestStringConvertible {
    let name: String
    let config: SessionConfig
    /// (input, output) tokens per call; the last call goes over.
    let calls: [(Int, Int)]
    var testDescription: String { name }
}

let limitCases: [LimitCase] = [
    LimitCase(name: "maxInputTokens", config: SessionConfig(maxInputTokens: 1000), calls: [(600, 1), (400, 1), (1, 1)]),
    LimitCase(name: "maxOutputTokens", config: SessionConfig(maxOutputTokens: 100), calls: [(1, 60), (1, 40), (1, 1)]),
    LimitCase(name: "maxTurns", config: SessionConfig(maxTurns: 2), calls: [(1, 1), (1, 1), (1, 1)]),
    // balanced: $3 in / $15 out per million; each call costs 0.003 + 0.015 = $0.018.
    LimitCase(name: "maxCostUSD", config: SessionConfig(modelTier: .balanced, maxCostUSD: 0.036),
              calls: [(1000, 1000), (1000, 1000), (1, 0)]),
]

@Suite("Budgets")
struct BudgetTests {
    @Test("reaching a limit is allowed; going over it fails the session with BudgetExceeded", arguments: limitCases)
    func eachLimit(_ c: LimitCase) throws {
        let f = Fixture()
        let store = f.store()
        let seen = Mutex<[StateChange]>([])
        store.setStateChangeHandler { change in seen.withLock { $0.append(change) } }
        let s = try store.create(config: c.config)
        _ = try store.transition(id: s.id, to: .running)

        var reports: [UsageReport] = []
        for (i, o) in c.calls { reports.append(try store.recordUsage(id: s.id, inputTokens: i, outputTokens: o)) }

        for r in reports.dropLast() { #expect(r.exceeded.isEmpty) }
        #expect(reports.dropLast().last?.session.state == .running)
        let last = reports.last!
        #expect(last.exceeded == [c.name])
        #expect(last.session.state == .failed)
        #expect(last.session.error?["code"] == "BudgetExceeded")
        #expect(last.session.error?["exceeded"] == [.string(c.name)])
        #expect(seen.withLock { $0.last } == StateChange(id: s.id, from: .running, to: .failed, reason: "BudgetExceeded"))
    }

    @Test("the usage and the failure are one durable record")
    func oneDurableStep() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(config: SessionConfig(maxTurns: 1))
        _ = try store.transition(id: s.id, to: .running)
        _ = try store.recordUsage(id: s.id, inputTokens: 10, outputTokens: 5)
        let before = f.lines(f.journal(s.id)).count

        let report = try store.recordUsage(id: s.id, inputTokens: 10, outputTokens: 5)

        let lines = f.lines(f.journal(s.id))
        #expect(lines.count == before + 1)  // one new record holds both facts
        #expect(lines[lines.count - 2].contains(#""fail":{"code":"BudgetExceeded""#))
        let reopened = try f.store().get(id: s.id)
        #expect(reopened.state == .failed)
        #expect(reopened.usage == report.usage)
        #expect(reopened.usage.turns == 2)
    }

    @Test("remaining shows what is left of each limit, never below zero")
    func remaining() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(config: SessionConfig(modelTier: .fast, maxInputTokens: 1000, maxTurns: 5, maxCostUSD: 1))
        _ = try store.transition(id: s.id, to: .running)

        let r = try store.recordUsage(id: s.id, inputTokens: 400, outputTokens: 100)

        #expect(r.remaining.inputTokens == 600)
        #expect(r.remaining.outputTokens == nil)
        #expect(r.remaining.turns == 4)
        // fast: 400 × 0.25 + 100 × 1.25 = 225 micro-dollars.
        #expect(abs(r.remaining.costUSD! - (1 - 0.000225)) < 1e-12)
    }

    @Test("usage on a session failed by its budget is refused with BudgetExceeded")
    func afterFailure() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(config: SessionConfig(maxTurns: 0))
        _ = try store.transition(id: s.id, to: .running)
        _ = try store.recordUsage(id: s.id, inputTokens: 1, outputTokens: 1)

        let error = #expect(throws: SessionError.self) { try store.recordUsage(id: s.id, inputTokens: 1, outputTokens: 1) }

        #expect(error?.code == "BudgetExceeded")
        #expect(try store.get(id: s.id).usage.turns == 1)
    }

    @Test("usage is the sum of every acknowledged call, across reopening")
    func sums() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(config: SessionConfig(model: "m"))
        _ = try store.transition(id: s.id, to: .running)
        var cost = 0.0
        for k in 1...20 {
            let r = try store.recordUsage(id: s.id, inputTokens: k * 10, outputTokens: k)
            cost += store.pricing.cost(inputTokens: k * 10, outputTokens: k, model: "m", tier: nil)
            #expect(r.usage.turns == k)
        }

        let u = try f.store().get(id: s.id).usage

        #expect(u.inputTokens == 2100)
        #expect(u.outputTokens == 210)
        #expect(u.turns == 20)
        #expect(u.estimatedCostUSD == cost)
    }

    @Test("negative token counts are InvalidArgument")
    func negative() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create()
        let error = #expect(throws: SessionError.self) { try store.recordUsage(id: s.id, inputTokens: -1, outputTokens: 0) }
        #expect(error?.code == "InvalidArgument")
    }
}

@Suite("Pricing")
struct PricingTests {
    @Test("the defaults are the seeds' tiers, per million tokens")
    func defaults() {
        let p = Pricing()
        #expect(p.price(model: nil, tier: .fast) == Pricing.Price(input: 0.25, output: 1.25))
        #expect(p.price(model: nil, tier: .balanced) == Pricing.Price(input: 3, output: 15))
        #expect(p.price(model: nil, tier: .powerful) == Pricing.Price(input: 15, output: 75))
        #expect(p.cost(inputTokens: 1_000_000, outputTokens: 0, model: nil, tier: .fast) == 0.25)
        #expect(p.cost(inputTokens: 1_000_000, outputTokens: 1_000_000, model: nil, tier: .powerful) == 90)
        #expect(p.cost(inputTokens: 1_000_000, outputTokens: 0, model: nil, tier: nil) == 3)  // default tier
        #expect(p.cost(inputTokens: 1_000_000, outputTokens: 0, model: "unknown", tier: nil) == 0)  // unpriced, not guessed
    }

    @Test("a pricing file overrides tiers (one price at a time) and adds models, which win over tiers")
    func overrides() throws {
        let f = Fixture()
        let path = f.root + "/pricing.json"
        f.write(path, Array(#"{"tiers": {"fast": {"input": 0.5}, "powerful": {"input": 10, "output": 50}}, "models": {"big-1": {"input": 20, "output": 80}}}"#.utf8))

        let p = try Pricing.load(file: path)

        #expect(p.price(model: nil, tier: .fast) == Pricing.Price(input: 0.5, output: 1.25))
        #expect(p.price(model: nil, tier: .balanced) == Pricing.Price(input: 3, output: 15))
        #expect(p.price(model: nil, tier: .powerful) == Pricing.Price(input: 10, output: 50))
        #expect(p.cost(inputTokens: 1_000_000, outputTokens: 1_000_000, model: "big-1", tier: .fast) == 100)
        #expect(p.quote(model: "other", tier: .fast) == .unpriced("other"))
        #expect(p.cost(inputTokens: 1_000_000, outputTokens: 0, model: nil, tier: .fast) == 0.5)
    }

    @Test("a session is priced by its model, else its tier", arguments: [
        (SessionConfig(modelTier: .powerful, model: "big-1"), 20.0),
        (SessionConfig(modelTier: .powerful), 15.0),
        (SessionConfig(), 3.0),
    ])
    func sessionPricing(_ config: SessionConfig, _ expected: Double) throws {
        let f = Fixture()
        let store = f.store(pricing: Pricing(models: ["big-1": .init(input: 20, output: 80)]))
        let s = try store.create(config: config)
        _ = try store.transition(id: s.id, to: .running)

        let r = try store.recordUsage(id: s.id, inputTokens: 1_000_000, outputTokens: 0)

        #expect(r.usage.estimatedCostUSD == expected)
    }

    @Test("a malformed or missing pricing file is refused, never ignored", arguments: [
        #"{"tiers": {"huge": {"input": 1, "output": 1}}}"#, #"{"tiers": {"fast": {"input": -1}}}"#,
        #"{"models": {"m": {"input": 1}}}"#, "not json",
    ])
    func malformed(_ content: String) throws {
        let f = Fixture()
        let path = f.root + "/pricing.json"
        f.write(path, Array(content.utf8))
        let error = #expect(throws: SessionError.self) { try Pricing.load(file: path) }
        #expect(error?.code == "InvalidArgument")
        #expect((#expect(throws: SessionError.self) { try Pricing.load(file: f.root + "/none.json") })?.code == "NotFound")
    }
}
