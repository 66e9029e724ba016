"""Typed methods, the generic request, errors and concurrency against the real server."""
from __future__ import annotations

import asyncio
import base64
import time

import pytest

from workspace_bridge import BridgeError, spawn


def run(place, scenario, **options):
    async def main():
        async with spawn(**place.options(**options)) as client:
            return await scenario(client)
    return asyncio.run(main())


def test_typed_file_methods_round_trip_a_workspace(place):
    async def scenario(c):
        saved = await c.save_file(path="Research/a.md", data="alpha\n")
        appended = await c.append_file(path="Research/a.md", data="beta\n")
        blob = await c.save_file(path="bin/x.bin", data=base64.b64encode(b"\x00\xff").decode(), encoding="base64")
        loaded = await c.load_file(path="Research/a.md", offset=6)
        moved = await c.move_file(from_="Research/a.md", to="Research/b.md")
        info = await c.get_file_info(path="Research/b.md", hash="sha256")
        listing = await c.list_files(path="Research")
        found = await c.search_files(query="BETA")
        deleted = await c.delete_file(path="bin", recursive=True)
        return saved, appended, blob, loaded, moved, info, listing, found, deleted

    saved, appended, blob, loaded, moved, info, listing, found, deleted = run(place, scenario)

    assert saved["size"] == 6 and appended["size"] == 11 and blob["size"] == 2
    assert loaded["data"] == "beta\n" and loaded["offset"] == 6 and loaded["eof"] is True
    assert moved["from"] == "Research/a.md" and moved["to"] == "Research/b.md"
    assert len(info["sha256"]) == 64 and info["size"] == 11
    assert [e["path"] for e in listing["entries"]] == ["Research/b.md"]
    assert [(m["path"], m["line"]) for m in found["matches"]] == [("Research/b.md", 2)]
    assert deleted == {"path": "bin", "deleted": True}
    assert (place.root / "Research" / "b.md").read_text() == "alpha\nbeta\n"


def test_optional_arguments_left_as_none_are_not_sent(place):
    sent: list[dict] = []

    async def scenario(c):
        await c.save_file(path="x.txt", data="x", if_match=None, exclusive=True)

    run(place, scenario, on_send=sent.append)

    save = next(m for m in sent if m.get("method") == "saveFile")
    assert save["params"] == {"path": "x.txt", "data": "x", "exclusive": True}


def test_a_domain_failure_raises_bridge_error_with_code_message_and_data(place):
    async def scenario(c):
        with pytest.raises(BridgeError) as missing:
            await c.load_file(path="nope.txt")
        await c.save_file(path="e.txt", data="1")
        with pytest.raises(BridgeError) as stale:
            await c.save_file(path="e.txt", data="2", if_match="0000000000000000")
        with pytest.raises(BridgeError) as bad:
            await c.request("loadFile", {"path": 42})
        return missing.value, stale.value, bad.value

    missing, stale, bad = run(place, scenario)

    assert (missing.code, missing.data_code, missing.data["path"]) == (-32803, "NotFound", "nope.txt")
    assert missing.message and missing.method == "loadFile" and isinstance(missing.request_id, int)
    assert stale.data_code == "PreconditionFailed" and len(stale.data["currentEtag"]) == 16
    assert (bad.code, bad.data_code, bad.data["field"]) == (-32602, "InvalidParams", "path")


def test_generic_request_and_unknown_methods(place):
    async def scenario(c):
        echoed = await c.request("debug/echo", {"value": {"nested": [1, "two", None]}})
        with pytest.raises(BridgeError) as unknown:
            await c.request("no/such/method")
        return echoed, unknown.value

    echoed, unknown = run(place, scenario, debug_methods=True)

    assert echoed == {"value": {"nested": [1, "two", None]}}
    assert unknown.code == -32601 and unknown.data["method"] == "no/such/method"


def test_concurrent_requests_are_each_answered_with_their_own_result(place):
    async def scenario(c):
        values = list(range(50))
        echoes = await asyncio.gather(*(c.debug_echo(value=v) for v in values))
        return values, [e["value"] for e in echoes]

    values, echoed = run(place, scenario, debug_methods=True)

    assert echoed == values


def test_a_slow_request_does_not_hold_back_an_unrelated_one(place):
    async def scenario(c):
        slow = c.debug_sleep(ms=1500, key="a", label="slow")
        t0 = time.monotonic()
        await c.ping()
        fast = time.monotonic() - t0
        done = slow.done()
        await slow
        return fast, done

    fast, slow_done_when_ping_answered = run(place, scenario, debug_methods=True)

    assert fast < 1.0 and not slow_done_when_ping_answered


def test_requests_are_written_in_the_order_they_are_made(place):
    async def scenario(c):
        first = c.debug_sleep(ms=300, key="k", label="first")
        second = c.debug_sleep(ms=0, key="k", label="second")
        a, b = await asyncio.gather(second, first)
        return a, b

    second, first = run(place, scenario, debug_methods=True)

    assert first["finishedAt"] <= second["startedAt"], "conflicting keys run in arrival order"
