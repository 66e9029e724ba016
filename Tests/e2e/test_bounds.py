"""Bounded threads and batches (docs/protocol.md, "Stuck requests" and "JSON-RPC 2.0"; issue 22).

- Cancelled requests stuck in a system call (`debug/block` sits in `open(2)` of a FIFO nobody
  writes to) never pile up threads: beyond the cap, new work that would need a thread is
  answered `ServerBusy` (`stuckHandlers`), and `ping` and the rest go on.
- A server the system will not give threads (an unprivileged user under `prlimit --nproc`:
  RLIMIT_NPROC is not enforced for root) answers `ServerBusy` (`threadLimit`) to the requests
  that needed one and serves on; its exit status is never a signal.
- A huge batch is refused before it is parsed (memory: read from VmHWM), a 1,000-member batch is
  answered, and a batch's answer stays within `--max-message-bytes`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from bridge import Bridge, dumps, frame, request
from test_stuck import assert_ping, fifo, release

WORKER_THREADS = 64
ABANDONED_CAP = 64
# Threads the server has beside its handlers: main, reading, the reader's rescuer, signals, the
# output watchdog, watchers, a control message or two in flight.
OTHER_THREADS = 16


def threads(b: Bridge) -> int:
    return len(os.listdir(f"/proc/{b.proc.pid}/task"))


def vm_hwm_bytes(b: Bridge) -> int:
    for line in Path(f"/proc/{b.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def send_many(b: Bridge, messages: list[dict]) -> None:
    """All in one write, so the server reads them together (each goes to the worker pool)."""
    for m in messages:
        if "id" in m:
            b.track(m["id"], m["method"])
    b.write(b"".join(frame(dumps(m), b.framing) for m in messages))


def assert_busy(response: dict, reason: str) -> None:
    assert response["error"]["code"] == -32803, response
    assert response["error"]["data"]["code"] == "ServerBusy"
    assert response["error"]["data"]["reason"] == reason


def test_cancelled_stuck_requests_leave_a_bounded_number_of_threads_and_beyond_the_cap_answer_server_busy(spawn, tmp_path):
    b = spawn(framing="ndjson", init=True)
    pipe = fifo(tmp_path)
    try:
        busy = 0
        cancelled = 0
        for round_ in range(6):
            ids = [f"r{round_}-{i}" for i in range(WORKER_THREADS)]
            send_many(b, [request("debug/block", {"path": str(pipe)}, id=i) for i in ids])
            b.settle(0.6)  # the handlers reach open(2) of the FIFO (or are refused at once)
            send_many(b, [{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": i}} for i in ids])
            for i in ids:
                r = b.response(i, timeout=10)
                if r["error"]["code"] == -32800:
                    cancelled += 1
                else:
                    assert_busy(r, "stuckHandlers")
                    assert r["error"]["data"]["limit"] == ABANDONED_CAP
                    busy += 1
            assert threads(b) <= WORKER_THREADS + ABANDONED_CAP + OTHER_THREADS
            assert_ping(b)
        # 384 requests stuck and cancelled: at most 64 + 64 were given threads, the rest refused.
        assert cancelled <= WORKER_THREADS + ABANDONED_CAP + 2
        assert busy >= 6 * WORKER_THREADS - cancelled

        # Beyond the cap, any work that needs a thread is refused at once, not queued for ever.
        # (Every one is stuck for ever once it runs: any answer within the hang guards is a refusal.)
        assert_busy(b.call("debug/echo", {"value": "no thread"}, timeout=10), "stuckHandlers")
        ids = [f"late-{i}" for i in range(500)]
        send_many(b, [request("debug/block", {"path": str(pipe)}, id=i) for i in ids])
        for i in ids:
            assert_busy(b.response(i, timeout=30), "stuckHandlers")
        assert threads(b) <= WORKER_THREADS + ABANDONED_CAP + OTHER_THREADS
        assert_ping(b)
    finally:
        # Every handler stuck in open(2) returns: their threads serve again.
        deadline = time.monotonic() + 5
        while not release(pipe) and time.monotonic() < deadline:
            time.sleep(0.01)
    deadline = time.monotonic() + 10
    while True:
        r = b.call("debug/echo", {"value": "after"}, timeout=5)
        if "result" in r:
            break
        assert_busy(r, "stuckHandlers")
        assert time.monotonic() < deadline, "the returned handlers never gave their threads back"
        time.sleep(0.05)
    assert r["result"] == {"value": "after"}


@pytest.fixture
def unprivileged():
    """(uid, home): a user id of its own (RLIMIT_NPROC counts every task of the user, so no other
    process may share it: not nobody) and a folder it can write (tmp_path's parents are root's)."""
    uid = 60_000 + os.getpid() % 4_000
    home = Path(tempfile.mkdtemp(prefix="wb-limited-"))
    os.chmod(home, 0o700)
    os.chown(home, uid, uid)
    yield uid, home
    shutil.rmtree(home, ignore_errors=True)


def limited(uid: int, nproc: int, binary) -> list[str]:
    """The command that runs `binary` as `uid` with at most `nproc` tasks."""
    return ["prlimit", f"--nproc={nproc}", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", str(binary)]


@pytest.mark.skipif(os.geteuid() != 0 or not (shutil.which("setpriv") and shutil.which("prlimit")),
                    reason="needs root to drop to an unprivileged user, setpriv and prlimit")
def test_a_thread_limited_server_answers_server_busy_and_serves_on(binary, contract, unprivileged, tmp_path):
    uid, home = unprivileged
    for part in Path(binary).resolve().parents:
        assert os.stat(part).st_mode & 0o005 == 0o005, f"{part} must be readable by other users"
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_DATA_HOME": str(home / "data")}
    # RLIMIT_NPROC counts every task of the user: 8 beyond the ones it already runs leave the
    # server a few threads of its own and none for 20 requests at once.
    command = limited(uid, 8, binary) + ["--enable-debug-methods", "--local-root", str(home / "ws")]
    b = Bridge(command[1:], "ndjson", contract, tmp_path / "stderr-limited.log", binary=Path(shutil.which(command[0])), env=env)
    try:
        b.initialize()
        b.send([request("debug/sleep", {"ms": 300}, id=i) for i in range(1, 21)])
        answers = b.recv(timeout=10)
        assert isinstance(answers, list) and {a["id"] for a in answers} == set(range(1, 21))
        refused = [a for a in answers if "error" in a]
        assert refused, "8 tasks cannot run 20 sleeps at once"
        for a in refused:
            assert_busy(a, "threadLimit")
            assert a["error"]["data"]["errno"] == 11  # EAGAIN
        assert all(a["result"]["label"] == "" for a in answers if "result" in a)
        # Every thread the limit still allows (start-up's short-lived ones have ended by now) is
        # taken by a handler stuck on a FIFO; the rest of those are refused.
        pipe = home / "fifo"
        os.mkfifo(pipe)
        os.chown(pipe, uid, uid)
        b.send([request("debug/block", {"path": str(pipe)}, id=f"block-{i}") for i in range(10)])
        b.settle(0.3)
        # A watch needs a thread of its own, which the limit refuses: the same typed answer.
        watch = b.call("watchFiles", {})
        assert_busy(watch, "threadLimit")
        release(pipe)
        stuck = b.take(lambda m: isinstance(m, list), timeout=10)
        assert {a["id"] for a in stuck} == {f"block-{i}" for i in range(10)}
        assert any("error" in a for a in stuck) and all("result" in a or a["error"]["data"]["reason"] == "threadLimit" for a in stuck)
        # Still serving: control messages, and work that gets one of the threads it has.
        assert b.result("ping") == {}
        assert b.result("debug/echo", {"value": "still here"})["value"] == "still here"
        b.result("shutdown")
        b.notify("exit")
        assert b.wait_exit(10) == 0, "exit status must be 0, never a signal"
    finally:
        b.kill()


def test_a_huge_batch_is_refused_before_parsing_within_a_small_multiple_of_its_size(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    (ws_root / "a.txt").write_text("x")
    batch = [request("getFileInfo", {"path": "a.txt"}, id=i) for i in range(760_000)]
    body = dumps(batch)
    assert len(body) > 57_000_000
    b.write(frame(body, "ndjson"))
    reply = b.recv(timeout=60)
    assert isinstance(reply, dict) and reply["id"] is None
    assert reply["error"]["code"] == -32600 and reply["error"]["data"]["code"] == "BatchTooLarge"
    assert reply["error"]["data"]["reason"] == "bytes"
    assert reply["error"]["data"]["limit"] == 4 << 20 and reply["error"]["data"]["size"] == len(body)
    assert vm_hwm_bytes(b) < 2.5 * len(body), f"peak {vm_hwm_bytes(b)} bytes for a {len(body)}-byte batch"
    assert b.result("ping") == {}


def test_a_batch_of_1000_members_is_answered_and_1001_is_refused_whole(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson")
    capabilities = b.initialize()["capabilities"]
    assert capabilities["maxBatchMembers"] == 1000 and capabilities["maxBatchBytes"] == 4 << 20
    (ws_root / "a.txt").write_text("x")
    b.send([request("getFileInfo", {"path": "a.txt"}, id=i) for i in range(1000)])
    answers = b.recv(timeout=30)
    assert isinstance(answers, list) and len(answers) == 1000
    assert all(a["result"]["path"] == "a.txt" for a in answers)

    b.send([request("deleteFile", {"path": "a.txt"}, id=i) for i in range(1001)])
    reply = b.recv(timeout=30)
    assert isinstance(reply, dict) and reply["id"] is None
    assert reply["error"]["data"] == {"code": "BatchTooLarge", "reason": "members", "limit": 1000, "size": 1001}
    assert (ws_root / "a.txt").read_text() == "x", "no member of a refused batch runs"


def test_a_batch_answer_stays_within_max_message_bytes_and_keeps_every_write(spawn, ws_root):
    limit = 1_000_000
    b = spawn("--local-root", str(ws_root), "--max-message-bytes", str(limit), framing="ndjson", init=True)
    ws_root.mkdir(exist_ok=True)
    (ws_root / "big.txt").write_text("r" * 100_000)
    members = [request("loadFile", {"path": "big.txt"}, id=f"read-{i}") for i in range(20)]
    members += [request("saveFile", {"path": f"new-{i}.txt", "data": "w"}, id=f"write-{i}") for i in range(5)]
    b.send(members)
    entry = b.take_entry(lambda m: isinstance(m, list), timeout=30)
    answers = entry.msg
    assert {a["id"] for a in answers} == {m["id"] for m in members} and len(answers) == 25
    line = len(dumps(answers))
    assert line <= limit, f"the batch's answer is {line} bytes, over --max-message-bytes {limit}"
    kept = [a for a in answers if a["id"].startswith("read-") and "result" in a]
    dropped = [a for a in answers if "error" in a]
    assert 0 < len(kept) < 10 and len(kept) + len(dropped) == 20
    for a in dropped:
        assert a["id"].startswith("read-")
        assert a["error"]["code"] == -32600
        assert a["error"]["data"] == {"code": "BatchTooLarge", "reason": "answerBytes", "limit": limit}
    for i in range(5):
        assert "result" in next(a for a in answers if a["id"] == f"write-{i}")
        assert (ws_root / f"new-{i}.txt").read_text() == "w"
    # A dropped read, sent on its own, is answered in full.
    assert b.result("loadFile", {"path": "big.txt"})["data"] == "r" * 100_000


@pytest.mark.skipif(os.geteuid() != 0 or not (shutil.which("setpriv") and shutil.which("prlimit")),
                    reason="needs root to drop to an unprivileged user, setpriv and prlimit")
@pytest.mark.parametrize("nproc", [1, 2, 3, 4, 6])
def test_at_any_task_limit_the_server_answers_or_declines_to_start_never_dies_by_a_signal(binary, contract, unprivileged, nproc):
    """From no thread at all upwards: too few to take signals is a clear refusal to start (status
    1); otherwise `initialize` gets its answer or `ServerBusy`, and end of input ends with 0."""
    uid, home = unprivileged
    env = {"PATH": os.environ["PATH"], "HOME": str(home)}
    init = dumps(request("initialize", {"processId": None, "capabilities": {}}, id=1)) + b"\n"
    done = subprocess.run(limited(uid, nproc, binary) + ["--framing", "ndjson", "--local-root", str(home / "ws")],
                          input=init, capture_output=True, env=env, timeout=30)
    err = done.stderr.decode(errors="replace")
    assert done.returncode in (0, 1), f"status {done.returncode} (a signal?): {err}"
    if done.returncode == 1:
        assert done.stdout == b""
        assert "cannot take termination signals: cannot start a thread" in err
        return
    [line] = done.stdout.splitlines()
    answer = json.loads(line)
    contract.check_server_message(answer, lambda _id: ["initialize"])
    if "error" in answer:
        assert_busy(answer, "threadLimit")
    else:
        assert answer["result"]["serverInfo"]["name"] == "workspace-bridge"
