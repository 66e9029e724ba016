"""Every file name is reachable, and the reserved folders are closed in every spelling, through the
MCP face of both eras (issue 22): the official `mcp` client for the 2025 era, the raw modern client
for the 2026-07-28 one. A name that is not UTF-8 is listed, read, written and searched by its
escaped text (`caf\\xe9.txt`), and is a resource whose `file://` URI holds its real bytes
percent-encoded (`caf%E9.txt`); the reserved folders answer PermissionDenied in any spelling.
"""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")

from mcp_helpers import MCPError, aio, connect, place, tool_error, tool_ok  # noqa: E402,F401
from mcp_modern import rawm  # noqa: E402,F401

LATIN1 = "Docs/caf\\xe9.txt"
FORGED = [".Workspace/sessions/forged.json", ".WORKSPACE/approvals.json", ".wor\u212aspace/x", "WORKSP~1/x"]


def make(root: Path, rel: bytes, data: bytes) -> None:
    full = os.fsencode(root) + b"/" + rel
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)


def bytes_uri(root: Path, rel: bytes) -> str:
    """The file:// URI of a path's real bytes."""
    return "file://" + quote(os.fsencode(root) + b"/" + rel, safe="/-._~")


async def call(c, name: str, args: dict):
    with anyio.fail_after(10):
        return await c.session.call_tool(name, args)


@aio
async def test_tools_and_resources_reach_a_name_that_is_not_utf8_in_the_2025_era(binary, place):
    make(place.root, b"Docs/caf\xe9.txt", b"needle, latin-1\n")
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        listed = tool_ok(await call(c, "list_files", {"path": "Docs"}))
        assert [e["path"] for e in listed["entries"]] == [LATIN1]
        assert tool_ok(await call(c, "read_file", {"path": LATIN1}))["data"] == "needle, latin-1\n"
        found = tool_ok(await call(c, "search_files", {"query": "needle", "path": "Docs"}))
        assert [m["path"] for m in found["matches"]] == [LATIN1]
        tool_ok(await call(c, "write_file", {"path": LATIN1, "content": "rewritten\n"}))
        assert (place.root / os.fsdecode(b"Docs/caf\xe9.txt")).read_bytes() == b"rewritten\n"

        uri = bytes_uri(place.root, b"Docs/caf\xe9.txt")
        assert uri.endswith("/Docs/caf%E9.txt")
        with anyio.fail_after(10):
            listed_uris = {str(r.uri) for r in (await c.session.list_resources()).resources}
            read = await c.session.read_resource(uri)
        assert uri in listed_uris
        assert read.contents[0].text == "rewritten\n"

        with anyio.fail_after(10):
            with pytest.raises(MCPError) as e:
                await c.session.read_resource(bytes_uri(place.root, b".WORKSPACE/settings/settings.json"))
        assert e.value.data["code"] == "PermissionDenied"
        for path in FORGED:
            tool_error(await call(c, "write_file", {"path": path, "content": "{}"}), "PermissionDenied", path)
            tool_error(await call(c, "delete_file", {"path": path.split("/")[0], "recursive": True}), "PermissionDenied", path)
    assert not any((place.root / p.split("/")[0]).exists() for p in FORGED)


def test_tools_reach_such_names_and_refuse_reserved_spellings_in_the_2026_era(rawm, place):
    make(place.root, b"Docs/caf\xe9.txt", b"modern\n")
    r = rawm()
    listed = r.tool("list_files", {"path": "Docs"})["structuredContent"]
    assert [e["path"] for e in listed["entries"]] == [LATIN1]
    assert r.tool("read_file", {"path": LATIN1})["structuredContent"]["data"] == "modern\n"
    moved = r.tool("move_file", {"from": LATIN1, "to": "Docs/na\\xefve.txt"})
    assert moved.get("isError") is not True, moved
    assert set(os.listdir(os.fsencode(place.root / "Docs"))) == {b"na\xefve.txt"}
    read = r.mresult("resources/read", {"uri": bytes_uri(place.root, b"Docs/na\xefve.txt")})
    assert read["contents"][0]["text"] == "modern\n"

    for path in FORGED:
        refused = r.tool("write_file", {"path": path, "content": "{}"})
        assert refused["isError"] is True and refused["structuredContent"]["code"] == "PermissionDenied", refused
        refused = r.tool("copy_file", {"from": "Docs/na\\xefve.txt", "to": path})
        assert refused["isError"] is True and refused["structuredContent"]["code"] == "PermissionDenied", refused
    err = r.merror("resources/read", {"uri": "file://" + quote(str(place.root)) + "/.Workspace/settings/settings.json"})
    assert err["data"]["code"] == "PermissionDenied", err
    assert not any((place.root / p.split("/")[0]).exists() for p in FORGED)
