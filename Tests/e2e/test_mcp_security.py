"""Containment through the MCP face: every escape attempt of the file API's table
(test_files_security.ATTACKS), sent as the matching tool call by the official MCP client, is a
tool result with isError: true and the same data code, touches nothing outside the workspace
(inotify + snapshots, wsfiles.Untouched), changes nothing inside it, and leaks no secret.

The host-only methods of the table (getFileUri, importFile, exportFile) are not tools; a call
to them by name is an unknown tool (-32602).

Every test runs through both eras of the face: the 2025 handshake (`legacy`) and the 2026-07-28
per-request `_meta` (`modern`, the official client pinned to 2026-07-28). Special files (FIFOs,
sockets) through the modern face: listed, skipped by search, described, never hanging; read,
written, copied or hashed they are refused as `NotARegularFile` (h14-files' code). The legacy face's special-file tests live with the file suites.
"""
from __future__ import annotations

import contextlib
import os
import socket
import time

import anyio
import pytest

pytest.importorskip("mcp")

from mcp_helpers import MCPError, aio, connect, result_text, tool_error  # noqa: E402
from mcp_modern import MODERN, open_client  # noqa: E402
from test_files_security import ATTACKS, make_world  # noqa: E402
from wsfiles import SECRET_MARKER, SECRET_MARKER_B64, Untouched  # noqa: E402

HOST_ONLY = {"getFileUri", "importFile", "exportFile"}


TOOL_OF = {"loadFile": "read_file", "saveFile": "write_file", "appendFile": "append_file", "listFiles": "list_files",
           "getFileInfo": "get_file_info", "searchFiles": "search_files", "moveFile": "move_file",
           "copyFile": "copy_file", "deleteFile": "delete_file", "createFolder": "create_folder"}


def as_tool(method: str, params: dict) -> tuple[str, dict] | None:
    """The tool call that does what a file API request does (None for host-only methods): the same
    params, `data` named `content` (schema/openrpc.json, x-agent-tool)."""
    if method in HOST_ONLY:
        return None
    assert method in TOOL_OF, method
    return TOOL_OF[method], {("content" if k == "data" else k): v for k, v in params.items() if k != "workDoneToken"}


def fmt(value, t):
    if isinstance(value, str):
        return value.replace("{tmp}", str(t))
    if isinstance(value, dict):
        return {k: fmt(v, t) for k, v in value.items()}
    return value


def leaks(text: str) -> list[str]:
    found = []
    if SECRET_MARKER.decode() in text:
        found.append("secret content")
    if SECRET_MARKER_B64.decode() in text:
        found.append("base64 of secret content")
    return found


FACES = ["legacy", "modern"]


@contextlib.asynccontextmanager
async def face(binary, root, cfg, tmp, era: str):
    """(session, alive): the official client in one era; `alive()` proves the connection still serves
    (`ping` in 2025; `server/discover` in 2026, which has no ping)."""
    if era == "legacy":
        async with connect(binary, root, cfg, tmp) as c:
            yield c.session, c.session.send_ping
    else:
        async with open_client(binary, root, cfg, tmp, MODERN) as c:
            assert c.protocol_version == MODERN
            # the pinned mode sends nothing at connect; the first request opens the workspace
            assert (await c.session.send_discover(MODERN))["resultType"] == "complete"
            yield c.session, (lambda: c.session.send_discover(MODERN))


@pytest.mark.parametrize("era", FACES)
@aio
async def test_every_escape_attempt_is_a_tool_error_and_touches_nothing(binary, tmp_path, era):
    t = tmp_path / "w"            # the world; the server's config and logs stay outside it
    root = t / "ws"
    t.mkdir()
    failures: list[str] = []
    ran = 0
    async with face(binary, root, tmp_path / "cfg", tmp_path, era) as (session, alive):
        make_world(t, root)       # after the template was laid out (Research/ exists)
        for attack_id, method, params, code in ATTACKS:
            tool = as_tool(method, fmt(params, t))
            if tool is None:
                continue
            name, args = tool
            ran += 1
            try:
                with Untouched(t, root, inside_unchanged=True, read_ok=("host",)):
                    res = await session.call_tool(name, args)
            except AssertionError as e:
                failures.append(f"{attack_id}: {name} {args}: {e}")
                continue
            text = result_text(res)
            if res.is_error is not True:
                failures.append(f"{attack_id}: {name} {args} was not refused: {text[:200]}")
            elif (res.structured_content or {}).get("code") != code:
                failures.append(f"{attack_id}: {name} {args}: expected {code}, got {res.structured_content}")
            if leaks(text):
                failures.append(f"{attack_id}: {name} {args}: {leaks(text)} in the result")
        await alive()
        # host-only methods are not tools
        for method in sorted(HOST_ONLY):
            with pytest.raises(MCPError) as e:
                await session.call_tool(method, {"path": "context.md"})
            assert e.value.code == -32602
    assert ran >= 80, f"only {ran} attacks mapped to tools"
    assert not failures, f"{len(failures)} of {ran} attacks not refused cleanly:\n" + "\n".join(failures)
    assert (t / "secret.txt").read_bytes().startswith(SECRET_MARKER)
    assert not (t / "created.txt").exists() and not (t / "ws_newdir").exists()
    assert not (t / "ws_secret/created_by_link.txt").exists()


def test_the_mapping_covers_every_tool_method():
    methods = {a[1] for a in ATTACKS}
    tools = {as_tool(m, {"path": "x", "data": "y", "from": "a", "to": "b", "query": "q"})[0]
             for m in methods - HOST_ONLY}
    assert tools == {"read_file", "write_file", "append_file", "list_files", "get_file_info", "search_files",
                     "move_file", "copy_file", "delete_file", "create_folder"}


# -- special files through the modern face ------------------------------------------------------------

NARF = "NotARegularFile"
SPECIAL_CASES = [   # (id, tool, arguments, expected): a data.code, or None for "answers, without hanging"
    pytest.param("read_file", {"path": "sp/fifo"}, NARF, id="read-fifo"),
    pytest.param("read_file", {"path": "sp/fifo", "offset": 0, "length": 4}, NARF, id="read-fifo-range"),
    pytest.param("read_file", {"path": "sp/sock"}, NARF, id="read-socket"),
    pytest.param("write_file", {"path": "sp/fifo", "content": "x"}, NARF, id="write-fifo"),
    pytest.param("append_file", {"path": "sp/fifo", "content": "x"}, NARF, id="append-fifo"),
    pytest.param("copy_file", {"from": "sp/fifo", "to": "copied"}, NARF, id="copy-from-fifo"),
    pytest.param("get_file_info", {"path": "sp/fifo", "hash": "sha256"}, NARF, id="hash-fifo"),
    pytest.param("list_files", {"path": "sp"}, None, id="list-folder-with-specials"),
    pytest.param("search_files", {"query": "needle", "path": "sp"}, None, id="search-folder-with-specials"),
    pytest.param("get_file_info", {"path": "sp/fifo"}, None, id="info-fifo"),
]


@pytest.mark.parametrize("tool, args, expected", SPECIAL_CASES)
@aio
async def test_special_files_through_the_modern_face(binary, tmp_path, tool, args, expected):
    root = tmp_path / "ws"
    async with face(binary, root, tmp_path / "cfg", tmp_path, "modern") as (session, alive):
        sp = root / "sp"
        sp.mkdir()
        os.mkfifo(sp / "fifo")
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(sp / "sock"))
        (sp / "plain.txt").write_text("a needle\n")
        with anyio.fail_after(10):  # a hang guard: a special file never holds the call
            res = await session.call_tool(tool, args)
        if expected is None:
            assert not res.is_error, res.structured_content
            text = result_text(res)
            if tool == "search_files":
                assert [m["path"] for m in res.structured_content["matches"]] == ["sp/plain.txt"]
            if tool == "list_files":
                assert {e["name"] for e in res.structured_content["entries"]} == {"fifo", "sock", "plain.txt"}, text
        else:
            tool_error(res, expected, tool)
        await alive()
        s.close()
    assert not (root / "copied").exists()
