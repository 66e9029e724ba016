"""Approvals on the MCP face through the official `mcp` client (PyPI 2.x) with an elicitation
callback, in each of its modes: the modern ones drive `input_required` and the retry themselves,
the legacy one answers the server's `elicitation/create`. Accept runs the call; decline refuses it.
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


def _client(binary, place, mode, callback, extra=("--approval-policy", "destructive")):
    params = StdioServerParameters(command=str(binary), args=server_args(place.root, place.cfg, extra=extra), env=server_env(place.tmp))
    errlog = open(place.tmp / "mcp-stderr.log", "a")
    return Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=30,
                  client_info=Implementation(name="e2e-approvals", version="1"), elicitation_callback=callback)


class Answers:
    """An elicitation callback answering `action` (and `approve`), recording what it was asked."""

    def __init__(self, action: str, approve: bool | None = None, remember: bool = False):
        self.action, self.approve, self.remember = action, approve, remember
        self.asked: list[mcp_types.ElicitRequestParams] = []

    async def __call__(self, context, params):
        self.asked.append(params)
        content = None if self.approve is None else {"approve": self.approve, "remember": self.remember}
        return mcp_types.ElicitResult(action=self.action, content=content)


@pytest.mark.parametrize("mode", MODES)
@aio
async def test_accept_runs_the_call(binary, place, mode):
    answers = Answers("accept", True)
    async with _client(binary, place, mode, answers) as c:
        assert (c.protocol_version == MODERN) is (mode != "legacy")
        res = tool_ok(await c.call_tool("write_file", {"path": "a.txt", "content": "yes"}))
        assert res["size"] == 3
        assert (place.root / "a.txt").read_text() == "yes"
        assert len(answers.asked) == 1 and "write_file" in answers.asked[0].message
        # Read-only tools never ask.
        tool_ok(await c.call_tool("read_file", {"path": "a.txt"}))
        assert len(answers.asked) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", [("decline", None), ("accept", False)])
@aio
async def test_decline_refuses_the_call(binary, place, mode, answer):
    (place.root).mkdir(parents=True)
    (place.root / "a.txt").write_text("keep")
    answers = Answers(*answer)
    async with _client(binary, place, mode, answers) as c:
        tool_error(await c.call_tool("delete_file", {"path": "a.txt"}), "ApprovalDenied")
        assert (place.root / "a.txt").read_text() == "keep"
        assert len(answers.asked) == 1 and "delete_file" in answers.asked[0].message


@pytest.mark.parametrize("mode", MODES)
@aio
async def test_remember_asks_once_per_tool(binary, place, mode):
    answers = Answers("accept", True, remember=True)
    async with _client(binary, place, mode, answers) as c:
        for i in range(3):
            tool_ok(await c.call_tool("write_file", {"path": f"f{i}.txt", "content": str(i)}))
        assert len(answers.asked) == 1
        assert [(place.root / f"f{i}.txt").read_text() for i in range(3)] == ["0", "1", "2"]
