"""The Claude Agent SDK's own SessionStore conformance suite (every optional method included)
against WorkspaceSessionStore on the real server, and what the transcripts are on the server's
side: sessions a front end sees, durable across a restart of the server."""
from __future__ import annotations

import asyncio

from claude_agent_sdk import list_sessions_from_store, project_key_for_directory
from claude_agent_sdk.testing import run_session_store_conformance

from workspace_bridge import spawn
from workspace_bridge.claude_sessions import WorkspaceSessionStore

PROJECT = "/home/me/trip-planner"
KEY = {"project_key": project_key_for_directory(PROJECT), "session_id": "2c6f0b1e-8a9d-4d3e-9f1a-0b1c2d3e4f50"}


def test_the_sdk_conformance_suite_passes_with_every_optional_method(place, tmp_path):
    async def main():
        clients = []

        async def make_store():
            # A workspace of its own per contract: the suite asks for isolated stores.
            n = len(clients)
            c = await spawn(**{**place.options(), "local_root": tmp_path / f"ws{n}", "config_dir": tmp_path / f"cfg{n}"})
            clients.append(c)
            return WorkspaceSessionStore(c)

        try:
            probe = await make_store()
            for method in ("list_sessions", "list_session_summaries", "delete", "list_subkeys"):
                assert getattr(type(probe), method) is not getattr(WorkspaceSessionStore.__mro__[1], method)
            await run_session_store_conformance(make_store)
        finally:
            for c in clients:
                await c.close()
        return len(clients)

    assert asyncio.run(main()) >= 14


def test_transcripts_are_workspace_sessions_that_survive_a_restart(place):
    entries = [{"type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00.000Z", "message": {"content": "hi"}},
               {"type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:00:01.000Z", "message": {"content": "yo"}},
               {"type": "custom-title", "customTitle": "Greeting"}]

    async def first():
        async with spawn(**place.options()) as c:
            store = WorkspaceSessionStore(c)
            await store.append(KEY, entries)
            await store.append(KEY, entries[:2])  # a retried batch: uuids store nothing twice
            await store.append({**KEY, "subpath": "subagents/agent-1"}, [{"type": "user", "uuid": "x", "n": 1}])
            listed = (await c.session_list(agent_type="claude-agent-sdk"))["sessions"]
            return listed, await c.session_messages(id=[s for s in listed if s["title"] == KEY["session_id"]][0]["id"])

    listed, msgs = asyncio.run(first())
    main = [s for s in listed if s["title"] == KEY["session_id"]][0]
    child = [s for s in listed if s["title"] == KEY["session_id"] + "/subagents/agent-1"][0]
    assert child["parentId"] == main["id"] and child["parentKind"] == "child"
    assert [(m["id"], m["role"]) for m in msgs["messages"]][:2] == [("u1", "user"), ("a1", "assistant")]
    assert len(msgs["messages"]) == 3

    async def second():
        async with spawn(**place.options()) as c:
            store = WorkspaceSessionStore(c)
            return (await store.load(KEY), await store.list_subkeys(KEY), await store.list_sessions(KEY["project_key"]),
                    await store.list_session_summaries(KEY["project_key"]),
                    await list_sessions_from_store(store, directory=PROJECT))

    loaded, subkeys, sessions, summaries, infos = asyncio.run(second())
    assert loaded == entries and subkeys == ["subagents/agent-1"]
    assert [s["session_id"] for s in sessions] == [KEY["session_id"]]
    assert summaries[0]["mtime"] == sessions[0]["mtime"]
    # The SDK's own listing, from the summaries the adapter keeps (no transcript loaded).
    assert [(i.session_id, i.custom_title) for i in infos] == [(KEY["session_id"], "Greeting")]
