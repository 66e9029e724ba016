"""Memory given back while idle (issue 2, idle RSS): `--idle-release-after SECONDS`.

After that long with no input and no request in flight, the server drops its page-table
entries for its code (clean file pages, still in the page cache) and trims its heap, so an idle
server holds little memory; the next request maps back what it needs and is answered as
before. A request in flight is never idle; `--idle-release-after 0` never releases.
"""
from __future__ import annotations

import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmRSS and the release are Linux's")

IDLE = "0.3"
RELEASED = "idle: released the mappings of"


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def wait_for_log(b, text: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in b.stderr_text():
        assert time.monotonic() < deadline, f"no {text!r} on stderr within {timeout}s:\n{b.describe()}"
        time.sleep(0.05)


def test_an_idle_server_gives_its_code_pages_back_and_still_answers(spawn, tmp_path):
    ws = tmp_path / "ws"
    b = spawn("--local-root", str(ws), "--idle-release-after", IDLE, "--log-level", "debug", init=True)
    saved = b.result("saveFile", {"path": "notes/a.txt", "data": "hello after idle"})
    busy = rss_kib(b.proc.pid)

    wait_for_log(b, RELEASED)
    idle = rss_kib(b.proc.pid)

    assert idle < busy * 0.8, f"idle RSS {idle} KiB is not well below {busy} KiB before the release"
    loaded = b.result("loadFile", {"path": "notes/a.txt"})
    assert loaded["data"] == "hello after idle" and loaded["etag"] == saved["etag"]
    assert b.result("listFiles", {"path": "notes"})["entries"][0]["name"] == "a.txt"


def test_the_release_happens_again_after_each_busy_period(spawn, tmp_path):
    b = spawn("--local-root", str(tmp_path / "ws"), "--idle-release-after", IDLE, "--log-level", "debug", init=True)
    wait_for_log(b, RELEASED)
    b.result("ping")
    b.result("listFiles", {"path": "", "recursive": True})
    deadline = time.monotonic() + 5
    while b.stderr_text().count(RELEASED) < 2:
        assert time.monotonic() < deadline, b.describe()
        time.sleep(0.05)
    b.result("ping")


def test_a_request_in_flight_is_not_idle(spawn, tmp_path):
    b = spawn("--local-root", str(tmp_path / "ws"), "--idle-release-after", IDLE, "--log-level", "debug", init=True)
    wait_for_log(b, RELEASED)
    before = b.stderr_text().count(RELEASED)

    msg_id = b.new_id()
    b.request("debug/sleep", {"ms": 1200}, id=msg_id)
    time.sleep(0.9)                        # three idle periods pass with the sleep still running
    during = b.stderr_text().count(RELEASED)
    b.response(msg_id, timeout=10)

    assert during == before, "memory was released while a request was running"
    deadline = time.monotonic() + 5
    while b.stderr_text().count(RELEASED) == before:
        assert time.monotonic() < deadline, "no release after the request ended"
        time.sleep(0.05)


def test_zero_never_releases(spawn, tmp_path):
    b = spawn("--local-root", str(tmp_path / "ws"), "--idle-release-after", "0", "--log-level", "debug", init=True)
    busy = rss_kib(b.proc.pid)
    time.sleep(1.0)
    assert RELEASED not in b.stderr_text()
    assert rss_kib(b.proc.pid) >= busy * 0.95
    assert b.result("ping") == {}


def test_nothing_is_released_while_a_tracer_is_attached(binary, tmp_path):
    """A debugger's breakpoints live in private copies of code pages: dropping them would
    silently remove the breakpoints, so a traced server keeps its memory."""
    import shutil
    import subprocess
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (scripts/setup.sh --test installs it)")
    log = tmp_path / "stderr.log"
    with open(log, "wb") as err:
        p = subprocess.Popen([strace, "-f", "-o", "/dev/null", str(binary), "--local-root", str(tmp_path / "ws"),
                              "--idle-release-after", IDLE, "--log-level", "debug"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        try:
            p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n')
            p.stdin.flush()
            assert b'"id":1' in p.stdout.readline()
            deadline = time.monotonic() + 10
            while "idle: memory not released" not in log.read_text(errors="replace"):
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.05)
            assert RELEASED not in log.read_text(errors="replace")
        finally:
            p.kill()
            p.wait()


@pytest.mark.parametrize("value", ["-1", "nan", "soon"])
def test_a_bad_idle_time_is_refused_at_startup(binary, value, tmp_path):
    import subprocess
    r = subprocess.run([str(binary), "--local-root", str(tmp_path / "ws"), "--idle-release-after", value],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    assert r.returncode != 0
    assert b"idle-release-after" in r.stderr
    assert r.stdout == b""
