"""Reads that say where to continue (issue 27, docs/protocol.md "Reading in windows"): loadFile's
line and byte windows, nextOffset/nextLine/eof, binary files refused as text, 0 meaning none;
the same through MCP's read_file (the official client, 2025 era, and a raw 2026-era client) and
read_multiple_files' head/tail.
"""
from __future__ import annotations

import pytest

from mcp_helpers import aio, connect, place, tool_error, tool_ok  # noqa: F401 (fixtures)
from mcp_modern import rawm  # noqa: F401 (fixture)
from wsfiles import b64, domain_error, unb64

LINES = "".join(f"line {i}\n" for i in range(1, 11))          # 10 lines, 71 bytes


def _put(ws, rel: str, data: bytes | str) -> None:
    p = ws.root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)


def test_line_windows_follow_each_other_to_the_end(ws):
    _put(ws, "ten.txt", LINES)
    seen, start, windows = "", 1, 0
    while True:
        r = ws.result("loadFile", {"path": "ten.txt", "startLine": start, "maxLines": 4})
        assert r["startLine"] == start and r["offset"] == len(seen)
        seen += r["data"]
        windows += 1
        if r["eof"]:
            assert "nextLine" not in r and "nextOffset" not in r
            break
        assert r["lineCount"] == 4 and r["nextLine"] == start + 4 and r["nextOffset"] == len(seen.encode())
        start = r["nextLine"]
    assert seen == LINES and windows == 3 and r["lineCount"] == 2


def test_a_window_can_go_on_from_a_byte_offset(ws):
    _put(ws, "ten.txt", LINES)
    first = ws.result("loadFile", {"path": "ten.txt", "maxLines": 3})
    assert first["data"] == "line 1\nline 2\nline 3\n" and first["nextOffset"] == 21
    rest = ws.result("loadFile", {"path": "ten.txt", "offset": first["nextOffset"], "maxLines": 100})
    assert rest["data"] == LINES[21:] and rest["eof"] is True and rest["lineCount"] == 7
    assert "startLine" not in rest                       # asked by offset: no line number claimed


def test_byte_windows_say_where_the_next_starts(ws):
    _put(ws, "ten.txt", LINES)
    r = ws.result("loadFile", {"path": "ten.txt", "offset": 5, "length": 10})
    assert (r["offset"], r["length"], r["eof"], r["nextOffset"]) == (5, 10, False, 15)
    end = ws.result("loadFile", {"path": "ten.txt", "offset": 60})
    assert end["eof"] is True and "nextOffset" not in end and end["data"] == LINES[60:]


def test_tail_lines_and_a_last_line_without_newline(ws):
    _put(ws, "t.txt", "a\nb\nc")
    r = ws.result("loadFile", {"path": "t.txt", "tailLines": 2})
    assert r["data"] == "b\nc" and r["eof"] is True and r["lineCount"] == 2 and r["offset"] == 2
    assert ws.result("loadFile", {"path": "t.txt", "tailLines": 99})["data"] == "a\nb\nc"
    _put(ws, "u.txt", "a\nb\n")
    assert ws.result("loadFile", {"path": "u.txt", "tailLines": 1})["data"] == "b\n"
    assert ws.result("loadFile", {"path": "u.txt", "startLine": 2})["data"] == "b\n"


@pytest.mark.parametrize("params", [{"maxLines": 0}, {"startLine": 3, "maxLines": 0}, {"tailLines": 0}, {"length": 0}])
def test_zero_means_nothing_not_everything(ws, params):
    _put(ws, "ten.txt", LINES)
    r = ws.result("loadFile", {"path": "ten.txt", **params})
    assert r["data"] == "" and r["length"] == 0 and r["size"] == len(LINES) and r["etag"]
    if "tailLines" in params:
        assert r["eof"] is True and r["offset"] == len(LINES)
    else:
        assert r["eof"] is False and r["nextOffset"] == r["offset"]


def test_past_the_last_line_is_an_empty_window_at_the_end(ws):
    _put(ws, "ten.txt", LINES)
    r = ws.result("loadFile", {"path": "ten.txt", "startLine": 50, "maxLines": 5})
    assert r["data"] == "" and r["eof"] is True and r["offset"] == len(LINES) and r["lineCount"] == 0


@pytest.mark.parametrize("params, field", [
    ({"startLine": 1, "length": 4}, "length"),
    ({"tailLines": 2, "maxLines": 1}, "tailLines"),
    ({"startLine": 2, "offset": 3}, "startLine"),
    ({"startLine": 0}, "startLine"),
    ({"maxLines": -1}, "maxLines"),
])
def test_windows_that_contradict_are_invalid_params(ws, params, field):
    _put(ws, "ten.txt", LINES)
    err = ws.error("loadFile", {"path": "ten.txt", **params})
    assert err["code"] == -32602 and field in err["message"], err


def test_binary_files_are_refused_as_text_and_readable_as_base64(ws):
    blob = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 100
    _put(ws, "img.png", blob)
    _put(ws, "nul.txt", "looks like text\x00but is not\n")   # valid UTF-8, still binary
    for params in ({}, {"offset": 100, "length": 10}, {"startLine": 1, "maxLines": 1}, {"tailLines": 1}):
        err = domain_error(ws, "loadFile", {"path": "img.png", **params}, "NotText")
        assert err["data"]["reason"] == "binary" and err["data"]["size"] == len(blob) and "base64" in err["message"]
    assert domain_error(ws, "loadFile", {"path": "nul.txt"}, "NotText")["data"]["reason"] == "binary"
    r = ws.result("loadFile", {"path": "img.png", "encoding": "base64", "offset": 8, "length": 8})
    assert unb64(r["data"]) == blob[8:16] and r["nextOffset"] == 16


def test_a_line_window_stops_at_the_last_whole_line_within_16_mib(ws):
    line = "x" * 1023 + "\n"
    _put(ws, "big.txt", line * (17 * 1024))                  # 17 MiB of 1 KiB lines
    r = ws.result("loadFile", {"path": "big.txt"} | {"startLine": 1}, timeout=30)
    assert r["lineCount"] == 16 * 1024 and r["eof"] is False and r["nextLine"] == 16 * 1024 + 1
    assert r["nextOffset"] == 16 << 20
    _put(ws, "long.txt", "y" * (17 << 20))
    err = domain_error(ws, "loadFile", {"path": "long.txt", "maxLines": 1}, "TooLarge", timeout=30)
    assert "offset and length" in err["message"]


def test_a_base64_line_window(ws):
    _put(ws, "ten.txt", LINES)
    r = ws.result("loadFile", {"path": "ten.txt", "encoding": "base64", "startLine": 10})
    assert unb64(r["data"]) == b"line 10\n" and r["eof"] is True
    assert b64(b"line 10\n") == r["data"]


# -- MCP: read_file in both eras ------------------------------------------------------------------

@aio
async def test_read_file_with_the_official_client_says_how_to_go_on(binary, place):
    place.root.mkdir(parents=True, exist_ok=True)
    (place.root / "ten.txt").write_text(LINES)
    (place.root / "img.bin").write_bytes(b"\x00\x01binary")
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        tools = {t.name: t for t in (await c.session.list_tools()).tools}
        described = tools["read_file"].description
        assert "nextLine" in described and "eof" in described and "maxLines 0" in described
        assert {"startLine", "maxLines", "tailLines"} <= set(tools["read_file"].input_schema["properties"])
        first = await c.session.call_tool("read_file", {"path": "ten.txt", "maxLines": 2})
        s = tool_ok(first, "read_file")
        assert s["data"] == "line 1\nline 2\n" and s["nextLine"] == 3 and s["eof"] is False
        assert first.content[0].text.endswith("read from startLine 3 for more]")
        last = tool_ok(await c.session.call_tool("read_file", {"path": "ten.txt", "startLine": 3}), "read_file")
        assert last["data"] == LINES[14:] and last["eof"] is True
        tail = await c.session.call_tool("read_file", {"path": "ten.txt", "tailLines": 1})
        assert tail.content[0].text == "line 10\n"
        err = tool_error(await c.session.call_tool("read_file", {"path": "img.bin"}), "NotText", "read_file")
        assert "binary" in err["error"] and "base64" in err["error"]


def test_read_file_in_the_2026_era_says_where_to_go_on(rawm, place):
    place.root.mkdir(parents=True, exist_ok=True)
    (place.root / "ten.txt").write_text(LINES)
    r = rawm()
    s = r.tool("read_file", {"path": "ten.txt", "offset": 7, "maxLines": 1})["structuredContent"]
    assert s["data"] == "line 2\n" and s["nextOffset"] == 14 and "nextLine" not in s
    zero = r.tool("read_file", {"path": "ten.txt", "maxLines": 0})
    assert zero["structuredContent"]["data"] == "" and zero["structuredContent"]["size"] == len(LINES)
    assert "read from startLine 1 for more" in zero["content"][0]["text"]


# -- read_multiple_files: head, tail, per-file errors ---------------------------------------------

def _files(place) -> None:
    place.root.mkdir(parents=True, exist_ok=True)
    (place.root / "ten.txt").write_text(LINES)
    (place.root / "three.txt").write_text("a\nb\nc\n")
    (place.root / "img.bin").write_bytes(b"\x00\x01binary")


def test_read_multiple_files_head_tail_and_zero(rawm, place):
    _files(place)
    r = rawm()
    head = r.tool("read_multiple_files", {"paths": ["ten.txt", "three.txt"], "head": 2})
    files = head["structuredContent"]["files"]
    assert [f["data"] for f in files] == ["line 1\nline 2\n", "a\nb\n"]
    assert [(f["eof"], f["nextLine"], f["lineCount"]) for f in files] == [(False, 3, 2), (False, 3, 2)]
    text = head["content"][0]["text"]
    assert text.startswith("=== ten.txt ===\nline 1\nline 2\n[ten.txt goes on") and "=== three.txt ===\na\nb\n" in text
    tail = r.tool("read_multiple_files", {"paths": ["ten.txt", "three.txt"], "tail": 1})["structuredContent"]["files"]
    assert [(f["data"], f["eof"]) for f in tail] == [("line 10\n", True), ("c\n", True)]
    zero = r.tool("read_multiple_files", {"paths": ["ten.txt", "three.txt"], "head": 0})["structuredContent"]["files"]
    assert [(f["data"], f["lineCount"], f["size"]) for f in zero] == [("", 0, len(LINES)), ("", 0, 6)]
    whole = r.tool("read_multiple_files", {"paths": ["three.txt"]})["structuredContent"]["files"]
    assert whole == [{"path": "three.txt", "data": "a\nb\nc\n", "size": 6, "etag": whole[0]["etag"], "eof": True, "lineCount": 3}]


def test_read_multiple_files_reports_each_bad_file_and_reads_the_rest(rawm, place):
    _files(place)
    r = rawm()
    res = r.tool("read_multiple_files", {"paths": ["img.bin", "missing.txt", "../etc/passwd", "three.txt"]})
    assert res["isError"] is False
    files = res["structuredContent"]["files"]
    assert [f.get("code") for f in files] == ["NotText", "NotFound", "OutsideWorkspace", None]
    assert "binary" in files[0]["error"] and files[3]["data"] == "a\nb\nc\n"
    assert "[not read: " in res["content"][0]["text"]
    both = r.tool("read_multiple_files", {"paths": ["three.txt"], "head": 1, "tail": 1})
    assert both["isError"] is True and both["structuredContent"]["code"] == "InvalidParams"


def test_read_multiple_files_stays_within_the_roots(rawm, place):
    _files(place)
    (place.root / "inside").mkdir()
    (place.root / "inside" / "a.txt").write_text("in\n")
    r = rawm(extra=("--root", "inside"))
    assert r.tool("read_multiple_files", {"paths": ["inside/a.txt"]})["structuredContent"]["files"][0]["data"] == "in\n"
    refused = r.tool("read_multiple_files", {"paths": ["inside/a.txt", "ten.txt"]})
    assert refused["isError"] is True and refused["structuredContent"]["code"] == "OutsideWorkspace", refused
