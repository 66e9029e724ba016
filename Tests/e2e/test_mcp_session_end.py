"""The session a `workspace-bridge mcp` process creates is ended when the process exits cleanly
(end of input): `completed` when tool calls were journaled in it (so retention can prune it),
deleted when nothing was (a client that only probed or listed leaves nothing behind). A session
attached with `--session ID` keeps its state; a killed process leaves its session as it was.
Checked through the JSON-RPC face (`session/list`, `session/get`) of a plain server on the same
workspace, after the MCP process exited. docs/decisions.md says why.
"""
from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from mcp_helpers import aio, connect, place, raw, session_id_of, tool_ok  # noqa: E402,F401
from mcp_modern import rawm  # noqa: E402,F401


def _plain(raw, place):
    r = raw(args=["--local-root", str(place.root), "--config-dir", str(place.cfg)])
    r.result("initialize", {})
    return r


def _sessions(raw, place) -> dict[str, dict]:
    r = _plain(raw, place)
    listed = {s["id"]: s for s in r.result("session/list", {"limit": 500})["sessions"]}
    r.close()
    return listed


def test_modern_era_session_with_tool_calls_is_completed_at_end_of_input(rawm, raw, place):
    r = rawm()
    sid = session_id_of(r.mresult("server/discover"))
    assert r.tool("write_file", {"path": "a.txt", "content": "x"})["isError"] is False
    assert r.close() == 0
    listed = _sessions(raw, place)
    assert sid in listed, f"session {sid} is gone: {list(listed)}"
    assert listed[sid]["state"] == "completed" and listed[sid]["agentType"] == "mcp", listed[sid]


def test_a_session_with_only_reads_is_completed_not_deleted(raw, place):
    (place.root).mkdir(parents=True, exist_ok=True)
    (place.root / "r.txt").write_text("read me\n")
    r = raw()
    sid = session_id_of(r.initialize())
    assert r.result("tools/call", {"name": "read_file", "arguments": {"path": "r.txt"}})["isError"] is False
    assert r.close() == 0
    listed = _sessions(raw, place)
    assert listed.get(sid, {}).get("state") == "completed", listed.get(sid)


def test_a_session_nothing_was_journaled_in_is_deleted_at_exit(rawm, raw, place):
    r = rawm()
    sid = session_id_of(r.mresult("server/discover"))
    r.mresult("tools/list")
    assert (place.root / ".workspace" / "sessions" / sid).is_dir(), "the session was not created"
    assert r.close() == 0
    assert sid not in _sessions(raw, place)
    assert not (place.root / ".workspace" / "sessions" / sid).exists()


@aio
async def test_the_official_clients_session_is_completed_when_it_disconnects(binary, place, raw):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        sid = session_id_of(c.init)
        tool_ok(await c.session.call_tool("write_file", {"path": "b.txt", "content": "y"}))
    listed = _sessions(raw, place)
    assert listed.get(sid, {}).get("state") == "completed", listed.get(sid)


@pytest.mark.parametrize("state", ["idle", "running"])
def test_an_attached_session_keeps_its_state(raw, place, state):
    p = _plain(raw, place)
    sid = p.result("session/create", {"title": "shared", "agentType": "mcp"})["id"]
    if state == "running":
        p.result("session/transition", {"id": sid, "to": "running"})
    p.close()
    r = raw(extra=("--session", sid))
    assert session_id_of(r.initialize()) == sid
    assert r.result("tools/call", {"name": "write_file", "arguments": {"path": "c.txt", "content": "z"}})["isError"] is False
    assert r.close() == 0
    p = _plain(raw, place)
    got = p.result("session/get", {"id": sid})
    assert got["state"] == state, got
    p.close()


def test_a_killed_process_leaves_its_session_running(rawm, raw, place):
    r = rawm()
    sid = session_id_of(r.mresult("server/discover"))
    r.tool("write_file", {"path": "k.txt", "content": "x"})
    r.kill()
    assert _sessions(raw, place).get(sid, {}).get("state") == "running"
