"""The ACP face counts what the agent reports it spent (`usage_update.cost`, the prompt answer's
`usage`) in the session's usage and budget: a session over budget refuses its next prompt with
BudgetExceeded, which never reaches the agent."""
import acp
import pytest

from acp_helpers import Proxy, agent_requests, check_agent_logs, root, run  # noqa: F401 (root: the fixture)
from test_acp_sessions import stored


def agent_prompts(p):
    """Every prompt text the agent runs received, in order."""
    return [b.get("text") for params in agent_requests(p, "session/prompt") for b in params["prompt"]]


def test_reported_cost_counts_and_a_session_over_budget_refuses_the_next_prompt(binary, root, tmp_path, spawn):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path, "--max-cost-usd", "1.0")
        async with p.run():
            await p.start()
            sid = await p.new()
            # The agent's figure is cumulative: 0.4, then 0.9 is 0.5 more; under the limit.
            await p.prompt(sid, "cost 0.4")
            await p.prompt(sid, "cost 0.9")
            await p.prompt(sid, "hello")
            # 1.3 takes it over: that turn ends normally, the next prompt is refused.
            r = await p.prompt(sid, "cost 1.3")
            assert r.stop_reason == "end_turn"
            with pytest.raises(acp.RequestError) as e:
                await p.prompt(sid, "one more")
            assert e.value.code == -32803 and e.value.data["code"] == "BudgetExceeded"
            assert e.value.data["sessionId"] == sid and e.value.data["exceeded"] == ["maxCostUSD"]
            assert "budget" in str(e.value)
            # Another session of the same proxy is not affected.
            other = await p.new()
            assert (await p.prompt(other, "hello")).stop_reason == "end_turn"
        return p, sid
    p, sid = run(go())
    assert "one more" not in agent_prompts(p)
    session, _ = stored(spawn, root, tmp_path, sid)
    assert session["state"] == "failed" and session["error"]["code"] == "BudgetExceeded"
    u = session["usage"]
    assert u["turns"] == 4 and u["inputTokens"] == 300 and u["outputTokens"] == 30
    assert abs(u["estimatedCostUSD"] - 1.3) < 1e-9
    check_agent_logs(p)


def test_a_resumed_agent_session_counts_its_cost_from_the_journal(binary, root, tmp_path, spawn):
    """After a restart of the proxy the agent loads its own session, whose cumulative figure goes
    on from the last one journaled: only the rise is counted."""
    async def first():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "cost 0.25")
        return sid

    async def second(sid):
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            await p.prompt(sid, "cost 0.75")
        return p
    sid = run(first())
    p = run(second(sid))
    session, _ = stored(spawn, root, tmp_path, sid)
    assert session["usage"]["turns"] == 2 and abs(session["usage"]["estimatedCostUSD"] - 0.75) < 1e-9
    check_agent_logs(p)
