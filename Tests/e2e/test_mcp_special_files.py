"""Special files through the MCP face (docs/protocol.md, "Workspace files", special files): a
FIFO, a Unix socket and devices in the workspace, driven with the official `mcp` client. Every
tool that would read or write one answers isError with code NotARegularFile at once, resources/read
answers the typed error, list_files names their types, copy_file lists what it left out, and a
ping is answered promptly after each case.
"""
from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")

from mcp_helpers import MCPError, aio, connect, file_uri, place, tool_error, tool_ok  # noqa: E402,F401
from special_files import PROMPT, make_special, type_of  # noqa: E402

KINDS = ["fifo", "socket", "charDevice", "blockDevice"]


async def ping(c) -> None:
    with anyio.fail_after(PROMPT):
        await c.session.send_ping()


async def tool(c, name: str, args: dict):
    with anyio.fail_after(PROMPT):
        r = await c.session.call_tool(name, args)
    await ping(c)
    return r


@pytest.mark.parametrize("kind", KINDS)
@aio
async def test_tools_refuse_a_special_file_at_once(binary, place, kind):
    make_special(place.root / "d" / "special", kind)
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        for name, args in [
            ("read_file", {"path": "d/special"}),
            ("get_file_info", {"path": "d/special", "hash": "sha256"}),
            ("append_file", {"path": "d/special", "content": "x"}),
            ("write_file", {"path": "d/special", "content": "x"}),
            ("copy_file", {"from": "d/special", "to": "copy"}),
            ("search_files", {"query": "x", "path": "d/special"}),
        ]:
            err = tool_error(await tool(c, name, args), "NotARegularFile", name)
            assert "'d/special'" in err["error"], (name, err)

        info = tool_ok(await tool(c, "get_file_info", {"path": "d/special"}))
        assert info["type"] == kind
        r = await tool(c, "list_files", {"path": "d"})
        assert [(e["name"], e["type"]) for e in tool_ok(r)["entries"]] == [("special", kind)]
        assert r.content[0].text == f"- d/special ({kind}, not readable)"

        with anyio.fail_after(PROMPT):
            with pytest.raises(MCPError) as e:
                await c.session.read_resource(file_uri(place.root, "d/special"))
        assert e.value.code == -32803 and e.value.data["code"] == "NotARegularFile"
        assert e.value.data["type"] == kind and e.value.data["path"] == "d/special"
        await ping(c)
    assert type_of(place.root / "d" / "special") == kind and not (place.root / "copy").exists()


@aio
async def test_search_and_folder_copy_skip_special_files_and_say_so(binary, place):
    make_special(place.root / "src" / "pipe", "fifo")
    make_special(place.root / "src" / "sock", "socket")
    (place.root / "src" / "a.txt").parent.mkdir(parents=True, exist_ok=True)
    (place.root / "src" / "a.txt").write_text("needle\n")
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        found = tool_ok(await tool(c, "search_files", {"query": "needle", "path": "src"}))
        assert [m["path"] for m in found["matches"]] == ["src/a.txt"] and found["specialFilesSkipped"] == 2

        r = await tool(c, "copy_file", {"from": "src", "to": "dst"})
        copied = tool_ok(r)
        assert copied["skippedEntries"] == [
            {"path": "src/pipe", "type": "fifo", "reason": "NotARegularFile"},
            {"path": "src/sock", "type": "socket", "reason": "NotARegularFile"},
        ]
        assert "src/pipe" in r.content[0].text and "src/sock" in r.content[0].text
    assert sorted(p.name for p in (place.root / "dst").iterdir()) == ["a.txt"]
