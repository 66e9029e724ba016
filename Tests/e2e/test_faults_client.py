"""Clients that misbehave (issue 8): one that stops reading, one that vanishes mid-response,
10,000 requests in flight, 1,000 cancels of finished requests.

The server's guarantees (docs/protocol.md, "Back-pressure"): while its output is blocked it stops
reading requests, holding at most about 1 MiB of gathered output plus one response per running
handler; a client that reads nothing for --output-stall-timeout seconds is disconnected (a line
on stderr, exit status 1); a client that closes its end of the output counts as end of input
(exit status 0, no signal).
"""
from __future__ import annotations

import fcntl
import os
import re
import select
import time

from bridge import F_SETPIPE_SZ, dumps, ndjson_frame, request

BIG = 200_000            # bytes of text in each flooding response
HELD_MIB = 64            # what a flood may leave held while the client reads nothing (see below)
ANSWER = re.compile(rb'\{"jsonrpc":"2\.0","id":(\d+),"result":\{')


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def _flood_without_reading(b, seconds: float, first_id: int = 1) -> int:
    """Writes loadFile/debug/blob requests with big answers, never reading; returns how many were
    accepted by the pipe. Stops early when the server stops reading (the pipe stays full)."""
    fd, sent = b.in_fd, 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        i = first_id + sent
        m = request("loadFile", {"path": "big.txt"}, id=i) if i % 2 else request("debug/blob", {"bytes": BIG}, id=i)
        data = ndjson_frame(dumps(m))
        assert len(data) <= select.PIPE_BUF   # so each write is all or nothing
        try:
            os.write(fd, data)
        except BlockingIOError:
            time.sleep(0.01)
            continue
        except BrokenPipeError:            # the server has gone (the stall timeout)
            break
        b.track(i, m["method"])
        sent += 1
    return sent


def _drain_answers(b, count: int, timeout: float) -> list[int]:
    """Reads `count` ndjson answers straight from the pipe (not kept: they are big), returning
    the ids answered without an error."""
    ok, pending = [], bytearray()
    deadline = time.monotonic() + timeout
    while len(ok) < count:
        assert time.monotonic() < deadline, f"{len(ok)} of {count} answers within {timeout}s"
        chunk = os.read(b.out_fd, 1 << 20)
        assert chunk, f"stdout closed after {len(ok)} of {count} answers"
        pending += chunk
        *lines, rest = pending.split(b"\n")
        pending = bytearray(rest)
        for line in lines:
            head = ANSWER.match(line)      # (not decoded whole: they are big)
            assert head, f"not a successful answer: {line[:200]!r}"
            ok.append(int(head.group(1)))
    assert not pending, "more output than answers"
    return ok


def test_a_client_that_stops_reading_meets_back_pressure_and_bounded_memory(spawn, ws_root):
    ws_root.mkdir(parents=True)
    (ws_root / "big.txt").write_text("x" * BIG)
    b = spawn("--local-root", str(ws_root), "--output-stall-timeout", "0", init=True)
    fcntl.fcntl(b.in_fd, F_SETPIPE_SZ, 64 << 10)   # an ordinary pipe: a read holds ~900 requests
    base = rss_mib(b.proc.pid)

    sent = _flood_without_reading(b, 4.0)
    flooded = rss_mib(b.proc.pid)
    # A few reads' worth of requests is all the server takes before it stops reading: without
    # back-pressure every request read would be answered into memory (sent x 200 KB).
    assert sent < 10_000, f"the server kept reading: {sent} requests accepted"
    print(f"RSS {base:.0f} MiB before, {flooded:.0f} MiB flooded; {sent} requests accepted")
    # What may stay held: each of the 64 worker threads one answer (its text and jansson's
    # encoding of it) in its own malloc arena, about 40 MiB, and the requests read; without
    # back-pressure the growth would be sent x 200 KB (over 200 MB at a thousand requests).
    assert sent * BIG / 2**20 > 1.5 * HELD_MIB, f"too few requests ({sent}) to tell back-pressure from none"
    assert flooded - base < HELD_MIB, f"RSS grew from {base:.0f} to {flooded:.0f} MiB while the client did not read"
    time.sleep(1.0)
    assert rss_mib(b.proc.pid) - base < HELD_MIB

    # The client reads again: every request is answered once, and the server goes on serving.
    assert sorted(_drain_answers(b, sent, timeout=120)) == list(range(1, sent + 1))
    assert b.result("ping") == {}


def assert_disconnected_for_stalling(b, timeout: int, flood_for: float, within: float) -> None:
    """Floods `b` (started with --output-stall-timeout `timeout`) without reading and checks
    that it ends with status 1 after at least `timeout` s (and under `within`), saying why."""
    start = time.monotonic()
    _flood_without_reading(b, flood_for)
    b.proc.wait(timeout=15)
    assert b.proc.returncode == 1
    assert timeout <= time.monotonic() - start < within
    assert f"has read none of its output for {timeout * 1000} ms" in b.stderr_text()


def test_a_client_that_reads_nothing_for_the_stall_timeout_is_disconnected(spawn, ws_root):
    ws_root.mkdir(parents=True)
    (ws_root / "big.txt").write_text("x" * BIG)
    b = spawn("--local-root", str(ws_root), "--output-stall-timeout", "2", init=True)
    assert_disconnected_for_stalling(b, timeout=2, flood_for=1.0, within=10)


def test_a_client_that_closes_its_end_mid_response_ends_the_server_cleanly(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), init=True)
    b.result("saveFile", {"path": "acknowledged.txt", "data": "kept"})
    for i in range(8):                     # 8 x 8 MiB answers, far more than any pipe holds
        b.request("debug/blob", {"bytes": 8 << 20}, id=f"blob-{i}")
    b.settle(0.2)                          # part of the first answer arrives
    b.proc.stdout.close()                  # the client goes away mid-response; stdin stays open
    b.proc.wait(timeout=20)
    assert b.proc.returncode == 0, f"exit status {b.proc.returncode} (negative: killed by that signal)"
    assert (ws_root / "acknowledged.txt").read_text() == "kept"
    assert not list(ws_root.parent.glob("core*"))


def test_ten_thousand_pipelined_requests_are_all_answered_once(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), init=True)
    b.result("saveFile", {"path": "small.txt", "data": "hello"})
    kinds = [("ping", None), ("debug/echo", {"value": [1, "two"]}), ("loadFile", {"path": "small.txt"}),
             ("getFileInfo", {"path": "small.txt"}), ("listFiles", {"path": ""})]
    count = 10_000
    msgs = [request(*kinds[i % len(kinds)], id=i) for i in range(count)]
    for m in msgs:
        b.track(m["id"], m["method"])
    b.write(b"".join(ndjson_frame(dumps(m)) for m in msgs), timeout=120)
    seen: dict[int, dict] = {}
    b.pump_until(lambda: len([e for e in b.inbox if "id" in e.msg]) >= count, 120, f"{count} responses")
    for e in b.inbox:
        assert e.msg["id"] not in seen, f"id {e.msg['id']} answered twice"
        seen[e.msg["id"]] = e.msg
    assert sorted(seen) == list(range(count))
    failed = [r for r in seen.values() if "error" in r]
    assert not failed, f"{len(failed)} errors, e.g. {failed[0]}"
    assert seen[2]["result"]["data"] == "hello"
    b.inbox.clear()
    b.assert_silent(0.3)
    assert b.result("ping") == {}


def test_a_thousand_cancels_of_finished_requests_change_nothing(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), init=True)

    def round_trip(first: int) -> None:
        ids = list(range(first, first + 1000))
        for i in ids:
            b.track(i, "debug/echo")
        b.write(b"".join(ndjson_frame(dumps(request("debug/echo", {"value": i}, id=i))) for i in ids))
        for i in ids:
            assert b.response(i, timeout=30)["result"] == {"value": i}
        b.write(b"".join(ndjson_frame(dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": i}}))
                         for i in ids))
        b.log.clear()

    round_trip(0)                          # warm-up
    before = rss_mib(b.proc.pid)
    for k in range(1, 6):
        round_trip(k * 1000)
    b.assert_silent(0.5)                   # no error (nor anything else) for a cancel of a finished id
    assert rss_mib(b.proc.pid) < before * 1.2 + 2, f"RSS grew from {before:.1f} MiB"
    # The ids can be used again, and the server serves on.
    assert b.result("debug/echo", {"value": "again"}) == {"value": "again"}
    assert b.call("debug/echo", {"value": 5}, id=5)["result"] == {"value": 5}
