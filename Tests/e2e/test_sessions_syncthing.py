"""Agent sessions between two real devices kept in sync by Syncthing (issue 17: a fork made on A
resumes on B; an export made on A imports on B).

Reuses test_syncthing's fixtures: two Syncthing devices sharing folder `ws`, a bridge on each with
its cloud root on that device's folder, cloud chosen (sessions live in `.workspace/sessions/` of
the active root, so they travel with the workspace). Every wait is bounded. Skipped, like
test_syncthing, when Syncthing cannot be installed.
"""
from __future__ import annotations

import hashlib
import json
import time

from storage_helpers import wait_until
from test_syncthing import _connected, bridges, devices, rest  # noqa: F401  (fixtures)


def _ids(b, sid):
    r = b.call("session/messages", {"id": sid, "limit": 1000})
    return [m["id"] for m in r["result"]["messages"]] if "result" in r else None


def _whole_export(path):
    if not path.is_file():
        return False
    data = path.read_bytes()
    try:
        value = json.loads(data)["checksum"]["value"]
    except (ValueError, KeyError, TypeError):
        return False
    i = data.rindex(value.encode())
    return hashlib.sha256(data[:i] + b"0" * 64 + data[i + 64:]).hexdigest() == value


# -- issue 25: a Claude Agent SDK transcript forked on A, loaded on B ------------------------
# (First in the file: the bridges are shared by the module, and the next test shuts A down.)

CLIENT_PACKAGE = __import__("pathlib").Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT_PACKAGE) not in __import__("sys").path:  # the checkout's client
    __import__("sys").path.insert(0, str(CLIENT_PACKAGE))


def _over(bridge):
    """The Python client's typed methods over an e2e Bridge (every message schema-checked)."""
    import asyncio

    from workspace_bridge.errors import BridgeError
    from workspace_bridge.methods import Methods

    class Over(Methods):
        def __init__(self):  # no connection of its own: the bridge's
            pass

        def request(self, method, params=None, **_):
            async def answer():
                r = await asyncio.to_thread(bridge.call, method, params, 30.0)
                if "error" in r:
                    e = r["error"]
                    raise BridgeError(e["code"], e["message"], e.get("data"), method)
                return r["result"]
            return answer()
    return Over()


def test_a_claude_session_store_transcript_forked_on_a_loads_on_b(bridges):
    import asyncio

    from claude_agent_sdk import fork_session_via_store, project_key_for_directory

    from workspace_bridge.claude_sessions import WorkspaceSessionStore

    a, b = bridges
    project = "/home/me/syncthing-trip"
    key = {"project_key": project_key_for_directory(project), "session_id": "7b0d1c2e-3f40-4a5b-8c6d-7e8f90a1b2c3"}
    entries = [{"type": "user", "uuid": f"00000000-0000-4000-8000-00000000000{i}", "sessionId": key["session_id"],
                "parentUuid": None if i == 1 else f"00000000-0000-4000-8000-00000000000{i - 1}",
                "timestamp": f"2026-01-01T00:00:0{i}.000Z",
                "message": {"role": "user" if i % 2 else "assistant", "content": f"step {i}"}} for i in range(1, 5)]

    async def on_a():
        store = WorkspaceSessionStore(_over(a))
        await store.append(key, entries)
        await store.append({**key, "subpath": "subagents/agent-1"}, [{"type": "user", "uuid": "sub-1", "n": 1}])
        forked = await fork_session_via_store(store, key["session_id"], directory=project, title="branch")
        return forked.session_id, await store.load({**key, "session_id": forked.session_id})

    fork_id, fork_on_a = asyncio.run(on_a())
    assert fork_id != key["session_id"] and len(fork_on_a) >= len(entries)

    store_b = WorkspaceSessionStore(_over(b))

    def on_b(read):
        try:
            return asyncio.run(read)
        except Exception as e:  # a journal Syncthing is still replacing reads as NotFound for a moment
            if getattr(e, "data_code", None) == "NotFound":
                return None
            raise
    wait_until(lambda: on_b(store_b.load({**key, "session_id": fork_id})) == fork_on_a, 30,
               "the forked transcript, whole, on device B")
    # Syncthing sends the sessions' folders in no set order: the original and the subagent's may
    # come after the fork's, so each is waited for, whole, the same way.
    wait_until(lambda: on_b(store_b.load(key)) == entries, 30, "the original transcript, whole, on device B")
    wait_until(lambda: on_b(store_b.list_subkeys(key)) == ["subagents/agent-1"], 30,
               "the subagent transcript listed on device B")
    listed = {s["session_id"] for s in asyncio.run(store_b.list_sessions(key["project_key"]))}
    assert listed == {key["session_id"], fork_id}


def test_a_fork_made_on_a_resumes_on_b_and_an_export_made_on_a_imports_on_b(bridges):
    a, b = bridges
    parent = a.result("session/create", {"title": "trip"})["id"]
    a.result("session/appendMessages", {"id": parent, "messages": [
        {"role": "user" if i % 2 else "assistant", "content": f"step {i}", "id": f"m{i}"} for i in range(1, 6)]})
    fork = a.result("session/fork", {"id": parent, "atMessageId": "m3", "title": "trip (branch)"})["id"]
    a.result("session/appendMessages", {"id": fork, "messages": [{"role": "user", "content": "on A", "id": "a1"}]})
    exported = a.result("session/export", {"id": parent})
    assert exported["path"] == f"Chats/{parent}.json"

    # B sees the fork, its lineage and its history once Syncthing has carried it over.
    wait_until(lambda: _ids(b, fork) == ["m1", "m2", "m3", "a1"], 30, "the fork's history on device B")
    got = b.result("session/get", {"id": fork})
    assert got["parentId"] == parent and got["forkedAt"]["messageId"] == "m3"
    listed = {s["id"]: s for s in b.result("session/list", {})["sessions"]}
    assert listed[fork]["parentId"] == parent

    # The export file arrives whole and imports on B (the id is taken there: a new one).
    wait_until(lambda: _whole_export(b.roots.cloud / "Chats" / f"{parent}.json"), 30, "the export file on device B")
    imported = b.result("session/import", {"path": f"Chats/{parent}.json"})
    assert imported["replacedId"] == parent and imported["session"]["id"] != parent
    assert _ids(b, imported["session"]["id"]) == ["m1", "m2", "m3", "m4", "m5"]

    # A quits (shutdown gives up its leases); B resumes the fork and goes on with it.
    assert a.call("shutdown")["result"] is None
    t0 = time.monotonic()

    def resumed():
        r = b.call("session/resume", {"id": fork})
        if "error" in r:
            assert r["error"]["data"]["code"] == "SessionLocked", r
            return None
        return r["result"]
    r = wait_until(resumed, 30, "device B to take the fork over")
    print(f"fork taken over on B {time.monotonic() - t0:.2f}s after A's shutdown")
    assert [m["id"] for m in r["messagesTail"]] == ["m1", "m2", "m3", "a1"]
    b.result("session/appendMessages", {"id": fork, "messages": [{"role": "user", "content": "on B", "id": "b1"}]})
    assert _ids(b, fork) == ["m1", "m2", "m3", "a1", "b1"]
    # The parent goes on independently. (While Syncthing replaces a file B may briefly find no
    # journal there: that reads as NotFound, never as a crash, and the next read sees it whole.)
    wait_until(lambda: _ids(b, parent) == ["m1", "m2", "m3", "m4", "m5"], 10, "the parent, unchanged, on device B")
