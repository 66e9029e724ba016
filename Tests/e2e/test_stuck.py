"""A handler stuck for ever never stops the connection (docs/protocol.md, "Stuck requests").

The stuck handlers are real: `debug/block` opens and reads a FIFO nobody writes to, so its
thread sits in `open(2)` where no cancellation flag reaches it, as on a hung network mount;
`loadFile` and MCP `read_file` of a FIFO in the workspace do the same (or, with non-blocking
opens, answer an error at once: both are accepted). Every case ends with a `ping` that must be
answered.
"""
from __future__ import annotations

import errno
import os
import time

import pytest

from bridge import Bridge


def fifo(tmp_path, name="fifo"):
    path = tmp_path / name
    os.mkfifo(path)
    return path


def release(path, data: bytes = b"") -> bool:
    """Opens the FIFO for writing (waking every reader stuck in open), writes data, closes."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENXIO:  # no reader (yet)
            return False
        raise
    try:
        if data:
            os.write(fd, data)
    finally:
        os.close(fd)
    return True


def release_when_read(path, data: bytes = b"", timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not release(path, data):
        assert time.monotonic() < deadline, "the handler never opened the FIFO"
        time.sleep(0.01)


def assert_ping(b: Bridge) -> None:
    """ping is answered while the stuck handler still is not: the order, with a hang guard."""
    assert b.result("ping", timeout=10) == {}


def wait_until_blocked(b: Bridge, seconds: float = 0.2) -> None:
    """Gives the handler time to reach the system call it sticks in (no answer meanwhile)."""
    b.assert_silent(seconds)


def assert_cancelled(response, msg_id):
    assert response["id"] == msg_id
    assert response["error"]["code"] == -32800 and response["error"]["data"]["code"] == "RequestCancelled"


def test_ping_is_answered_while_a_handler_is_stuck_in_a_system_call(spawn, tmp_path):
    b = spawn(framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe)}, id="stuck")
    wait_until_blocked(b)

    for _ in range(20):
        assert_ping(b)
    assert b.result("debug/echo", {"value": "other work goes on"})["value"] == "other work goes on"

    release_when_read(pipe, b"abc")
    assert b.response("stuck", timeout=5)["result"] == {"bytes": 3}
    assert_ping(b)


def test_ping_is_answered_while_a_handler_is_stuck_in_both_framings(spawn, framing, tmp_path):
    b = spawn(framing=framing, init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe)}, id="stuck")
    wait_until_blocked(b)
    assert_ping(b)
    release_when_read(pipe)
    assert b.response("stuck", timeout=5)["result"] == {"bytes": 0}
    assert_ping(b)


def test_cancel_answers_a_stuck_reader_at_once_and_discards_its_late_result(spawn, tmp_path):
    b = spawn(framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe)}, id="stuck")
    wait_until_blocked(b)

    # At once: the reader is stuck for ever, so any answer within the guard is the cancel's.
    b.notify("$/cancelRequest", {"id": "stuck"})
    assert_cancelled(b.response("stuck", timeout=10), "stuck")
    assert_ping(b)

    # The id is free again at once; the abandoned handler's result, when it comes, is dropped.
    b.request("debug/echo", {"value": 1}, id="stuck")
    assert b.response("stuck")["result"] == {"value": 1}
    release_when_read(pipe, b"late")
    b.assert_silent(0.3)
    assert_ping(b)


def test_cancel_only_flags_a_stuck_request_that_may_write_which_answers_its_real_outcome(spawn, tmp_path):
    b = spawn(framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="writer")
    wait_until_blocked(b)

    b.notify("$/cancelRequest", {"id": "writer"})
    b.assert_silent(0.3)  # no -32800: what it does may still happen
    assert_ping(b)

    release_when_read(pipe, b"12345")
    assert b.response("writer", timeout=5)["result"] == {"bytes": 5}
    assert_ping(b)


def test_a_stuck_reader_keeps_its_claim_so_a_later_writer_on_it_waits_even_after_the_cancel(spawn, tmp_path):
    b = spawn(framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe)}, id="reader")
    wait_until_blocked(b)
    b.notify("$/cancelRequest", {"id": "reader"})
    assert_cancelled(b.response("reader", timeout=10), "reader")

    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="writer")
    b.assert_silent(0.3)
    assert_ping(b)
    # The writer starts only after the abandoned reader's system call returns (and is logged).
    release_when_read(pipe)
    b.pump_until(lambda: 'debug/block (id "reader") finished after it was cancelled' in b.stderr_text(), 10,
                 "the abandoned reader's result to be discarded")
    release_when_read(pipe, b"xy")
    assert b.response("writer", timeout=5)["result"] == {"bytes": 2}
    assert_ping(b)


def test_more_stuck_handlers_than_pool_threads_never_stop_ping_cancel_or_new_work_once_cancelled(spawn, tmp_path):
    b = spawn(framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    ids = [f"s{i}" for i in range(70)]  # the pool has 64 threads
    for i in ids:
        b.request("debug/block", {"path": str(pipe)}, id=i)
    wait_until_blocked(b, 0.5)
    assert_ping(b)

    for i in ids:
        b.notify("$/cancelRequest", {"id": i})
    for i in ids:
        assert_cancelled(b.response(i, timeout=10), i)
    # The abandoned handlers' threads no longer count against the pool: new work runs.
    assert b.result("debug/echo", {"value": "after"}, timeout=10)["value"] == "after"
    assert_ping(b)
    release_when_read(pipe)


def test_shutdown_answers_after_the_grace_naming_the_stuck_request_and_exit_exits_at_once(spawn, tmp_path):
    b = spawn("--exit-grace", "5", framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="stuck")
    wait_until_blocked(b)

    sent = time.monotonic()
    b.request("shutdown", id="down")
    # While shutdown waits, a request is still answered at once (LSP: with ShutdownRequested):
    # before shutdown's own answer, which waits the 5 s grace.
    ping = b.request("ping")
    answer = b.response_entry(ping, timeout=10)
    assert answer.msg["error"]["data"]["code"] == "ShutdownRequested"
    down = b.response_entry("down", timeout=30)
    assert answer.seq < down.seq, "ping waited for shutdown"
    assert down.msg["result"] is None
    waited = time.monotonic() - sent
    assert 4.9 < waited < 30, waited  # the grace, then an answer (30 s: a hang guard)
    assert 'debug/block (id "stuck") running for' in b.stderr_text()

    # shutdown has waited the grace already: exit does not wait the 5 s for the stuck one again.
    sent = time.monotonic()
    b.notify("exit")
    assert b.wait_exit(10) == 0
    assert time.monotonic() - sent < 5.0, "exit waited the grace a second time"


def test_shutdown_still_waits_for_earlier_requests_that_finish_within_the_grace(spawn):
    b = spawn("--exit-grace", "5", framing="ndjson", init=True)
    b.request("debug/sleep", {"ms": 400, "key": "k"}, id="sleep")
    b.request("shutdown", id="down")
    assert b.recv()["id"] == "sleep"
    assert b.recv()["id"] == "down"


def test_exit_without_shutdown_waits_the_grace_for_a_stuck_handler_then_exits_1(spawn, tmp_path):
    b = spawn("--exit-grace", "1", framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe)}, id="stuck")
    wait_until_blocked(b)
    assert_ping(b)
    sent = time.monotonic()
    b.notify("exit")
    assert b.wait_exit(10) == 1
    assert 0.9 < time.monotonic() - sent, "exit did not wait the grace"
    err = b.stderr_text()
    assert "exit: 1 request(s) still in flight after the 1 s grace, abandoned (exit status 1)" in err, err
    assert 'debug/block (id "stuck") running for' in err


@pytest.mark.parametrize("params_null", [False, True])
def test_exit_after_shutdown_with_params_null_exits_0(spawn, params_null):
    b = spawn(framing="ndjson", init=True)
    b.send({"jsonrpc": "2.0", "id": "down", "method": "shutdown", **({"params": None} if params_null else {})})
    assert b.response("down")["result"] is None
    b.send({"jsonrpc": "2.0", "method": "exit", **({"params": None} if params_null else {})})
    assert b.wait_exit(10) == 0


def test_end_of_input_ends_the_process_after_the_grace_naming_stuck_requests(spawn, tmp_path):
    b = spawn("--exit-grace", "1", framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="stuck-1")
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="queued-behind")
    b.request("debug/sleep", {"ms": 100}, id="quick")
    assert "result" in b.response("quick", timeout=10)
    assert_ping(b)

    sent = time.monotonic()
    b.close_stdin()
    assert b.wait_exit(10) == 1
    assert 0.9 < time.monotonic() - sent, "the end of input did not wait the grace"
    err = b.stderr_text()
    assert "end of input: 2 request(s) still in flight after the 1 s grace, abandoned (exit status 1)" in err, err
    assert 'debug/block (id "stuck-1") running for' in err
    assert 'debug/block (id "queued-behind") waiting for an earlier request' in err


def test_end_of_input_still_finishes_requests_that_end_within_the_grace(spawn):
    b = spawn("--exit-grace", "5", framing="ndjson", init=True)
    b.request("debug/sleep", {"ms": 500}, id="slow")
    b.close_stdin()
    assert "result" in b.response("slow", timeout=10)
    assert b.wait_exit(10) == 0


def test_exit_grace_must_be_a_sane_number(binary):
    from bridge import run_cli
    for bad in ["-1", "nan", "lots"]:
        r = run_cli(["--exit-grace", bad])
        assert r.returncode != 0, bad
        assert b"exit-grace" in r.stderr, (bad, r.stderr)


def test_a_stuck_load_file_of_a_fifo_never_stops_ping_or_cancel(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), "--exit-grace", "60", framing="ndjson", init=True)
    os.mkfifo(ws_root / "pipe")
    b.request("loadFile", {"path": "pipe"}, id="load")
    assert_ping(b)
    b.notify("$/cancelRequest", {"id": "load"})
    r = b.response("load", timeout=10)
    # Stuck in open(2) and abandoned by the cancel, or refused at once by a non-blocking open.
    assert r["error"]["data"]["code"] in ("RequestCancelled", "NotARegularFile"), r
    assert_ping(b)
    # The abandoned load does not hold the exit: it comes well before the 60 s grace.
    b.notify("exit")
    assert b.wait_exit(10) == 1


def test_requests_pipelined_behind_initialize_wait_for_it(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson")
    b.request("initialize", {"processId": None, "clientInfo": {"name": "pipelined"}}, id="init")
    b.notify("initialized", None)
    b.request("saveFile", {"path": "a.txt", "data": "hi"}, id="save")
    b.request("loadFile", {"path": "a.txt"}, id="load")
    b.request("ping", id="ping")
    assert "result" in b.response("init")
    assert b.response("save")["result"]["path"] == "a.txt"
    assert b.response("load")["result"]["data"] == "hi"
    assert b.response("ping")["result"] == {}


def test_mcp_read_file_of_a_fifo_never_stops_ping(binary, ws_root, tmp_path):
    pytest.importorskip("mcp")
    from mcp_helpers import RawMCP, server_env
    r = RawMCP(binary, ["mcp", "--local-root", str(ws_root), "--config-dir", str(tmp_path / "cfg")],
               server_env(tmp_path), tmp_path / "mcp-stderr.log")
    try:
        r.initialize()
        os.mkfifo(ws_root / "pipe")
        call = r.request("tools/call", {"name": "read_file", "arguments": {"path": "pipe"}})
        for _ in range(5):  # answered while read_file is stuck (10 s: a hang guard)
            assert r.result("ping", timeout=10) == {}
        r.notify("notifications/cancelled", {"requestId": call})
        assert r.result("ping", timeout=10) == {}
        # MCP: nothing more is sent for a cancelled request (or, with a non-blocking open, the
        # tool's error came before the cancel).
        r.drain(0.3)
        late = [m for _, m in r.pending if m.get("id") == call]
        assert not late or late[0]["result"]["isError"] is True, late
    finally:
        r.kill()


def test_import_file_from_a_host_fifo_never_stops_ping_and_end_of_input_still_ends(spawn, ws_root, tmp_path):
    b = spawn("--local-root", str(ws_root), "--exit-grace", "1", framing="ndjson", init=True)
    pipe = fifo(tmp_path, "host-fifo")
    b.request("importFile", {"source": str(pipe), "path": "imported.txt"}, id="import")
    assert_ping(b)
    b.notify("$/cancelRequest", {"id": "import"})  # it writes: only flagged
    assert_ping(b)
    b.close_stdin()
    rc = b.wait_exit(10)  # the 1 s grace, then an end (10 s: a hang guard)
    answers = [e.msg for e in b.log if isinstance(e.msg, dict) and e.msg.get("id") == "import"]
    if answers:  # refused at once by a non-blocking open, or cancelled before its handler started
        assert answers[0]["error"]["data"]["code"] in ("NotARegularFile", "RequestCancelled"), answers
        assert rc == 0
    else:  # stuck in open(2): named, abandoned
        assert rc == 1
        assert 'importFile (id "import") running for' in b.stderr_text()
    assert not (ws_root / "imported.txt").exists()


def test_a_message_behind_a_slow_handler_the_reading_thread_runs_is_read_within_milliseconds(spawn):
    """The lone request of a read runs on the reading thread itself; a message arriving while
    it runs is read by another thread about 1 ms later, so the ping overtakes the sleep."""
    b = spawn(framing="ndjson", init=True)
    for i in range(50):
        b.request("debug/sleep", {"ms": 40}, id=f"slow-{i}")
        time.sleep(0.002)
        b.request("ping", id=f"ping-{i}")
        first = b.recv(timeout=5)
        assert first["id"] == f"ping-{i}", first
        assert "result" in b.response(f"slow-{i}", timeout=5)
