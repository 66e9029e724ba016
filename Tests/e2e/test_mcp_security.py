"""Containment through the MCP face: every escape attempt of the file API's table
(test_files_security.ATTACKS), sent as the matching tool call by the official MCP client, is a
tool result with isError: true and the same data code, touches nothing outside the workspace
(inotify + snapshots, wsfiles.Untouched), changes nothing inside it, and leaks no secret.

The host-only methods of the table (getFileUri, importFile, exportFile) are not tools; a call
to them by name is an unknown tool (-32602).
"""
from __future__ import annotations

import os

import pytest

pytest.importorskip("mcp")

from mcp_helpers import MCPError, aio, connect, result_text  # noqa: E402
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


@aio
async def test_every_escape_attempt_is_a_tool_error_and_touches_nothing(binary, tmp_path):
    t = tmp_path / "w"            # the world; the server's config and logs stay outside it
    root = t / "ws"
    t.mkdir()
    failures: list[str] = []
    ran = 0
    async with connect(binary, root, tmp_path / "cfg", tmp_path) as c:
        make_world(t, root)       # after the template was laid out (Research/ exists)
        for attack_id, method, params, code in ATTACKS:
            tool = as_tool(method, fmt(params, t))
            if tool is None:
                continue
            name, args = tool
            ran += 1
            try:
                with Untouched(t, root, inside_unchanged=True, read_ok=("host",)):
                    res = await c.session.call_tool(name, args)
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
        await c.session.send_ping()
        # host-only methods are not tools
        for method in sorted(HOST_ONLY):
            with pytest.raises(MCPError) as e:
                await c.session.call_tool(method, {"path": "context.md"})
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
