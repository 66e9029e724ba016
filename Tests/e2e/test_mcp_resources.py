"""MCP resources (docs/protocol.md, "MCP face"): the workspace's files as file:// URIs, listed
page by page, read as text or blob, and subscribable: a change made by another process is sent
as notifications/resources/updated.
"""
from __future__ import annotations

import base64
import os
import time
from urllib.parse import unquote, urlsplit

import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")  # subscribe, logging: 2025 features

from mcp.types import PaginatedRequestParams  # noqa: E402
from mcp_helpers import MCPError, aio, connect, file_uri, place, raw, tool_ok  # noqa: E402,F401

NOTIFY_WITHIN = 1.0   # seconds from a write by another process to notifications/resources/updated


def _path_of(uri: str) -> str:
    parts = urlsplit(uri)
    assert parts.scheme == "file" and parts.netloc in ("", "localhost"), uri
    return unquote(parts.path)


@aio
async def test_resource_templates(binary, place):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        res = await c.session.list_resource_templates()
    assert len(res.resource_templates) == 1, res
    t = res.resource_templates[0]
    assert t.uri_template.startswith("file://") and t.uri_template.endswith("{+path}"), t
    assert _path_of(t.uri_template.replace("{+path}", "x")) == str(place.root / "x")
    assert t.name


@aio
async def test_read_text_and_blob_resources(binary, place):
    root = place.root
    async with connect(binary, root, place.cfg, place.tmp) as c:
        s = c.session
        tool_ok(await s.call_tool("write_file", {"path": "docs/hello.md", "content": "# Hi\nthere\n"}))
        blob = bytes(range(256)) * 4 + b"\x00\xff\xfe"
        (root / "docs").mkdir(exist_ok=True)
        (root / "docs/data.bin").write_bytes(blob)
        (root / "dir one").mkdir()
        (root / "dir one/naïve file#1.txt").write_text("spaced out\n")

        listed = {r.name: r for r in (await s.list_resources()).resources}
        assert {"docs/hello.md", "docs/data.bin", "dir one/naïve file#1.txt", "context.md"} <= set(listed), sorted(listed)
        assert not [n for n in listed if n.startswith(".workspace")], "the server's own folder is listed"
        md = listed["docs/hello.md"]
        assert str(md.uri) == file_uri(root, "docs/hello.md")
        assert md.mime_type == "text/markdown" and md.size == 11

        text = (await s.read_resource(str(md.uri))).contents
        assert len(text) == 1 and text[0].text == "# Hi\nthere\n" and str(text[0].uri) == str(md.uri)
        assert text[0].mime_type == "text/markdown"

        b = (await s.read_resource(str(listed["docs/data.bin"].uri))).contents
        assert len(b) == 1 and hasattr(b[0], "blob"), b
        assert base64.b64decode(b[0].blob) == blob
        assert b[0].mime_type and not b[0].mime_type.startswith("text/"), b[0].mime_type

        odd = listed["dir one/naïve file#1.txt"]
        uri = str(odd.uri)
        assert uri.isascii() and " " not in uri and "#" not in uri, f"not percent-encoded: {uri}"
        assert _path_of(uri) == str(root / "dir one/naïve file#1.txt")
        assert (await s.read_resource(uri)).contents[0].text == "spaced out\n"
        # the template's form of the same file reads the same
        assert (await s.read_resource(file_uri(root, "docs/hello.md"))).contents[0].text == "# Hi\nthere\n"


@aio
async def test_resource_list_is_paginated(binary, place):
    root = place.root
    many = root / "many"
    many.mkdir(parents=True)
    names = {f"many/f{i:04d}.txt" for i in range(450)}
    for n in names:
        (root / n).write_text(n)
    async with connect(binary, root, place.cfg, place.tmp) as c:
        seen: list[str] = []
        cursor, pages = None, 0
        while True:
            page = await c.session.list_resources(params=None if cursor is None else PaginatedRequestParams(cursor=cursor))
            pages += 1
            assert len(page.resources) <= 200, len(page.resources)
            seen += [r.name for r in page.resources]
            cursor = page.next_cursor
            if cursor is None:
                break
            assert pages < 50, "pagination does not end"
        assert pages >= 3, f"{len(seen)} resources in {pages} pages"
        assert len(seen) == len(set(seen)), "a resource was listed twice"
        assert names <= set(seen), sorted(names - set(seen))[:5]
        with pytest.raises(MCPError) as e:
            await c.session.list_resources(params=PaginatedRequestParams(cursor="not-a-cursor"))
        assert e.value.code == -32602


@aio
async def test_resource_uris_outside_the_workspace_are_refused(binary, place):
    root = place.root
    tmp = place.tmp
    (tmp / "secret.txt").write_text("TOPSECRET outside\n")
    (tmp / "ws_evil").mkdir()
    (tmp / "ws_evil/secret.txt").write_text("TOPSECRET evil\n")
    async with connect(binary, root, place.cfg, place.tmp) as c:
        os.symlink(tmp / "secret.txt", root / "link_file")
        outside = [
            f"file://{tmp}/secret.txt",
            f"file://{tmp}/ws_evil/secret.txt",                 # a sibling sharing the root's prefix
            f"file://{root}/../secret.txt",
            f"file://{root}/%2e%2e/secret.txt",
            f"file://{root}/Research%2F..%2F..%2Fsecret.txt",
            "file:///etc/passwd",
            "http://example.com/x",
        ]
        unreadable = outside + [f"file://{root}/link_file", f"file://{root}/.workspace/sessions"]
        for uri in unreadable:
            with pytest.raises(MCPError) as e:
                r = await c.session.read_resource(uri)
                pytest.fail(f"{uri} was read: {r}")
            assert "TOPSECRET" not in str(e.value.message) + str(e.value.data), uri
        for uri in outside:
            with pytest.raises(MCPError):
                await c.session.subscribe_resource(uri)
                pytest.fail(f"subscribed to {uri}")
        # a subscription through a link never reports the outside file's changes
        try:
            await c.session.subscribe_resource(f"file://{root}/link_file")
        except MCPError:
            pass
        await _sleep(0.2)
        t0 = time.monotonic()
        (tmp / "secret.txt").write_text("TOPSECRET changed\n")
        await _sleep(0.8)
        assert not c.events.of_type("ResourceUpdatedNotification", t0), "a change outside the workspace was reported"
        await c.session.send_ping()


@aio
async def test_subscribe_notifies_changes_by_another_process_and_unsubscribe_stops_them(binary, place):
    root = place.root
    async with connect(binary, root, place.cfg, place.tmp) as c:
        s = c.session
        tool_ok(await s.call_tool("write_file", {"path": "watched.txt", "content": "v0"}))
        tool_ok(await s.call_tool("write_file", {"path": "other.txt", "content": "v0"}))
        listed = {r.name: str(r.uri) for r in (await s.list_resources()).resources}
        uri = listed["watched.txt"]
        await s.subscribe_resource(uri)
        await _sleep(0.2)                                      # let the watcher settle

        def updates(since):
            return [(t, m) for t, m in c.events.of_type("ResourceUpdatedNotification", since)]

        # a plain write by this (Python) process, not through the server
        t0 = time.monotonic()
        (root / "watched.txt").write_text("v1 from python")
        got = await c.events.wait_for(lambda t, m: type(m).__name__ == "ResourceUpdatedNotification" and t >= t0,
                                      NOTIFY_WITHIN)
        assert got is not None, f"no notifications/resources/updated within {NOTIFY_WITHIN}s"
        assert str(got[1].params.uri) == uri
        latency = got[0] - t0
        print(f"resources/updated latency: {latency * 1000:.0f} ms")

        # an unsubscribed file changing is not reported
        await _sleep(0.2)
        t1 = time.monotonic()
        (root / "other.txt").write_text("v1")
        await _sleep(0.6)
        assert not [m for _, m in updates(t1) if str(m.params.uri) != uri], updates(t1)

        # rename over the file (what editors do) is a change too
        t2 = time.monotonic()
        (root / ".tmp-editor").write_text("v2")
        os.replace(root / ".tmp-editor", root / "watched.txt")
        assert await c.events.wait_for(lambda t, m: type(m).__name__ == "ResourceUpdatedNotification" and t >= t2,
                                       NOTIFY_WITHIN), "no update after a rename over the file"

        await s.unsubscribe_resource(uri)
        await _sleep(0.2)
        t3 = time.monotonic()
        (root / "watched.txt").write_text("v3 after unsubscribe")
        await _sleep(1.0)
        assert not updates(t3), f"updates after unsubscribe: {updates(t3)}"
        await s.send_ping()


async def _sleep(seconds: float) -> None:
    import anyio
    await anyio.sleep(seconds)
