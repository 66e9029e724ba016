"""ACP sessions between two real devices kept in sync by Syncthing (issue 24, point 7): a session
started through the ACP face on device A is listed and loadable through the ACP face on device B,
with B's paths, and goes on there.

Reuses test_syncthing's fixtures: two Syncthing devices sharing folder `ws`, a bridge on each with
its cloud root on that device's folder, cloud chosen; each proxy runs on its device's roots and
config folder (so on its cloud root, and as that device). Skipped, like test_syncthing, when
Syncthing cannot be installed."""
from __future__ import annotations

from acp_helpers import Proxy, check_agent_logs, journal, run
from storage_helpers import wait_until
from test_syncthing import _connected, bridges, devices, rest  # noqa: F401  (fixtures)


def _storage(roots):
    return ["--local-root", str(roots.local), "--cloud-root", str(roots.cloud), "--config-dir", str(roots.config)]


def _stopped(roots, sid, stops):
    try:
        records = journal(roots.cloud, sid)
    except (OSError, ValueError):
        return False
    return sum(1 for r in records if r["t"] == "msg" for m in r["m"] if m["content"].get("acp") == "stop") >= stops


def test_a_session_started_on_a_is_listed_and_loadable_on_b(bridges, binary, tmp_path):
    a, b = bridges
    ra, rb = a.roots, b.roots

    async def on_a():
        p = Proxy(binary, ra.cloud, "stream_agent", tmp_path / "a", storage=_storage(ra))
        async with p.run():
            await p.start()
            sid = await p.new(str(ra.cloud))
            await p.prompt(sid, "stream 5")
        return p, sid, [u for s, u in p.editor.updates if s == sid]

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    pa, sid, shown = run(on_a())
    check_agent_logs(pa)
    # The proxy on A has exited (its lease released); the journal travels to B.
    wait_until(lambda: _stopped(rb, sid, 1), 30, "the session's journal to reach device B")

    async def on_b():
        p = Proxy(binary, rb.cloud, "stream_agent", tmp_path / "b", storage=_storage(rb))
        async with p.run():
            await p.start()
            listed = (await p.call(p.conn.list_sessions())).sessions
            mine = [s for s in listed if s.session_id == sid]
            assert mine and mine[0].cwd == str(rb.cloud) and mine[0].title == "stream 5"
            await p.call(p.conn.load_session(cwd=str(rb.cloud), session_id=sid, mcp_servers=[]))
            replayed = [u for s, u in p.editor.updates if s == sid]
            assert replayed[0] == {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "stream 5"}}
            assert replayed[1:] == shown
            # It goes on on B (B's agent has no state of A's: it is handed the history).
            assert (await p.prompt(sid, "hello")).stop_reason == "end_turn"
        return p
    check_agent_logs(run(on_b()))
    # And what B added travels back to A.
    wait_until(lambda: _stopped(ra, sid, 2), 30, "B's turn to reach device A")
