"""`exit` keeps end of input's promise (docs/protocol.md, "Lifecycle"; docs/decisions.md, "`exit`
keeps the end-of-input promise (issue 22)"): every request received before `exit` is answered,
within `--exit-grace`, in both framings and on the MCP face; stdout ends on a whole message; the
process then exits with LSP's status (0 after `shutdown`, 1 without); nothing sent after `exit`
is answered; and no temp file is left in the workspace by a start-up or a save the exit came
behind. Clients that pipeline (python-lsp-jsonrpc, a script ending in `exit`) write it all
back to back: so do these tests, in one write.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from bridge import notification, request
from test_stuck import fifo, release, wait_until_blocked


def leftover_temp_files(root: Path) -> list[str]:
    """Every temp file (ours are `.syncthing.<name>.wb-<pid+random>.tmp`) anywhere in the tree."""
    found = []
    for folder, _, files in os.walk(root):
        found += [os.path.join(folder, f) for f in files if f.endswith(".tmp")]
    return found


def start(spawn, tmp_path, framing, *extra):
    b = spawn("--local-root", str(tmp_path / "ws"), "--config-dir", str(tmp_path / "cfg"), *extra, framing=framing)
    b.root = tmp_path / "ws"
    return b


def responses(b, ids):
    """The answers to `ids` (each waited for), in the order they arrived."""
    for i in ids:
        b.take(lambda m, i=i: isinstance(m, dict) and m.get("id") == i, what=f"the answer to {i!r}")
    return [e.msg for e in b.log if isinstance(e.msg, dict) and e.msg.get("id") in ids]


def assert_ends_whole(b):
    """stdout ended (EOF) on a whole message: nothing undecoded left over."""
    assert b.eof, "stdout was not closed"
    assert not b.buf, f"stdout ended inside a message: {bytes(b.buf[:200])!r}"


def test_pipelined_initialize_list_files_shutdown_exit_answers_all_and_exits_0(spawn, tmp_path, framing):
    b = start(spawn, tmp_path, framing)
    b.send_many([
        request("initialize", {"clientInfo": {"name": "pipelined"}}, id=1),
        notification("initialized", {}),
        request("listFiles", {}, id=2),
        request("shutdown", None, id=3),
        notification("exit"),
    ])

    assert b.wait_exit(10) == 0
    init, listing, down = responses(b, [1, 2, 3])
    assert [init["id"], listing["id"], down["id"]] == [1, 2, 3], "answers out of order"
    assert init["result"]["serverInfo"]["name"] == "workspace-bridge"
    # listFiles ran after initialize had laid out the new workspace, whole.
    assert {"context.md", "README.txt"} <= {e["path"] for e in listing["result"]["entries"]}
    assert down["result"] is None
    assert_ends_whole(b)
    assert leftover_temp_files(b.root) == []


def test_pipelined_initialize_save_exit_without_shutdown_answers_all_exits_1_leaves_no_temp_file(spawn, tmp_path, framing):
    b = start(spawn, tmp_path, framing)
    text = "pipelined " * 10_000
    b.send_many([
        request("initialize", {}, id=1),
        request("saveFile", {"path": "notes.txt", "data": text}, id=2),
        notification("exit"),
    ])

    assert b.wait_exit(10) == 1
    init, saved = responses(b, [1, 2])
    assert "result" in init and saved["result"]["path"] == "notes.txt"
    assert (b.root / "notes.txt").read_text() == text
    assert (b.root / "context.md").is_file(), "the start-up's layout was cut off"
    assert_ends_whole(b)
    assert leftover_temp_files(b.root) == []


def test_nothing_sent_after_exit_is_answered(spawn, tmp_path, framing):
    b = start(spawn, tmp_path, framing)
    b.send_many([
        request("initialize", {}, id=1),
        request("ping", None, id=2),
        notification("exit"),
        request("saveFile", {"path": "after-exit.txt", "data": "x"}, id=3),
    ])

    assert b.wait_exit(10) == 1
    assert sorted(m["id"] for m in responses(b, [1, 2])) == [1, 2]  # ping does not wait for initialize
    assert [e.msg for e in b.inbox] == [], "something was answered after exit"
    assert not (b.root / "after-exit.txt").exists()
    assert_ends_whole(b)


def test_exit_in_a_batch_answers_the_whole_batch_first(spawn, tmp_path, framing):
    b = start(spawn, tmp_path, framing)
    b.send_many([
        request("initialize", {}, id=1),
        [request("saveFile", {"path": "in-batch.txt", "data": "b"}, id=2), request("shutdown", None, id=3),
         notification("exit"), request("ping", None, id=4)],
        request("ping", None, id=5),
    ])

    assert b.wait_exit(10) == 0
    b.take(lambda m: isinstance(m, dict) and m.get("id") == 1)
    batch = b.take(lambda m: isinstance(m, list), what="the batch's answer")
    by_id = {m["id"]: m for m in batch}
    assert set(by_id) == {2, 3, 4}
    assert by_id[2]["result"]["path"] == "in-batch.txt" and by_id[3]["result"] is None
    # The batch's ping came after shutdown: refused as LSP says, but answered.
    assert by_id[4]["error"]["data"]["code"] == "ShutdownRequested"
    assert [e.msg for e in b.inbox] == [], "the ping sent after the batch with exit was answered"
    assert (b.root / "in-batch.txt").read_text() == "b"
    assert_ends_whole(b)


def test_exit_before_initialize_answers_what_came_before_and_exits_1(spawn, tmp_path, framing):
    b = start(spawn, tmp_path, framing)
    b.send_many([request("ping", None, id=1), notification("exit"), request("initialize", {}, id=2)])

    assert b.wait_exit(5) == 1
    [early] = responses(b, [1])
    assert early["error"]["data"]["code"] == "ServerNotInitialized"
    assert [e.msg for e in b.inbox] == []
    assert_ends_whole(b)
    assert not (b.root / "context.md").exists(), "initialize sent after exit was run"


def test_exit_waits_for_a_slow_request_within_the_grace(spawn, tmp_path):
    b = start(spawn, tmp_path, "ndjson", "--exit-grace", "60")
    b.initialize()
    sent = time.monotonic()
    b.send_many([request("debug/sleep", {"ms": 600}, id="slow"), notification("exit")])

    # Waits for the request (0.6 s), not the whole grace (60 s); 20 s is a hang guard.
    assert b.wait_exit(20) == 1
    assert "result" in b.response("slow")
    assert 0.5 < time.monotonic() - sent < 20
    assert_ends_whole(b)


def test_exit_after_a_shutdown_that_gave_up_names_the_stuck_requests_and_exits_0(spawn, tmp_path):
    b = start(spawn, tmp_path, "ndjson", "--exit-grace", "5")
    b.initialize()
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="stuck")
    wait_until_blocked(b)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="queued-behind")
    b.request("shutdown", id="down")
    assert b.response("down", timeout=30)["result"] is None  # after its own grace

    # shutdown has waited the grace for them already: exit does not wait the 5 s again.
    sent = time.monotonic()
    b.notify("exit")
    assert b.wait_exit(10) == 0, "exit after shutdown must exit 0 even when it gave up on a request"
    assert time.monotonic() - sent < 5.0, "exit waited the grace a second time"
    err = b.stderr_text()
    assert "exit: 2 request(s) still in flight after the 5 s grace, abandoned (exit status 0)" in err, err
    assert 'debug/block (id "stuck") running for' in err
    assert 'debug/block (id "queued-behind") waiting for an earlier request' in err
    assert_ends_whole(b)
    release(pipe)


def test_a_save_in_flight_at_exit_with_no_grace_is_whole_or_absent_and_leaves_no_temp_file(spawn, tmp_path):
    """`--exit-grace 0`: the exit waits for nothing. A save under way then is either done whole
    or never happened, and its temp file is removed before the process ends."""
    data = "z" * (24 << 20)
    for attempt in range(4):
        sub = tmp_path / f"run{attempt}"
        sub.mkdir()
        b = start(spawn, sub, "ndjson", "--exit-grace", "0")
        b.initialize()
        b.send_many([request("saveFile", {"path": "big.txt", "data": data}, id="big"), notification("exit")])
        assert b.wait_exit(20) == 1
        assert_ends_whole(b)
        answers = [e.msg for e in b.inbox if isinstance(e.msg, dict) and e.msg.get("id") == "big"]
        answered = bool(answers) and "result" in answers[0]
        path = b.root / "big.txt"
        if path.exists():
            assert path.stat().st_size == len(data), "a save cut off by the exit left a partial file"
        else:
            assert not answered, f"a save was answered but its file is not there: {answers}"
            # Cut off before its rename: unanswered, or answered as not done (it was cut off).
            assert all(a["error"]["data"]["code"] == "RequestCancelled" for a in answers), answers
        assert leftover_temp_files(b.root) == [], "the exit left a save's temp file behind"
        b.kill()


def test_exit_on_the_mcp_face_answers_what_came_before(binary, tmp_path):
    """MCP ends a stdio server by closing stdin, but the face accepts `exit` too: same promise."""
    pytest.importorskip("mcp")
    from mcp_helpers import RawMCP, server_args, server_env

    r = RawMCP(binary, server_args(tmp_path / "ws", tmp_path / "cfg"), server_env(tmp_path), tmp_path / "mcp-stderr.log")
    try:
        msgs = [
            request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "pipelined", "version": "1"}}, id=1),
            notification("notifications/initialized"),
            request("tools/call", {"name": "write_file", "arguments": {"path": "m.txt", "content": "mcp"}}, id=2),
            notification("exit"),
            request("tools/list", {}, id=3),
        ]
        r.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))
        assert r.proc.wait(10) == 1  # no shutdown on this face: LSP's status without it
        r.drain(1.0)
        assert [m.get("id") for _, m in r.log if "id" in m] == [1, 2], r.describe()
        assert r.log[-1][1]["result"]["isError"] is False
        assert r.buf == b"", "stdout ended inside a message"
        assert (tmp_path / "ws" / "m.txt").read_text() == "mcp"
        assert leftover_temp_files(tmp_path / "ws") == []
    finally:
        r.kill()
