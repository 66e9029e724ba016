"""The device policy on the MCP face through the official `mcp` client (PyPI 2.x) with an
elicitation callback, in each of its modes (the modern ones drive `input_required` and the retry
themselves, the legacy one answers the server's `elicitation/create`). The host sets the
conditions through the JSON-RPC face of a server on the same workspace and config folder.
"""
from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import mcp_types  # noqa: E402
from mcp import Client, StdioServerParameters, stdio_client  # noqa: E402
from mcp_types import Implementation  # noqa: E402

from mcp_helpers import aio, place, server_args, server_env, tool_error, tool_ok  # noqa: E402,F401
from mcp_modern import MODERN  # noqa: E402

MODES = ["2026-07-28", "auto", "legacy"]
LOW_BATTERY = {"network": "wifi", "batteryLevel": 0.12, "isCharging": False}
NORMAL = {"network": "wifi", "batteryLevel": 0.9, "isCharging": True}


class Answers:
    """An elicitation callback answering `action` (and `confirm`), recording what it was asked."""

    def __init__(self, action: str, confirm: bool | None = None):
        self.action, self.confirm = action, confirm
        self.asked: list[mcp_types.ElicitRequestParams] = []

    async def __call__(self, context, params):
        self.asked.append(params)
        return mcp_types.ElicitResult(action=self.action, content=None if self.confirm is None else {"confirm": self.confirm})


def _client(binary, place, mode, callback):
    params = StdioServerParameters(command=str(binary), args=server_args(place.root, place.cfg), env=server_env(place.tmp))
    errlog = open(place.tmp / "mcp-stderr.log", "a")
    return Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=30,
                  client_info=Implementation(name="e2e-device", version="1"), elicitation_callback=callback)


@pytest.fixture
def host(spawn, place):
    (place.root / "notes").mkdir(parents=True, exist_ok=True)
    (place.root / "notes/a.md").write_text("a needle\n")
    return spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)


def _listed(host) -> list[dict]:
    return host.result("session/listDeferred")["calls"]


@pytest.mark.parametrize("mode", MODES)
@aio
async def test_accept_runs_the_deferred_search(binary, place, host, mode):
    host.result("host/setConditions", LOW_BATTERY)
    answers = Answers("accept", True)
    async with _client(binary, place, mode, answers) as c:
        assert (c.protocol_version == MODERN) is (mode != "legacy")
        res = tool_ok(await c.call_tool("search_files", {"query": "needle"}))
        assert [m["path"] for m in res["matches"]] == ["notes/a.md"]
        assert len(answers.asked) == 1
        assert "search_files" in answers.asked[0].message and "battery at 12%, not charging" in answers.asked[0].message
    assert _listed(host) == []


@pytest.mark.parametrize("mode", MODES)
@aio
async def test_decline_is_deferred_listed_and_runs_once_conditions_allow(binary, place, host, mode):
    host.result("host/setConditions", LOW_BATTERY)
    answers = Answers("decline")
    async with _client(binary, place, mode, answers) as c:
        s = tool_error(await c.call_tool("search_files", {"query": "needle"}), "Deferred")
        assert s["reason"] == "lowBattery" and s["confirmable"] is True and len(answers.asked) == 1
        listed = _listed(host)
        assert [(d["toolCallId"], d["sessionId"], d["name"]) for d in listed] == [(s["toolCallId"], s["sessionId"], "search_files")]
        host.result("host/setConditions", NORMAL)
        res = tool_ok(await c.call_tool("search_files", {"query": "needle"}))
        assert [m["path"] for m in res["matches"]] == ["notes/a.md"]
        assert len(answers.asked) == 1  # nothing to ask once the conditions allow
        assert _listed(host) == []
