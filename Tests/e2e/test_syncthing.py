"""Two real devices kept in sync by Syncthing 1.19 (Debian's package), on loopback.

two-syncthing.sh (next to this file) starts device A and device B (GUI/REST and sync on free
loopback ports, API keys key-a and key-b) sharing folder `ws` at ROOT/a-data and ROOT/b-data. A
bridge runs on each device with its cloud root on that device's folder, cloud chosen. Then:
- a file saved through A's bridge reaches a client of B's bridge as workspace/didChangeFiles
  within 5 s;
- with both devices paused, the same file is edited differently through each bridge; after
  resuming, Syncthing makes a conflict copy, B's listConflicts reports it, resolveConflict on B
  settles it, and both devices converge (same content, no conflict copies) within a bounded wait.

scripts/setup.sh --test installs Syncthing and curl (as CI runs it); when they are still missing
they are installed with apt if the tests run as root, otherwise the module is skipped. Every
Syncthing process is killed at teardown.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from storage_helpers import Roots, choose, start, wait_until
from wsfiles import save

WATCH = "workspace/didChangeFiles"
GUI = {"a": "127.0.0.1:8385", "b": "127.0.0.1:8386"}   # set to free ports by the `devices` fixture
# In the repository, so a fresh checkout (CI) runs these tests; scripts/setup.sh --test installs Syncthing.
SCRIPT_CANDIDATES = [Path(__file__).resolve().parent / "two-syncthing.sh"]


def _ensure_installed() -> None:
    missing = [tool for tool in ("syncthing", "curl") if shutil.which(tool) is None]
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip(f"{', '.join(missing)} not installed, and installing needs root and apt-get "
                    f"(apt-get install -y syncthing curl)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    r = subprocess.run(cmd, capture_output=True, env=env, timeout=600)
    if r.returncode != 0:
        subprocess.run(["apt-get", "update"], capture_output=True, env=env, timeout=600)
        r = subprocess.run(cmd, capture_output=True, env=env, timeout=600)
    assert r.returncode == 0 and shutil.which("syncthing"), \
        f"apt-get install {' '.join(missing)} failed:\n{r.stdout.decode(errors='replace')[-1500:]}\n" \
        f"{r.stderr.decode(errors='replace')[-1500:]}"


def _script() -> Path:
    for p in SCRIPT_CANDIDATES:
        if p.is_file():
            return p
    pytest.skip(f"two-syncthing.sh not found (looked at {', '.join(map(str, SCRIPT_CANDIDATES))})")


def rest(device: str, method: str, path: str, timeout: float = 10.0):
    req = urllib.request.Request(f"http://{GUI[device]}{path}", method=method,
                                 headers={"X-API-Key": f"key-{device}"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        body = resp.read()
    return json.loads(body) if body.strip() else None


def _free_ports(n: int) -> list[int]:
    """n loopback ports free right now (held open together, so they differ). Another test run on
    the same machine (a second CI job, a developer's run) then never reaches these devices."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _syncthing_pids(root: Path) -> set[int]:
    """Processes running with a --home under `root` (only ours: the path is this test's tmp folder)."""
    pids = set()
    needle = f"--home={root}/".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if needle in f.read():
                    pids.add(int(entry))
        except OSError:
            pass
    return pids


@pytest.fixture(scope="module")
def devices(tmp_path_factory):
    """Two Syncthing devices on loopback; yields ROOT (with a-data and b-data)."""
    _ensure_installed()
    script = _script()
    root = tmp_path_factory.mktemp("syncthing") / "st"
    gui_a, gui_b, listen_a, listen_b = _free_ports(4)
    GUI.update(a=f"127.0.0.1:{gui_a}", b=f"127.0.0.1:{gui_b}")
    t0 = time.monotonic()
    ports = [str(p) for p in (gui_a, gui_b, listen_a, listen_b)]
    proc = subprocess.Popen(["bash", str(script), str(root), *ports], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=90)
        assert proc.returncode == 0, f"two-syncthing.sh failed ({proc.returncode}):\n{out.decode(errors='replace')}"
        print(f"two-syncthing.sh: {out.decode(errors='replace').strip()} ({time.monotonic() - t0:.1f}s)")
        wait_until(lambda: _connected("a") and _connected("b"), 30, "both devices connected")
        yield root
    finally:
        pids = _syncthing_pids(root)
        for name in ("a.pid", "b.pid"):
            try:
                pids.add(int((root / name).read_text().strip()))
            except (OSError, ValueError):
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(10)
        deadline = time.monotonic() + 10
        while _syncthing_pids(root) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _syncthing_pids(root), f"Syncthing processes left: {_syncthing_pids(root)}"


def _connected(device: str) -> bool:
    try:
        conns = rest(device, "GET", "/rest/system/connections")["connections"]
    except OSError:
        return False
    return any(c.get("connected") for c in conns.values())


@pytest.fixture(scope="module")
def bridges(devices, tmp_path_factory):
    """Bridge A (cloud root a-data) and bridge B (cloud root b-data, watching), both cloud chosen.

    A chooses first and B only once A's template has reached b-data, so the two template
    layouts do not race each other into conflicts."""
    # The spawn fixture is function-scoped; these bridges live for the module, so start them here.
    from bridge import Bridge
    from contract import Contract
    contract = Contract()
    logs = tmp_path_factory.mktemp("bridge-logs")
    made = []

    def spawn(*args, framing="ndjson", debug=False, init=False):
        b = Bridge(list(args), framing, contract, logs / f"stderr-{len(made)}.log")
        made.append(b)
        if init:
            b.initialize(**(init if isinstance(init, dict) else {}))
        return b

    base = devices
    ra = Roots(base, base / "a-local", base / "a-data", base / "a-config")
    rb = Roots(base, base / "b-local", base / "b-data", base / "b-config")
    a = start(spawn, ra)
    choose(a, "cloud")
    wait_until(lambda: (rb.cloud / "context.md").is_file(), 20, "A's template to reach device B")
    b = start(spawn, rb)
    choose(b, "cloud")
    assert b.result("watchFiles", {}) == {"watching": True}
    a.roots, b.roots = ra, rb
    yield a, b
    for x in made:
        x.kill()


def _changes(b, path):
    def found():
        for e in b.inbox:
            m = e.msg
            if isinstance(m, dict) and m.get("method") == WATCH and any(c["path"] == path for c in m["params"]["changes"]):
                return e
        return None
    return found


def test_a_save_on_device_a_is_notified_to_a_client_on_device_b_within_5_s(bridges):
    a, b = bridges
    b.settle(0.2)
    b.notifications(WATCH)

    saved_at = time.monotonic()
    save(a, "from-a.md", "hello from device A\n")
    e = b.pump_until(_changes(b, "from-a.md"), 5.0, "didChangeFiles for from-a.md on device B")
    latency = e.t - saved_at

    print(f"propagation A -> B client: {latency:.2f}s")
    assert latency < 5.0
    assert b.result("loadFile", {"path": "from-a.md"})["data"] == "hello from device A\n"
    notified = [c["path"] for x in b.log if isinstance(x.msg, dict) and x.msg.get("method") == WATCH
                for c in x.msg["params"]["changes"]]
    assert not [p for p in notified if ".syncthing." in p or p.startswith(".st")], notified


def test_concurrent_edits_become_a_conflict_that_b_settles_and_both_devices_converge(bridges):
    a, b = bridges
    da, db = a.roots.cloud, b.roots.cloud
    t0 = time.monotonic()
    save(a, "notes.md", "base\n")
    wait_until(lambda: (db / "notes.md").is_file() and (db / "notes.md").read_text() == "base\n", 20,
               "the base version on device B")

    for d in ("a", "b"):
        rest(d, "POST", "/rest/system/pause")
    wait_until(lambda: not _connected("a") and not _connected("b"), 15, "both devices paused")
    save(a, "notes.md", "edit from A\n")
    time.sleep(1.1)   # distinct modification times: B's edit is the newer one
    save(b, "notes.md", "edit from B, which is longer\n")
    time.sleep(1.5)   # let each device's watcher record its local edit
    for d in ("a", "b"):
        rest(d, "POST", "/rest/system/resume")
    t_resume = time.monotonic()

    conflicts = wait_until(lambda: b.result("listConflicts", {})["conflicts"], 45, "B's listConflicts to report it")
    t_conflict = time.monotonic()
    [c] = [c for c in conflicts if c["path"] == "notes.md"]
    assert c["copies"] and all(".sync-conflict-" in x["path"] for x in c["copies"]), c
    assert all(len(x.get("device", "")) == 7 for x in c["copies"]), c
    assert [e["state"] for e in b.result("listFiles", {})["entries"] if e["path"] == "notes.md"] == ["conflicted"]

    merged = "edit from A\nedit from B, which is longer\n"
    b.result("resolveConflict", {"path": "notes.md", "mergedData": merged})

    def converged():
        if b.result("listConflicts", {})["conflicts"]:
            # A copy that was still travelling arrived after the resolve: settle it as well.
            b.result("resolveConflict", {"path": "notes.md", "mergedData": merged})
            return False
        left = [p.name for d in (da, db) for p in d.iterdir() if ".sync-conflict-" in p.name]
        same = all((d / "notes.md").is_file() and (d / "notes.md").read_text() == merged for d in (da, db))
        return same and not left and a.result("listConflicts", {})["conflicts"] == []

    wait_until(converged, 30, "both devices to converge on the merged content", interval=0.25)
    t_done = time.monotonic()
    print(f"conflict after resume {t_conflict - t_resume:.1f}s, converged {t_done - t_conflict:.1f}s later, "
          f"test {t_done - t0:.1f}s")
    assert a.result("loadFile", {"path": "notes.md"})["data"] == merged
    assert b.result("loadFile", {"path": "notes.md"})["data"] == merged
    assert [e["state"] for e in a.result("listFiles", {})["entries"] if e["path"] == "notes.md"] == ["current"]
