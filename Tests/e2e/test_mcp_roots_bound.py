"""Roots that add up (issue 27, docs/protocol.md "MCP roots"): the folders the server was started
with (`--local-root`, `mcp --root`) bound everything; a client's roots are intersected with them,
so they only narrow, never replace or widen, in both MCP eras; a client without roots (deprecated
by SEP-2577) gets the whole bound. Each case mirrors a bug reported against the reference
filesystem server (modelcontextprotocol/servers), through the official `mcp` client.
"""
from __future__ import annotations

import time

import anyio
import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")

import mcp.types as types  # noqa: E402

from mcp_helpers import aio, file_uri, place, roots_answer, tool_error, tool_ok  # noqa: E402,F401
from mcp_modern import open_client  # noqa: E402

ALL_MODES = ["2026-07-28", "auto", "legacy"]
FILES = {"projA/a.md": "a\n", "projA/sub/deep.md": "deep\n", "projB/b.md": "b\n", "projC/c.md": "c\n", "top.md": "top\n"}


def make_tree(root) -> None:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


async def settled(place, mode: str, answers: int = 1, stderr_name: str = "roots-stderr.log") -> None:
    """The legacy era asks for roots after `initialized`; its scope applies once the answer is read
    (the server logs "MCP roots: working in …"). The modern eras are never asked: nothing to wait for."""
    if mode != "legacy":
        return
    deadline = time.monotonic() + 10
    while (place.tmp / stderr_name).read_text(errors="replace").count("MCP roots: working in") < answers:
        assert time.monotonic() < deadline, "the server never read the client's roots"
        await anyio.sleep(0.02)


async def reachable(c) -> dict[str, bool]:
    """Which files of the tree a read_file reaches."""
    out = {}
    for rel in FILES:
        r = await c.call_tool("read_file", {"path": rel})
        if not r.is_error:
            out[rel] = True
        else:
            tool_error(r, "OutsideWorkspace")
            out[rel] = False
    return out


async def listed(c) -> list[str]:
    return sorted(r.name for r in (await c.list_resources(cache_mode="bypass")).resources)


def client(binary, place, mode, *, roots: list[str] | None, extra=()):
    return open_client(binary, place.root, place.cfg, place.tmp, mode, extra=extra, stderr_name="roots-stderr.log",
                       list_roots=roots_answer(roots) if roots is not None else None)


@pytest.mark.parametrize("mode", ALL_MODES)
@aio
async def test_a_clients_root_never_replaces_the_command_line_folders(binary, place, mode):
    """servers#3929, #3602: a roots-capable client (its project at the workspace top) silently
    replaced the directories given on the command line. Here they stay exactly what was given."""
    make_tree(place.root)
    async with client(binary, place, mode, roots=[file_uri(place.root)], extra=("--root", "projA", "--root", "projB")) as c:
        await settled(place, mode)
        assert await reachable(c) == {"projA/a.md": True, "projA/sub/deep.md": True, "projB/b.md": True,
                                      "projC/c.md": False, "top.md": False}
        assert await listed(c) == ["projA/a.md", "projA/sub/deep.md", "projB/b.md"]
        init = c.session.initialize_result if mode == "legacy" else await c.session.send_discover("2026-07-28")
        instructions = init.instructions if mode == "legacy" else init["instructions"]
        assert "projA, projB" in instructions, "the model is told which folders it may work in"


@pytest.mark.parametrize("mode", ALL_MODES)
@aio
async def test_a_filesystem_root_does_not_widen_anything(binary, place, mode):
    """servers#3133: a client that gives `/` as its root saw the whole machine. `file:///` contains
    the workspace: the scope stays the configured folder."""
    make_tree(place.root)
    async with client(binary, place, mode, roots=["file:///"], extra=("--root", "projC")) as c:
        await settled(place, mode)
        assert await reachable(c) == {"projA/a.md": False, "projA/sub/deep.md": False, "projB/b.md": False,
                                      "projC/c.md": True, "top.md": False}
        r = await c.call_tool("read_file", {"path": "../outside.md"})
        assert r.is_error


@aio
async def test_a_clients_roots_intersect_the_configured_folders(binary, place):
    """A 2025 client's roots narrow within the bound: a root containing a configured folder keeps
    only that folder (not the other configured ones: the client asked for none of them), one
    inside a configured folder narrows to it, one outside every configured folder is refused; a
    later `roots/list_changed` can return to the whole bound, never past it."""
    make_tree(place.root)
    current = [file_uri(place.root, "projA"), file_uri(place.root, "projC")]

    async def list_roots(_context):
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in current])

    async with open_client(binary, place.root, place.cfg, place.tmp, "legacy", extra=("--root", "projA/sub", "--root", "projB"),
                           stderr_name="roots-stderr.log", list_roots=list_roots) as c:
        await settled(place, "legacy")
        assert await reachable(c) == {"projA/a.md": False, "projA/sub/deep.md": True, "projB/b.md": False,
                                      "projC/c.md": False, "top.md": False}
        log = (place.tmp / "roots-stderr.log").read_text()
        assert "MCP root projC refused: outside the folders the server was started with" in log, log

        current[:] = [file_uri(place.root, "projB")]  # inside a configured folder: narrows to it
        await c.session.send_roots_list_changed()
        await settled(place, "legacy", answers=2)
        assert await reachable(c) == {"projA/a.md": False, "projA/sub/deep.md": False, "projB/b.md": True,
                                      "projC/c.md": False, "top.md": False}

        current[:] = [file_uri(place.root)]           # the whole workspace: back to the whole bound
        await c.session.send_roots_list_changed()
        await settled(place, "legacy", answers=3)
        assert await reachable(c) == {"projA/a.md": False, "projA/sub/deep.md": True, "projB/b.md": True,
                                      "projC/c.md": False, "top.md": False}


@pytest.mark.parametrize("extra", [(), ("--root", "projB")])
@aio
async def test_an_empty_roots_list_leaves_the_bound_whole(binary, place, extra):
    """servers#2002 (README: empty roots → the server throws at initialization) and #4423 (argless
    server waits for roots): here a client whose roots list is empty, or that has no roots at all,
    works in everything the server was started with."""
    make_tree(place.root)
    whole = {rel: (not extra or rel.startswith("projB/")) for rel in FILES}
    async with client(binary, place, "legacy", roots=[], extra=extra) as c:
        await settled(place, "legacy")
        assert await reachable(c) == whole
    async with client(binary, place, "legacy", roots=None, extra=extra) as c:
        assert await reachable(c) == whole
