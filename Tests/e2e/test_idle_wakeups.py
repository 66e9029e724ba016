"""An idle server does not wake up on timers (battery: the seeds' devices run on one).

The `initialize` `processId` is watched with a pidfd (the exit is an event, not something
polled for), and the output stall watchdog parks after a few idle checks until the next write.
Idle means initialized, a watched client process alive, nothing asked.
"""
from __future__ import annotations

import glob
import subprocess
import sys
import time

import pytest

from test_faults_client import BIG, assert_disconnected_for_stalling

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and uses pidfds")


def context_switches(pid: int) -> int:
    """Voluntary and involuntary context switches of every thread of the process so far."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except OSError:                    # a thread that ended meanwhile
            pass
    return total


@pytest.fixture
def client_process():
    p = subprocess.Popen(["sleep", "60"])
    yield p
    if p.poll() is None:
        p.kill()
        p.wait()


def test_an_idle_server_with_a_watched_client_does_not_wake_up(spawn, tmp_path, client_process):
    # A 1 s stall timeout makes the watchdog check every 250 ms, so it parks after about 1.25 s.
    b = spawn("--local-root", str(tmp_path / "ws"), "--output-stall-timeout", "1", "--idle-release-after", "0.2",
              init={"processId": client_process.pid})
    assert b.result("ping") == {}
    time.sleep(2.0)

    before = context_switches(b.proc.pid)
    time.sleep(3.0)
    woke = context_switches(b.proc.pid) - before

    assert woke <= 1, f"the idle server woke up {woke} times in 3 s"
    assert b.result("ping") == {}


def test_the_server_exits_at_once_when_the_watched_client_dies(spawn, tmp_path, client_process):
    b = spawn("--local-root", str(tmp_path / "ws"), init={"processId": client_process.pid})
    assert b.result("ping") == {}

    client_process.kill()
    client_process.wait()

    # Seen, not polled for: the test above counts no wake-ups of a server watching its client;
    # here it exits all the same when the client dies (10 s is a hang guard, not a speed).
    assert b.wait_exit(10) == 1
    assert f"process {client_process.pid} from initialize has exited" in b.stderr_text()


def test_a_parked_watchdog_still_disconnects_a_client_that_stops_reading(spawn, ws_root):
    ws_root.mkdir(parents=True)
    (ws_root / "big.txt").write_text("x" * BIG)
    b = spawn("--local-root", str(ws_root), "--output-stall-timeout", "1", init=True)
    time.sleep(2.0)                        # idle: the watchdog has parked

    assert_disconnected_for_stalling(b, timeout=1, flood_for=0.5, within=10)
