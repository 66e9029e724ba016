import AgentSessions
import JSON
import JSONRPC

/// What the agent reports it spent, counted in the session's usage and budget.
///
/// Guarantees: each answered `session/prompt` is one turn of the session (`recordUsage`), with
/// the turn's tokens when the agent's answer carries `usage` (ACP unstable: `inputTokens`,
/// `outputTokens`) and, as its cost, what the agent's cumulative `usage_update.cost` (in USD)
/// rose by since the last turn. A cumulative figure counts from the agent session's start: from
/// 0 for an agent session made afresh (`session/new`, a fork, an agent that could not load it),
/// from the last figure in the journal for one the agent resumed or loaded; a figure lower than
/// the last is the agent's new start. Other currencies are journaled, not counted. A turn that
/// takes the session over its budget fails it (`BudgetExceeded`), and its next prompt is refused
/// with that error, never reaching the agent.
extension ACPProxy {
    /// A `session/update` from the agent about our session `sid`, before it is shown.
    func noteUpdate(_ sid: String, _ update: JSON) {
        guard update["sessionUpdate"]?.stringValue == "usage_update", let cost = update["cost"],
              cost["currency"]?.stringValue?.uppercased() == "USD", let amount = cost["amount"]?.doubleValue,
              amount.isFinite, amount >= 0 else { return }
        let counted = costCounted[sid] ?? lastJournaledCost(sid)
        costDue[sid, default: 0] += max(0, amount - counted)
        costCounted[sid] = amount
    }

    /// The agent answered a prompt of `sid`: one turn of the session, with what it cost.
    func countTurn(_ sid: String, result: JSON) {
        let usage = result["usage"]
        let input = Int(clamping: max(0, usage?["inputTokens"]?.intValue ?? 0))
        let output = Int(clamping: max(0, usage?["outputTokens"]?.intValue ?? 0))
        let cost = costDue.removeValue(forKey: sid)
        do throws(SessionError) {
            let report = try store.recordUsage(id: sid, inputTokens: input, outputTokens: output, costUSD: cost ?? 0)
            if !report.exceeded.isEmpty {
                logger.notice("acp: session \(sid) went over its budget (\(report.exceeded.joined(separator: ", "))); its next prompt is refused")
            }
        } catch {
            if let cost { costDue[sid, default: 0] += cost }
            logger.warning("acp: session \(sid): the turn's usage was not recorded: \(error.message)")
        }
    }

    /// `BudgetExceeded` when session `sid` failed over its budget (its prompts are refused), else nil.
    func budgetRefusal(_ sid: String) -> RPCError? {
        guard let s = try? store.get(id: sid), s.state == .failed, let error = s.error,
              error["code"]?.stringValue == "BudgetExceeded" else { return nil }
        return ACPErrors.budgetExceeded(sid, error)
    }

    /// The agent session of `sid` starts counting its cost from 0 (it was made afresh).
    func costStartsAfresh(_ sid: String) {
        costCounted[sid] = 0
    }

    /// The agent session of `sid` was resumed or loaded: its next cumulative figure counts from
    /// the last one journaled (looked up when one comes).
    func costContinues(_ sid: String) {
        costCounted[sid] = nil
    }

    /// The last USD cost the agent reported in session `sid`'s journal (0 when none).
    private func lastJournaledCost(_ sid: String) -> Double {
        guard let messages = try? allMessages(sid) else { return 0 }
        for m in messages.reversed() where m.content["acp"]?.stringValue == "update" {
            guard let u = m.content["update"], u["sessionUpdate"]?.stringValue == "usage_update",
                  u["cost"]?["currency"]?.stringValue?.uppercased() == "USD", let a = u["cost"]?["amount"]?.doubleValue else { continue }
            return a
        }
        return 0
    }
}
