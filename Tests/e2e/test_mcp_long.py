"""Long requests through the MCP face: notifications/cancelled stops a search of a big tree and
nothing more is sent for it; _meta.progressToken gives notifications/progress; a workspace with
many files does not break the handshake.

The tree (5,000 files, 200 MB) is written once per module and moved into each test's workspace
after the server started, and out again at the end.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp_helpers import MCPError, aio, connect, place, raw, session_id_of, tool_ok  # noqa: E402,F401

FOLDERS, FILES, LINES = 50, 100, 360     # 5,000 files of 40 KiB (200 MB)
NEEDLE = "zqxjneverfound"                # a literal search of the tree: 0.3 s (release) to 1.5 s (debug)
SLOW = "(?:[a-z]+ ?){1,5}[0-9]"         # a regex search of it: over 10 s (heavy backtracking on each line, under the bound), for the cancel tests


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("mcp-tree") / "tree"
    line = ("lorem ipsum dolor sit amet consectetur adipiscing elit " * 2 + "\n").encode()
    blob = line * LINES
    for d in range(FOLDERS):
        folder = base / f"d{d:03d}"
        folder.mkdir(parents=True)
        for f in range(FILES):
            fd = os.open(folder / f"f{f:03d}.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.write(fd, blob)
            os.close(fd)
    return base


class Moved:
    """Moves the tree into a workspace for the duration of a with block."""

    def __init__(self, tree: Path, root: Path):
        self.tree, self.dest = tree, root / "tree"

    def __enter__(self):
        self.dest.parent.mkdir(parents=True, exist_ok=True)
        os.rename(self.tree, self.dest)
        return self.dest

    def __exit__(self, *exc):
        os.rename(self.dest, self.tree)
        return False


def _search(token=None, path="tree", query=NEEDLE, regex=False) -> dict:
    params = {"name": "search_files", "arguments": {"query": query, "path": path}}
    if regex:
        params["arguments"]["regex"] = True
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return params


def _journal(root: Path, session_id: str) -> list[dict]:
    path = root / ".workspace" / "sessions" / session_id / "journal.jsonl"
    return [json.loads(line.partition(" ")[2]) for line in path.read_text().splitlines()]


def _is_progress(m: dict, token) -> bool:
    return m.get("method") == "notifications/progress" and m.get("params", {}).get("progressToken") == token


# -- cancellation ---------------------------------------------------------------------------------

def test_cancelled_search_stops_and_is_never_answered(raw, place, tree):
    r = raw()
    init = r.initialize()
    sid = session_id_of(init)
    with Moved(tree, place.root):
        token = "tok-cancel"
        search_id = r.request("tools/call", _search(token, query=SLOW, regex=True))
        r.wait_for(lambda m: _is_progress(m, token), timeout=10)     # the search is running
        cancelled_at = time.time_ns()
        r.notify("notifications/cancelled", {"requestId": search_id, "reason": "the user changed their mind"})
        ping_id = r.request("ping")
        r.response(ping_id, timeout=10)
        after_ping = time.monotonic()
        r.drain(2.0)                       # the whole search would take over 10 s
        late = [m for t, m in r.log if m.get("id") == search_id]
        assert not late, f"a response arrived for the cancelled request: {late}"
        late_progress = [m for t, m in r.log if t > after_ping and _is_progress(m, token)]
        # the connection and the session go on
        small = r.result("tools/call", _search(path="tree/d000/f000.txt", query="lorem"))
        assert small["isError"] is False and small["structuredContent"]["matches"]
    r.close()
    # A read-only call is journaled as one `read` record, the cancelled one with its error.
    ends = [x for x in _journal(place.root, sid) if x["t"] == "read" and x["name"] == "search_files"]
    assert len(ends) == 2, f"the cancelled call was not closed in the journal: {ends}"
    stopped_after = (ends[0]["at"] - cancelled_at) / 1e9
    assert ends[0]["isError"] is True
    assert stopped_after < 0.5, f"the search ran on for {stopped_after:.2f}s after the cancel"
    print(f"search stopped {stopped_after * 1000:.0f} ms after notifications/cancelled")
    # "nothing more is sent for it": not even a last progress notification
    assert not late_progress, f"progress sent after the cancel was processed: {late_progress}"


@aio
async def test_official_client_timeout_cancels_the_search(binary, place, tree):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        sid = session_id_of(c.init)
        with Moved(tree, place.root):
            t0 = time.time_ns()
            with pytest.raises(MCPError) as e:
                await c.session.call_tool("search_files", {"query": SLOW, "path": "tree", "regex": True},
                                          read_timeout_seconds=0.3)
            assert e.value.code == -32001                           # the client's own timeout
            await c.session.send_ping()
            small = tool_ok(await c.session.call_tool("read_file", {"path": "tree/d000/f000.txt", "length": 11}))
            assert small["data"] == "lorem ipsum"
            # the client sent notifications/cancelled: the server closed the call promptly
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                ends = [x for x in _journal(place.root, sid) if x["t"] == "read" and x["name"] == "search_files"]
                if ends:
                    break
                await _sleep(0.05)
            assert ends, "the timed-out search was not closed"
            assert ends[0]["isError"] is True, "the search ran to completion despite the cancel"
            assert (ends[0]["at"] - t0) / 1e9 < 1.2


# -- progress -------------------------------------------------------------------------------------

@aio
async def test_progress_notifications_during_a_search(binary, place, tree):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        with Moved(tree, place.root):
            seen: list[tuple[float, float | None, str | None]] = []

            async def on_progress(progress, total, message):
                seen.append((progress, total, message))

            res = await c.session.call_tool("search_files", {"query": NEEDLE, "path": "tree"}, progress_callback=on_progress)
            assert tool_ok(res)["filesSearched"] == FOLDERS * FILES
            await _sleep(0.1)
    assert len(seen) >= 3, f"only {len(seen)} progress notifications: {seen}"
    assert all(total is None or p <= total for p, total, _ in seen), seen
    assert any(m and "files" in m for _, _, m in seen), seen


def test_progress_is_sent_before_the_answer_and_increases(raw, place, tree):
    """MCP: progress notifications reference the request's token, precede its answer, and "the
    progress value MUST increase with each notification"."""
    r = raw()
    r.initialize()
    with Moved(tree, place.root):
        call_id = r.request("tools/call", _search("tok-7"))
        answer = r.response(call_id, timeout=20)
    assert answer["result"]["isError"] is False
    idx = next(i for i, (_, m) in enumerate(r.log) if m.get("id") == call_id)
    before = [m["params"] for _, m in r.log[:idx] if _is_progress(m, "tok-7")]
    after = [m for _, m in r.log[idx + 1:] if _is_progress(m, "tok-7")]
    assert len(before) >= 3 and not after, (before, after)
    values = [p["progress"] for p in before]
    assert all(b > a for a, b in zip(values, values[1:])), f"progress values do not increase: {values}"


def test_progress_token_without_long_work_and_no_token_no_progress(raw, place):
    r = raw()
    r.initialize()
    r.result("tools/call", {"name": "write_file", "arguments": {"path": "a.txt", "content": "hello"}})
    r.result("tools/call", _search(path="a.txt", query="hello"))
    r.drain(0.2)
    assert not [m for _, m in r.log if m.get("method") == "notifications/progress"], "progress without a token"


# -- a big workspace and the handshake ------------------------------------------------------------

def test_initialize_on_a_workspace_with_many_files(raw, place, tree):
    """Every connection creates its session at initialize while the server's startup sweep of
    leftover temp files walks the tree; the sweep must never take the session's own files."""
    with Moved(tree, place.root):
        failures = []
        for i in range(5):
            r = raw()
            resp = r.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                         "clientInfo": {"name": f"try-{i}", "version": "1"}})
            if "error" in resp:
                failures.append(resp["error"]["message"])
            r.close()
    assert not failures, f"{len(failures)} of 5 initializations failed: {failures}"


async def _sleep(seconds: float) -> None:
    import anyio
    await anyio.sleep(seconds)
