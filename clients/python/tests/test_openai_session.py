"""The OpenAI Agents SDK's own Runner over WorkspaceAgentsSession on the real server, with a
scripted model (no network): history carried between runs, a tool call's items, pop_item,
clear_session, a branch from an earlier turn (a server-side fork), usage per turn."""
from __future__ import annotations

import asyncio
from typing import Any, List

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from workspace_bridge import spawn
from workspace_bridge.openai_sessions import WorkspaceAgentsSession

set_tracing_disabled(True)


def said(text: str, n: int) -> ResponseOutputMessage:
    return ResponseOutputMessage(id=f"msg_{n}", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


class ScriptedModel(Model):
    """Answers from a script, one output list per model call, and keeps every input it was given."""

    def __init__(self, script: List[List[Any]]):
        self.script = list(script)
        self.inputs: List[Any] = []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
                           *, previous_response_id=None, conversation_id=None, prompt=None, **_: Any) -> ModelResponse:
        self.inputs.append(input)
        return ModelResponse(output=self.script.pop(0), usage=Usage(requests=1, input_tokens=100, output_tokens=10,
                                                                     total_tokens=110), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any):
        raise NotImplementedError("the tests run without streaming")


def texts(items: List[Any]) -> List[str]:
    out = []
    for i in items:
        c = i.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            out.append("".join(p.get("text", "") for p in c))
        elif i.get("type") == "function_call":
            out.append(f"call {i['name']}")
        elif i.get("type") == "function_call_output":
            out.append(f"output {i['output']}")
    return out


@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def test_the_runner_keeps_history_in_the_workspace_and_branches_from_an_earlier_turn(place):
    async def main():
        model = ScriptedModel([
            [ResponseFunctionToolCall(id="fc_1", call_id="call_1", type="function_call", name="weather",
                                      arguments='{"city": "Lisbon"}')],
            [said("Lisbon is sunny.", 1)],
            [said("Pack a hat.", 2)],
            [said("Try Porto.", 3)],
        ])
        agent = Agent(name="planner", instructions="Plan trips.", model=model, tools=[weather])
        async with spawn(**place.options()) as c:
            session = WorkspaceAgentsSession(c, "trip-42")
            r1 = await Runner.run(agent, "Weather in Lisbon?", session=session)
            await session.store_run_usage(r1, model="scripted")
            r2 = await Runner.run(agent, "What should I pack?", session=session)
            await session.store_run_usage(r2, model="scripted")
            main_items = await session.get_items()
            last_two = await session.get_items(limit=2)
            turns = await session.get_conversation_turns()
            # Branch from turn 2: the history before "What should I pack?", then a different question.
            branch = await session.create_branch_from_turn(2, "porto")
            branch_before = await session.get_items()
            r3 = await Runner.run(agent, "Somewhere else?", session=session)
            branch_items = await session.get_items()
            branches = await session.list_branches()
            # A new instance (another process, after a restart) continues on the branch.
            again = WorkspaceAgentsSession(c, "trip-42")
            continued = await again.get_items()
            await session.switch_to_branch("main")
            back_on_main = await session.get_items()
            popped = await session.pop_item()
            after_pop = await session.get_items()
            listed = (await c.session_list(agent_type="openai-agents"))["sessions"]
            stats = await c.session_stats(id=[s for s in listed if s["metadata"]["openai.branch"] == "main"][0]["id"])
            await session.delete_branch("porto")
            left = [b["branch_id"] for b in await session.list_branches()]
            await session.clear_session()
            cleared = await session.get_items()
            return (model, r1, r3, main_items, last_two, turns, branch, branch_before, branch_items, branches, continued,
                    back_on_main, popped, after_pop, listed, stats, left, cleared)

    (model, r1, r3, main_items, last_two, turns, branch, branch_before, branch_items, branches, continued,
     back_on_main, popped, after_pop, listed, stats, left, cleared) = asyncio.run(main())

    assert r1.final_output == "Lisbon is sunny." and r3.final_output == "Try Porto."
    assert texts(main_items) == ["Weather in Lisbon?", "call weather", "output sunny in Lisbon", "Lisbon is sunny.",
                                 "What should I pack?", "Pack a hat."]
    assert texts(last_two) == texts(main_items)[-2:]
    # The second run's model saw the first run's history, read back from the server.
    assert texts(model.inputs[2]) == texts(main_items)[:5]
    assert [t["turn"] for t in turns] == [1, 2] and turns[1]["full_content"] == "What should I pack?"
    assert branch == "porto" and texts(branch_before) == texts(main_items)[:4]
    assert texts(model.inputs[3]) == texts(main_items)[:4] + ["Somewhere else?"]
    assert texts(branch_items) == texts(main_items)[:4] + ["Somewhere else?", "Try Porto."]
    assert {b["branch_id"]: (b["is_current"], b["message_count"], b["user_turns"]) for b in branches} == {
        "main": (False, 6, 2), "porto": (True, 6, 2)}
    assert texts(continued) == texts(branch_items)
    assert texts(back_on_main) == texts(main_items)
    assert texts([popped]) == ["Pack a hat."] and texts(after_pop) == texts(main_items)[:-1]
    by_branch = {s["metadata"]["openai.branch"]: s for s in listed}
    assert by_branch["porto"]["parentId"] == by_branch["main"]["id"] and by_branch["porto"]["parentKind"] == "fork"
    # store_run_usage: each run's tokens in its own turn (the tools ran in the SDK, not through the server).
    assert [t["usage"]["inputTokens"] for t in stats["turns"]] == [200, 100]
    assert [t["userMessageId"] is not None for t in stats["turns"]] == [True, True]
    assert left == ["main"] and cleared == []
