"""Both MCP eras from one binary, through the official `mcp` client (PyPI `mcp` 2.x `Client`) over
stdio in each of its three modes (docs/mcp-2026.md §11):

- `"2026-07-28"`: modern only, no probe: every request carries `_meta`;
- `"auto"`: probes `server/discover`, falls back to `initialize` only for a legacy server; against
  this binary it must end up modern;
- `"legacy"`: the 2025 `initialize` handshake (`2025-11-25`).

Each test runs in each mode it applies to (listen: the two modern modes; the 2025 era has
resources/subscribe instead).
"""
from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client.subscriptions import ResourceUpdated  # noqa: E402

from mcp_helpers import READ_ONLY_TOOLS, TOOL_NAMES, aio, file_uri, place, tool_error, tool_ok  # noqa: E402,F401
from mcp_modern import (ALL_VERSIONS, MODERN, SI, TASKS, UNSUPPORTED_PROTOCOL_VERSION,  # noqa: E402
                        MCPError, open_client)

ALL_MODES = ["2026-07-28", "auto", "legacy"]
MODERN_MODES = ["2026-07-28", "auto"]
# Discovery advertises the tasks extension, and listen streams changes, only once they are served.
DISCOVERY_MODES = ["2026-07-28", "auto", "legacy"]
LISTEN_MODES = ["2026-07-28", "auto"]


def check_era(c, mode: str) -> None:
    """The era the client ended up in: modern for the pinned and the automatic mode (this binary
    answers the probe), the newest handshake version for legacy."""
    if mode == "legacy":
        assert c.protocol_version == "2025-11-25", c.protocol_version
        assert c.session.initialize_result is not None and c.session.discover_result is None
    else:
        assert c.protocol_version == MODERN, f"mode {mode}: the client speaks {c.protocol_version}"
        assert c.session.initialize_result is None


def client(binary, place, mode, **kw):
    return open_client(binary, place.root, place.cfg, place.tmp, mode, **kw)


# -- discovery --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", DISCOVERY_MODES)
@aio
async def test_discovery(binary, place, mode):
    async with client(binary, place, mode) as c:
        check_era(c, mode)
        if mode == "legacy":
            init = c.session.initialize_result
            assert init.server_info.name == "workspace-bridge"
            assert str(place.root) in init.instructions
            assert init.capabilities.tools is not None and init.capabilities.resources.subscribe is True
            return
        # the pinned mode sends no probe: ask explicitly; auto already holds the probe's answer
        raw = await c.session.send_discover(MODERN)
        if mode == "auto":
            held = c.session.discover_result.model_dump(by_alias=True, exclude_none=True)
            assert held["supportedVersions"] == raw["supportedVersions"]
            assert c.server_info is not None and c.server_info.name == "workspace-bridge"
        assert raw["resultType"] == "complete"
        assert set(raw["supportedVersions"]) == ALL_VERSIONS and len(raw["supportedVersions"]) == len(ALL_VERSIONS)
        caps = raw["capabilities"]
        assert "tools" in caps and "resources" in caps, caps
        assert caps.get("extensions", {}).get(TASKS) == {}, f"the tasks extension is not advertised: {caps}"
        assert "subscribe" not in caps["resources"] or caps["resources"]["subscribe"] in (True, False)
        assert str(place.root) in raw["instructions"]
        assert raw["_meta"][SI]["name"] == "workspace-bridge" and raw["_meta"][SI]["version"]
        assert isinstance(raw["ttlMs"], int) and raw["ttlMs"] >= 0 and raw["cacheScope"] in ("public", "private")


# -- tools ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ALL_MODES)
@aio
async def test_tools_list_twice_in_the_same_order(binary, place, mode):
    async with client(binary, place, mode) as c:
        check_era(c, mode)
        first = await c.list_tools(cache_mode="bypass")
        second = await c.list_tools(cache_mode="bypass")
    dump = lambda r: [t.model_dump(by_alias=True, exclude_none=True) for t in r.tools]  # noqa: E731
    assert [t.name for t in first.tools] == TOOL_NAMES
    assert dump(first) == dump(second), "tools/list is not deterministic"
    assert first.next_cursor is None
    for t in first.tools:
        assert t.output_schema and t.output_schema["type"] == "object", t.name
        assert t.annotations.read_only_hint == (t.name in READ_ONLY_TOOLS), t.name
    if mode != "legacy":
        assert first.ttl_ms is not None and first.ttl_ms > 0 and first.cache_scope == "public", \
            "the one fixed tool table is cacheable by anyone"


@pytest.mark.parametrize("mode", ALL_MODES)
@aio
async def test_write_read_list_search_move_files(binary, place, mode):
    root = place.root
    async with client(binary, place, mode) as c:
        check_era(c, mode)
        w = tool_ok(await c.call_tool("write_file", {"path": "notes/today.md", "content": "alpha\nbeta zeta\n"}), "write_file")
        assert w["path"] == "notes/today.md" and w["size"] == 16 and len(w["etag"]) == 16
        assert (root / "notes/today.md").read_text() == "alpha\nbeta zeta\n"
        r = tool_ok(await c.call_tool("read_file", {"path": "notes/today.md"}), "read_file")
        assert r["data"] == "alpha\nbeta zeta\n" and r["etag"] == w["etag"] and r["eof"] is True
        part = await c.call_tool("read_file", {"path": "notes/today.md", "offset": 6, "length": 4})
        assert tool_ok(part)["data"] == "beta" and tool_ok(part)["nextOffset"] == 10
        assert part.content[0].text == "beta\n[notes/today.md goes on (16 bytes): read from offset 10 for more]"
        entries = tool_ok(await c.call_tool("list_files", {"path": "notes"}))["entries"]
        assert [(e["name"], e["type"]) for e in entries] == [("today.md", "file")]
        found = tool_ok(await c.call_tool("search_files", {"query": "ZETA", "path": "notes"}), "search_files")
        assert [(m["path"], m["line"], m["column"]) for m in found["matches"]] == [("notes/today.md", 2, 6)]
        mv = tool_ok(await c.call_tool("move_file", {"from": "notes/today.md", "to": "archive/today.md"}), "move_file")
        assert mv["to"] == "archive/today.md" and mv["type"] == "file"
        assert not (root / "notes/today.md").exists() and (root / "archive/today.md").read_text() == "alpha\nbeta zeta\n"
        tool_error(await c.call_tool("move_file", {"from": "notes/today.md", "to": "x.md"}), "NotFound")
        # the session journal and the context tools work without a handshake too
        assert tool_ok(await c.call_tool("read_context", {}))["content"] == (root / "context.md").read_text()


@pytest.mark.parametrize("mode", ALL_MODES)
@aio
async def test_a_path_escape_is_an_error_result(binary, place, mode):
    outside = place.tmp / "outside.txt"
    outside.write_text("SECRET-OUTSIDE")
    async with client(binary, place, mode) as c:
        check_era(c, mode)
        for args in ({"path": "../outside.txt"}, {"path": str(outside)}, {"path": "a/../../outside.txt"}):
            res = await c.call_tool("read_file", args)
            sc = tool_error(res, "OutsideWorkspace", "read_file")
            assert "SECRET-OUTSIDE" not in res.content[0].text and "SECRET-OUTSIDE" not in str(sc)
        tool_error(await c.call_tool("write_file", {"path": "../planted.txt", "content": "x"}), "OutsideWorkspace")
        assert not (place.tmp / "planted.txt").exists()
        # an unknown tool is a protocol error (-32602), not a result
        with pytest.raises(MCPError) as e:
            await c.call_tool("no_such_tool", {})
        assert e.value.code == -32602
        # and the connection goes on
        assert [t.name for t in (await c.list_tools(cache_mode="bypass")).tools] == TOOL_NAMES


# -- versions ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODERN_MODES)
@aio
async def test_an_unsupported_version_is_refused_naming_both_eras(binary, place, mode):
    async with client(binary, place, mode) as c:
        check_era(c, mode)
        for asked in ("2099-01-01", "1900-01-01", "2025-11-25"):      # a handshake version is no per-request version
            with pytest.raises(MCPError) as e:
                await c.session.send_discover(asked)
            assert e.value.code == UNSUPPORTED_PROTOCOL_VERSION, (asked, e.value.error)
            data = e.value.error.data
            assert set(data["supported"]) == ALL_VERSIONS and data["requested"] == asked, data
        # still served at the version it does support
        assert (await c.session.send_discover(MODERN))["resultType"] == "complete"


# -- subscriptions/listen ------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", LISTEN_MODES)
@aio
async def test_a_change_by_another_process_arrives_through_listen(binary, place, mode):
    async with client(binary, place, mode) as c:
        check_era(c, mode)
        tool_ok(await c.call_tool("write_file", {"path": "watched.txt", "content": "v1\n"}))
        tool_ok(await c.call_tool("write_file", {"path": "other.txt", "content": "o1\n"}))
        uri = file_uri(place.root, "watched.txt")
        async with c.listen(resource_subscriptions=[uri]) as sub:
            assert list(sub.honored.resource_subscriptions or []) == [uri], sub.honored
            # another process: not this server, not this client
            for name in ("other.txt", "watched.txt"):
                subprocess.run([sys.executable, "-c", f"open({str(place.root / name)!r}, 'a').write('v2\\n')"], check=True)
            with anyio.fail_after(10):
                event = await sub.__anext__()
            assert event == ResourceUpdated(uri=uri), event
            read = await c.read_resource(uri, cache_mode="bypass")
            assert read.contents[0].text == "v1\nv2\n"
        # the stream ended (cancelled by leaving the block); the connection goes on
        assert tool_ok(await c.call_tool("read_file", {"path": "other.txt"}))["data"] == "o1\nv2\n"
