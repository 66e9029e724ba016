"""Notifications as async iterators: file changes, session states, log messages."""
from __future__ import annotations

import asyncio

import pytest

from workspace_bridge import ConnectionClosed, spawn


def run(place, scenario, **options):
    async def main():
        async with spawn(**place.options(**options)) as client:
            return await scenario(client)
    return asyncio.run(main())


async def changes_until(stream, path: str, timeout: float = 10.0) -> list[dict]:
    seen: list[dict] = []
    while not any(c["path"] == path for c in seen):
        params = await stream.next(timeout)
        seen += params["changes"]
    return seen


def test_watch_files_delivers_changes_by_anyone_as_an_async_iterator(place):
    async def scenario(c):
        async with c.notifications("workspace/didChangeFiles") as changes:
            watching = await c.watch_files(glob="**/*.md")
            await c.save_file(path="notes/a.md", data="a")
            await changes_until(changes, "notes/a.md")
            (place.root / "notes" / "shell.md").write_text("from a shell")
            seen = await changes_until(changes, "notes/shell.md")
            await c.save_file(path="notes/ignored.txt", data="x")
            await asyncio.sleep(0.7)
            later = [ch for p in changes.drain() for ch in p["changes"]]
        return watching, seen, later

    watching, seen, later = run(place, scenario)

    assert watching == {"watching": True}
    assert {"path": "notes/shell.md", "type": "created"} in seen or \
        {"path": "notes/shell.md", "type": "changed"} in seen
    assert all(ch["path"].endswith(".md") for ch in later), "the glob filters what is reported"


def test_the_initialize_capability_subscribes_to_changes_without_watch_files(place):
    async def scenario(c):
        changes = c.notifications("workspace/didChangeFiles")
        await c.save_file(path="cap.txt", data="x")
        seen = await changes_until(changes, "cap.txt")
        changes.close()
        return seen, changes.finished

    seen, finished = run(place, scenario, capabilities={"workspace": {"didChangeFiles": True}})

    assert any(ch["path"] == "cap.txt" for ch in seen) and finished


def test_session_state_changes_arrive_in_order(place):
    async def scenario(c):
        states = c.notifications("session/didChangeState")
        session = await c.session_create(title="t", config={"modelTier": "fast"})
        await c.session_transition(id=session["id"], to="running")
        await c.session_transition(id=session["id"], to="completed")
        return session, [await states.next(2), await states.next(2)]

    session, notes = run(place, scenario)

    assert [(n["id"], n["from"], n["to"]) for n in notes] == \
        [(session["id"], "idle", "running"), (session["id"], "running", "completed")]


def test_log_messages_arrive_when_trace_is_on(place):
    async def scenario(c):
        logs = c.notifications("window/logMessage")
        await c.debug_log(level="error", message="from the python client")
        while True:
            entry = await logs.next(2)
            if "from the python client" in entry["message"]:
                return entry

    entry = run(place, scenario, trace="messages", debug_methods=True)

    assert entry["type"] == 1


def test_streams_end_and_pending_calls_fail_when_the_server_dies(place):
    async def scenario():
        client = await spawn(debug_methods=True, **place.options())
        changes = client.notifications("workspace/didChangeFiles")
        call = client.debug_sleep(ms=10_000)
        await asyncio.sleep(0.1)
        client.process.kill()
        with pytest.raises(ConnectionClosed):
            await call
        items = [n async for n in changes]
        status = await client.close()
        return items, status, client.closed

    items, status, closed = asyncio.run(scenario())

    assert items == [] and status == -9 and closed
