"""The 2026-07-28 era sends no requests to the client, so no `roots/list`: a modern client narrows
the server with `mcp --root DIR` (repeatable; absolute or workspace-relative) and, per call, with
the tools' path arguments. A 2025 client's roots only narrow the configured folders further.
docs/mcp-2026.md §8, docs/protocol.md "MCP face".
"""
from __future__ import annotations

import time

import pytest

pytest.importorskip("mcp")

from mcp_helpers import file_uri, place, raw  # noqa: E402,F401
from mcp_modern import INVALID_PARAMS, SUB, rawm  # noqa: E402,F401


def _tree(place) -> None:
    for rel in ("inside/a.txt", "inside/deep/b.txt", "outside/c.txt"):
        p = place.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(rel + "\n")


@pytest.mark.parametrize("spelling", ["relative", "absolute"])
def test_root_option_narrows_tools_resources_and_listen_in_the_modern_era(rawm, place, spelling):
    _tree(place)
    root = "inside" if spelling == "relative" else str(place.root / "inside")
    r = rawm(extra=("--root", root))
    assert r.tool("read_file", {"path": "inside/a.txt"})["structuredContent"]["data"] == "inside/a.txt\n"
    refused = r.tool("read_file", {"path": "outside/c.txt"})
    assert refused["isError"] is True and refused["structuredContent"]["code"] == "OutsideWorkspace", refused
    found = r.tool("search_files", {"query": "txt"})          # the workspace root is outside the scope
    assert found["isError"] is True and found["structuredContent"]["code"] == "OutsideWorkspace", found
    assert {m["path"] for m in r.tool("search_files", {"query": "txt", "path": "inside"})["structuredContent"]["matches"]} \
        == {"inside/a.txt", "inside/deep/b.txt"}
    listed = {x["uri"] for x in r.mresult("resources/list")["resources"]}
    assert file_uri(place.root, "inside/a.txt") in listed and file_uri(place.root, "outside/c.txt") not in listed, listed
    err = r.merror("resources/read", {"uri": file_uri(place.root, "outside/c.txt")})
    assert err["code"] == INVALID_PARAMS and err["data"]["code"] == "OutsideWorkspace", err
    rid = r.mreq("subscriptions/listen", {"notifications": {"resourceSubscriptions": [file_uri(place.root, "outside/c.txt")]}})
    resp = r.response(rid)
    assert resp["error"]["code"] == INVALID_PARAMS and resp["error"]["data"]["code"] == "OutsideWorkspace", resp
    assert not [m for _, m in r.log if m.get("method") == "roots/list"], "the modern era asked the client for roots"


def test_a_root_outside_the_workspace_is_refused_not_widened(rawm, place):
    _tree(place)
    (place.tmp / "elsewhere").mkdir()
    r = rawm(extra=("--root", str(place.tmp / "elsewhere")))
    err = r.merror("tools/list")
    assert err["data"]["code"] == "OutsideWorkspace" and "--root" in err["message"], err
    # the server keeps serving (and keeps refusing: nothing was opened wider)
    assert r.merror("tools/call", {"name": "read_file", "arguments": {"path": "outside/c.txt"}})["data"]["code"] == "OutsideWorkspace"


def test_a_legacy_clients_roots_only_narrow_the_configured_folders(raw, place):
    _tree(place)
    r = raw(extra=("--root", "inside"))
    r.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": True}},
                            "clientInfo": {"name": "raw-test", "version": "1"}})
    r.notify("notifications/initialized")
    ask = r.wait_for(lambda m: m.get("method") == "roots/list", timeout=5)
    r.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": file_uri(place.root)}]}})   # the whole workspace
    r.drain(0.5)
    res = r.result("tools/call", {"name": "read_file", "arguments": {"path": "outside/c.txt"}})
    assert res["isError"] is True and res["structuredContent"]["code"] == "OutsideWorkspace", res
    assert r.result("tools/call", {"name": "read_file", "arguments": {"path": "inside/a.txt"}})["isError"] is False


def test_many_open_subscriptions_hold_no_worker_thread(rawm, place):
    """Each listen is one long-lived request; 64 open at once leave the server answering tool
    calls, and one change reaches every stream."""
    _tree(place)
    r = rawm()
    uri = file_uri(place.root, "inside/a.txt")
    for i in range(64):
        r.mreq("subscriptions/listen", {"notifications": {"resourceSubscriptions": [uri]}}, id=f"s{i}")
    r.wait_for(lambda m: m.get("method") == "notifications/subscriptions/acknowledged"
               and m["params"]["_meta"][SUB] == "s63", timeout=10)
    for _ in range(20):
        assert r.tool("read_file", {"path": "inside/a.txt"}, timeout=5)["isError"] is False
    mark = len(r.log)
    with open(place.root / "inside/a.txt", "a") as f:
        f.write("more\n")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        got = {m["params"]["_meta"][SUB] for _, m in r.log[mark:] if m.get("method") == "notifications/resources/updated"}
        if len(got) == 64:
            break
        r.drain(0.2)
    assert len(got) == 64, f"{64 - len(got)} streams missed the change"
