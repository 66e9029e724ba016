"""SIGTERM, SIGINT and SIGHUP end the server the way end of input does (docs/protocol.md,
"Ending the connection"; docs/decisions.md, "Signals (issue 16)").

The first signal stops reading: the requests in flight are answered within `--exit-grace` (the
stuck ones are named on stderr and the exit status is 1), nothing sent after it is answered,
stdout ends on a whole message, the clean-exit work runs (an `mcp` process ends its session),
and the process exits 0. A second signal exits at once with 128 + its number. Stuck handlers
are real: `debug/block` sits in open(2) on a FIFO nobody writes to (see test_stuck.py).
"""
from __future__ import annotations

import base64
import os
import signal
import sys
import time
from contextlib import contextmanager

import pytest

from test_stuck import fifo, release_when_read, wait_until_blocked

GRACEFUL = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]
IDS = ["SIGTERM", "SIGINT", "SIGHUP"]


@contextmanager
def dispositions(**how):
    """Sets this process's signal dispositions while a child is started (a child inherits
    "ignore" but not a Python handler, which exec resets to the default)."""
    saved = {name: signal.signal(getattr(signal, name), h) for name, h in how.items()}
    try:
        yield
    finally:
        for name, h in saved.items():
            signal.signal(getattr(signal, name), h)


def start(spawn, *args, framing="ndjson"):
    """A server whose SIGINT and SIGHUP are at their defaults even when pytest runs where they are
    ignored (a background job ignores SIGINT, nohup SIGHUP): the server keeps an ignored one ignored."""
    with dispositions(SIGINT=signal.default_int_handler, SIGHUP=lambda *_: None):
        return spawn(*args, framing=framing, init=True)


def ends_whole(b) -> None:
    """stdout was read to its end and ends on a whole message (no partial frame left)."""
    assert b.eof, "stdout was not closed"
    assert not b.buf, f"stdout ends inside a message: {bytes(b.buf[:200])!r}"


@pytest.mark.parametrize("sig", GRACEFUL, ids=IDS)
def test_an_idle_server_exits_0_at_once(spawn, framing, sig):
    b = start(spawn, "--exit-grace", "60", framing=framing)
    assert b.result("ping") == {}
    b.proc.send_signal(sig)
    assert b.wait_exit(10) == 0  # at once: not after the 60 s grace (10 s is a hang guard)
    ends_whole(b)
    assert "request(s)" not in b.stderr_text()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_request_in_flight_is_answered_and_nothing_sent_after_the_signal_is(spawn, sig):
    b = start(spawn, "--exit-grace", "60")
    b.request("debug/sleep", {"ms": 800}, id="slow")
    b.assert_silent(0.1)
    sent = time.monotonic()
    b.proc.send_signal(sig)
    time.sleep(0.15)
    b.request("debug/echo", {"value": "too late"}, id="late")
    b.request("ping", id="late-ping")
    assert "result" in b.response("slow", timeout=10)
    assert b.wait_exit(20) == 0
    assert time.monotonic() - sent < 20, "the exit waited for more than the request in flight (the grace is 60 s)"
    answered = {e.msg.get("id") for e in b.log if isinstance(e.msg, dict)}
    assert "late" not in answered and "late-ping" not in answered, answered
    ends_whole(b)
    name = signal.Signals(sig).name
    assert f"{name}: stopping: waiting at most 60 s for 1 request(s) in flight" in b.stderr_text()


def test_a_stuck_request_is_named_after_the_grace_and_the_exit_status_is_1(spawn, tmp_path):
    b = start(spawn, "--exit-grace", "1")
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="stuck")
    wait_until_blocked(b)
    sent = time.monotonic()
    b.proc.send_signal(signal.SIGTERM)
    assert b.wait_exit(10) == 1
    assert 0.9 < time.monotonic() - sent, "the exit did not wait the grace"
    err = b.stderr_text()
    assert "SIGTERM: 1 request(s) still in flight after the 1 s grace, abandoned (exit status 1)" in err, err
    assert 'debug/block (id "stuck") running for' in err
    ends_whole(b)


def test_the_exit_grace_is_respected_by_a_request_that_finishes_within_it(spawn, tmp_path):
    b = start(spawn, "--exit-grace", "3")
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="held")
    wait_until_blocked(b)
    b.proc.send_signal(signal.SIGTERM)
    b.assert_silent(1.0)  # still waiting within the grace, not exited
    assert b.proc.poll() is None, "exited before the grace was over"
    release_when_read(pipe)
    assert "result" in b.response("held", timeout=5)
    assert b.wait_exit(5) == 0
    ends_whole(b)


def test_a_second_signal_exits_at_once(spawn, tmp_path):
    b = start(spawn, "--exit-grace", "60")
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="stuck")
    wait_until_blocked(b)
    b.proc.send_signal(signal.SIGTERM)
    b.assert_silent(0.3)
    assert b.proc.poll() is None
    b.proc.send_signal(signal.SIGINT)
    assert b.wait_exit(10) == 128 + signal.SIGINT  # at once: not after the 60 s grace
    assert "SIGINT again: exiting at once (exit status 130)" in b.stderr_text()
    ends_whole(b)


def test_a_signal_during_the_end_of_input_grace_does_not_cut_it_short_and_a_second_one_does(spawn, tmp_path):
    b = start(spawn, "--exit-grace", "60")
    pipe = fifo(tmp_path)
    b.request("debug/block", {"path": str(pipe), "access": "write"}, id="stuck")
    wait_until_blocked(b)
    b.close_stdin()
    b.proc.send_signal(signal.SIGTERM)
    b.assert_silent(0.5)
    assert b.proc.poll() is None, "the first signal cut the end-of-input grace short"
    b.proc.send_signal(signal.SIGTERM)
    assert b.wait_exit(10) == 128 + signal.SIGTERM


def test_a_save_cut_by_the_signal_while_being_read_is_not_acknowledged_nor_half_written(spawn, tmp_path):
    root = tmp_path / "ws"
    b = start(spawn, "--local-root", str(root), "--exit-grace", "10")
    data = os.urandom(24 << 20)
    b.request("saveFile", {"path": "big.bin", "data": base64.b64encode(data).decode(), "encoding": "base64"}, id="save")
    b.proc.send_signal(signal.SIGTERM)
    assert b.wait_exit(15) == 0
    ends_whole(b)
    answers = [e.msg for e in b.log if isinstance(e.msg, dict) and e.msg.get("id") == "save"]
    if answers and "result" in answers[0]:
        assert (root / "big.bin").read_bytes() == data, "an acknowledged save is not on disk"
    else:
        assert not (root / "big.bin").exists(), "an unacknowledged save left a file"


def test_a_save_in_flight_at_the_signal_is_finished_answered_and_on_disk(spawn, tmp_path):
    root = tmp_path / "ws"
    b = start(spawn, "--local-root", str(root), "--exit-grace", "10")
    data = os.urandom(24 << 20)
    b.request("saveFile", {"path": "big.bin", "data": base64.b64encode(data).decode(), "encoding": "base64"}, id="save")
    # Messages are admitted in arrival order and ping is answered as soon as it is read: its
    # answer means the save was admitted; it is then still being saved (or just answered).
    assert b.result("ping") == {}
    answered_before = any(isinstance(e.msg, dict) and e.msg.get("id") == "save" for e in b.log)
    b.proc.send_signal(signal.SIGTERM)
    assert b.wait_exit(15) == 0
    ends_whole(b)
    assert "result" in b.response("save", timeout=10)
    assert (root / "big.bin").read_bytes() == data
    assert answered_before or "SIGTERM: stopping: waiting at most 10 s for 1 request(s) in flight" in b.stderr_text()


def test_a_signal_the_parent_ignored_stays_ignored(spawn):
    """nohup ignores SIGHUP: such a server keeps serving when it gets one."""
    with dispositions(SIGHUP=signal.SIG_IGN):
        b = spawn(framing="ndjson", init=True)
    b.proc.send_signal(signal.SIGHUP)
    time.sleep(0.2)
    assert b.result("ping") == {}
    assert b.proc.poll() is None
    b.proc.send_signal(signal.SIGTERM)
    assert b.wait_exit(10) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_every_thread_blocks_the_signals_and_sigpipe_stays_ignored(spawn):
    b = start(spawn)
    b.result("debug/sleep", {"ms": 10})
    bits = {int(s) for s in GRACEFUL}
    masks = []
    for tid in os.listdir(f"/proc/{b.proc.pid}/task"):
        fields = dict(line.split(":\t", 1) for line in open(f"/proc/{b.proc.pid}/task/{tid}/status").read().splitlines()
                      if ":\t" in line)
        blocked = int(fields["SigBlk"].strip(), 16)
        assert int(fields["SigIgn"].strip(), 16) >> (signal.SIGPIPE - 1) & 1, f"thread {tid} does not ignore SIGPIPE"
        masks.append(all(blocked >> (s - 1) & 1 for s in bits))
    # While a thread waits in sigwait, Linux shows the signals it waits for as unblocked: that is
    # the one thread that takes them. Every other thread must have them blocked, or a signal could
    # land on it and kill the process with the default action.
    assert len(masks) >= 3 and masks.count(False) == 1, masks
