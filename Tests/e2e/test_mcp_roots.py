"""MCP roots (docs/protocol.md, "MCP face"): the server asks a client that declares the roots
capability for its roots after `notifications/initialized` and after each
`notifications/roots/list_changed`. A root inside the workspace narrows what tools and resources
reach; a root outside it is refused and logged; with no accepted root the workspace stays whole.
"""
from __future__ import annotations

import os
import time

import anyio
import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")

import mcp.types as types  # noqa: E402

from mcp_helpers import aio, connect, file_uri, place, raw, roots_answer, tool_error, tool_ok  # noqa: E402,F401 (fixtures)


def make_tree(root) -> None:
    for rel, text in {"projA/a.md": "alpha\n", "projA/sub/deep.md": "deep alpha\n", "projB/b.md": "beta alpha\n",
                      "top.md": "top alpha\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


async def until_refused(session, path: str, timeout: float = 5.0):
    """The scope applies once the client's answer is read: wait for it, then return the refusal."""
    deadline = time.monotonic() + timeout
    while True:
        r = await session.call_tool("read_file", {"path": path})
        if r.is_error or time.monotonic() > deadline:
            return r
        await anyio.sleep(0.02)


@aio
async def test_a_root_inside_the_workspace_narrows_tools_and_resources(binary, place):
    place.root.mkdir(parents=True)
    make_tree(place.root)
    async with connect(binary, place.root, place.cfg, place.tmp,
                       list_roots=roots_answer([file_uri(place.root, "projA")])) as c:
        s = c.session
        refused = tool_error(await until_refused(s, "projB/b.md"), "OutsideWorkspace")
        assert "projA" in refused["error"], refused

        assert tool_ok(await s.call_tool("read_file", {"path": "projA/sub/deep.md"}))["data"] == "deep alpha\n"
        tool_ok(await s.call_tool("write_file", {"path": "projA/new.md", "content": "n\n"}))
        assert (place.root / "projA/new.md").read_text() == "n\n"
        tool_error(await s.call_tool("write_file", {"path": "projB/new.md", "content": "n\n"}), "OutsideWorkspace")
        assert not (place.root / "projB/new.md").exists()
        tool_error(await s.call_tool("move_file", {"from": "projA/a.md", "to": "projB/a.md"}), "OutsideWorkspace")
        assert (place.root / "projA/a.md").exists()
        tool_error(await s.call_tool("copy_file", {"from": "top.md", "to": "projA/top.md"}), "OutsideWorkspace")
        # A tool whose path defaults to the workspace root is outside a narrowed scope.
        tool_error(await s.call_tool("list_files", {}), "OutsideWorkspace")
        tool_error(await s.call_tool("search_files", {"query": "alpha"}), "OutsideWorkspace")
        found = tool_ok(await s.call_tool("search_files", {"query": "alpha", "path": "projA"}))
        assert sorted(m["path"] for m in found["matches"]) == ["projA/a.md", "projA/sub/deep.md"]

        listed = await s.list_resources()
        names = sorted(r.name for r in listed.resources)
        assert names == ["projA/a.md", "projA/new.md", "projA/sub/deep.md"], names
        ok = await s.read_resource(file_uri(place.root, "projA/a.md"))
        assert ok.contents[0].text == "alpha\n"
        with pytest.raises(Exception) as err:
            await s.read_resource(file_uri(place.root, "projB/b.md"))
        assert "outside the client's roots" in str(err.value)


@aio
async def test_roots_outside_the_workspace_are_refused_and_the_workspace_stays_whole(binary, place):
    place.root.mkdir(parents=True)
    make_tree(place.root)
    outside = place.tmp / "elsewhere"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n")
    async with connect(binary, place.root, place.cfg, place.tmp,
                       list_roots=roots_answer([file_uri(outside)])) as c:
        s = c.session
        deadline = time.monotonic() + 5
        while "refused" not in c.stderr() and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        log = c.stderr()
        assert f"MCP root {file_uri(outside)} refused: outside the workspace" in log, log
        # Nothing outside became reachable, everything inside still is.
        assert tool_ok(await s.call_tool("read_file", {"path": "projB/b.md"}))["data"] == "beta alpha\n"
        assert len(tool_ok(await s.call_tool("list_files", {"recursive": True}))["entries"]) >= 4
        tool_error(await s.call_tool("read_file", {"path": "../elsewhere/secret.md"}))


@aio
async def test_a_root_containing_the_workspace_leaves_it_whole(binary, place):
    place.root.mkdir(parents=True)
    make_tree(place.root)
    async with connect(binary, place.root, place.cfg, place.tmp,
                       list_roots=roots_answer([file_uri(place.tmp), file_uri(place.root, "projA")])) as c:
        s = c.session
        await anyio.sleep(0.3)
        assert tool_ok(await s.call_tool("read_file", {"path": "projB/b.md"}))["data"] == "beta alpha\n"
        assert tool_ok(await s.call_tool("read_file", {"path": "top.md"}))["data"] == "top alpha\n"


@aio
async def test_roots_list_changed_makes_the_server_ask_again(binary, place):
    place.root.mkdir(parents=True)
    make_tree(place.root)
    current = [file_uri(place.root, "projA")]

    async def list_roots(_context):
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in current])

    async with connect(binary, place.root, place.cfg, place.tmp, list_roots=list_roots) as c:
        s = c.session
        tool_error(await until_refused(s, "projB/b.md"), "OutsideWorkspace")
        current[:] = [file_uri(place.root, "projB")]
        await s.send_roots_list_changed()
        tool_error(await until_refused(s, "projA/a.md"), "OutsideWorkspace")
        assert tool_ok(await s.call_tool("read_file", {"path": "projB/b.md"}))["data"] == "beta alpha\n"


# -- the exchange itself, over raw pipes ------------------------------------------------------------

def initialize_with_roots(r, capabilities: dict) -> None:
    r.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                            "clientInfo": {"name": "raw-roots", "version": "1"}})
    r.notify("notifications/initialized")


def test_the_server_asks_for_roots_only_when_the_client_declares_them(raw, place):
    place.root.mkdir(parents=True)
    make_tree(place.root)
    without = raw()
    initialize_with_roots(without, {})
    without.result("ping")
    without.drain(0.3)
    assert not [m for _, m in without.log if m.get("method") == "roots/list"]

    with_roots = raw()
    initialize_with_roots(with_roots, {"roots": {"listChanged": True}})
    ask = with_roots.wait_for(lambda m: m.get("method") == "roots/list")
    assert isinstance(ask["id"], str) and ask["jsonrpc"] == "2.0" and "params" not in ask
    with_roots.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": file_uri(place.root, "projB"), "name": "B"}]}})
    call = with_roots.result("tools/call", {"name": "read_file", "arguments": {"path": "projA/a.md"}})
    assert call["isError"] is True and call["structuredContent"]["code"] == "OutsideWorkspace"
    # A second answer to the same id is ignored; the server keeps serving.
    with_roots.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": []}})
    call = with_roots.result("tools/call", {"name": "read_file", "arguments": {"path": "projB/b.md"}})
    assert call["isError"] is False

    with_roots.notify("notifications/roots/list_changed")
    again = with_roots.wait_for(lambda m: m.get("method") == "roots/list")
    assert again["id"] != ask["id"]


def test_a_failed_roots_answer_keeps_the_scope_and_the_server_serving(raw, place):
    place.root.mkdir(parents=True)
    make_tree(place.root)
    r = raw()
    initialize_with_roots(r, {"roots": {}})
    ask = r.wait_for(lambda m: m.get("method") == "roots/list")
    r.send({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -32601, "message": "no roots here"}})
    call = r.result("tools/call", {"name": "read_file", "arguments": {"path": "projA/a.md"}})
    assert call["isError"] is False
    assert "roots/list failed: no roots here" in place.tmp.joinpath("raw-stderr-0.log").read_text()


def test_a_link_inside_the_workspace_cannot_smuggle_in_an_outside_root(raw, place):
    place.root.mkdir(parents=True)
    make_tree(place.root)
    outside = place.tmp / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("x\n")
    os.symlink(outside, place.root / "link")
    r = raw()
    initialize_with_roots(r, {"roots": {}})
    ask = r.wait_for(lambda m: m.get("method") == "roots/list")
    r.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": file_uri(place.root, "link")},
                                                                    {"uri": "https://example.com/repo"},
                                                                    {"uri": file_uri(place.root, "projA")}]}})
    call = r.result("tools/call", {"name": "read_file", "arguments": {"path": "link/x.md"}})
    assert call["isError"] is True and call["structuredContent"]["code"] in {"OutsideWorkspace", "SymlinkNotFollowed"}
    call = r.result("tools/call", {"name": "read_file", "arguments": {"path": "projA/a.md"}})
    assert call["isError"] is False
    log = place.tmp.joinpath("raw-stderr-0.log").read_text()
    assert f"MCP root {file_uri(place.root, 'link')} refused: outside the workspace" in log, log
    assert "MCP root https://example.com/repo refused: only file:// roots are supported" in log, log
