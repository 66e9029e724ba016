"""Caching clients can use (issue 27, docs/protocol.md "Resource etags"): `resources/list` and
`resources/read` carry each file's etag in `_meta["workspace-bridge/etag"]` (the same etag as
`read_file` and `loadFile`), beside the 2026-07-28 era's cache hints (`ttlMs`, `cacheScope`); a
read whose `_meta["workspace-bridge/ifNoneMatch"]` is the current etag answers `contents: []` with
`_meta["workspace-bridge/unchanged"]: true`, without reading the file. Through the official `mcp`
client in each of its modes.
"""
from __future__ import annotations

import os

import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")

from mcp_helpers import aio, file_uri, place, tool_ok  # noqa: E402,F401
from mcp_modern import open_client, rawm  # noqa: E402,F401

ETAG, IF_NONE_MATCH, UNCHANGED = "workspace-bridge/etag", "workspace-bridge/ifNoneMatch", "workspace-bridge/unchanged"
ALL_MODES = ["2026-07-28", "auto", "legacy"]


def meta_of(model) -> dict:
    return model.meta or {}


@pytest.mark.parametrize("mode", ALL_MODES)
@aio
async def test_a_read_with_the_current_etag_answers_unchanged_and_a_change_answers_the_bytes(binary, place, mode):
    (place.root / "notes").mkdir(parents=True)
    (place.root / "notes/a.md").write_text("alpha\n")
    (place.root / "notes/img.bin").write_bytes(b"\x00\x01\x02")
    uri = file_uri(place.root, "notes/a.md")
    async with open_client(binary, place.root, place.cfg, place.tmp, mode) as c:
        tool_etag = tool_ok(await c.call_tool("read_file", {"path": "notes/a.md"}))["etag"]
        listed = {r.name: meta_of(r).get(ETAG) for r in (await c.list_resources(cache_mode="bypass")).resources}
        assert listed["notes/a.md"] == tool_etag and len(listed["notes/img.bin"]) == 16, listed

        full = await c.read_resource(uri, cache_mode="bypass")
        assert full.contents[0].text == "alpha\n" and meta_of(full.contents[0])[ETAG] == tool_etag
        blob = await c.read_resource(file_uri(place.root, "notes/img.bin"), cache_mode="bypass")
        assert meta_of(blob.contents[0])[ETAG] == listed["notes/img.bin"]
        if mode != "legacy":
            assert full.ttl_ms == 0 and full.cache_scope == "private", "a file can change at any moment"

        same = await c.read_resource(uri, meta={IF_NONE_MATCH: tool_etag}, cache_mode="bypass")
        assert same.contents == [] and meta_of(same)[UNCHANGED] is True and meta_of(same)[ETAG] == tool_etag

        (place.root / "notes/a.md").write_text("alpha beta\n")    # another process changes it
        changed = await c.read_resource(uri, meta={IF_NONE_MATCH: tool_etag}, cache_mode="bypass")
        assert changed.contents[0].text == "alpha beta\n"
        new_etag = meta_of(changed.contents[0])[ETAG]
        assert new_etag != tool_etag and UNCHANGED not in meta_of(changed)
        again = await c.read_resource(uri, meta={IF_NONE_MATCH: new_etag}, cache_mode="bypass")
        assert again.contents == [] and meta_of(again)[UNCHANGED] is True


def test_unchanged_keeps_the_reads_refusals(rawm, place):
    """A known etag never turns a refused read into "unchanged": a missing file, a folder, a
    reserved path and a URI outside the workspace are refused as without it."""
    (place.root / "dir").mkdir(parents=True)
    (place.root / "a.md").write_text("a\n")
    r = rawm()
    etag = r.mresult("resources/read", {"uri": file_uri(place.root, "a.md")})["contents"][0]["_meta"][ETAG]
    os.remove(place.root / "a.md")
    gone = r.merror("resources/read", {"uri": file_uri(place.root, "a.md"), "_meta": {IF_NONE_MATCH: etag}})
    assert gone["data"]["code"] == "NotFound", gone
    folder = r.merror("resources/read", {"uri": file_uri(place.root, "dir"), "_meta": {IF_NONE_MATCH: etag}})
    assert folder["data"]["code"] == "IsADirectory", folder
    private = r.merror("resources/read", {"uri": file_uri(place.root, ".workspace/x"), "_meta": {IF_NONE_MATCH: etag}})
    assert private["data"]["code"] in {"PermissionDenied", "NotFound"}, private
    outside = r.merror("resources/read", {"uri": "file:///etc/passwd", "_meta": {IF_NONE_MATCH: etag}})
    assert outside["data"]["code"] == "OutsideWorkspace", outside
    bad = r.merror("resources/read", {"uri": file_uri(place.root, "dir"), "_meta": {IF_NONE_MATCH: 7}})
    assert bad["code"] == -32602 and "ifNoneMatch" in str(bad), bad
