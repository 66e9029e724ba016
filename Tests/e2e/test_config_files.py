"""Files of the config folder are treated as written by an attacker (issue 22, defect 7;
docs/protocol.md, "Files the server reads whole"; docs/decisions.md "Bounded config files and
fresh device conditions (issue 22)").

Every such file has a size cap: a larger one (a 64 GiB sparse `device-conditions.json`, a huge
`storage-<hash>.json`), a damaged one or one that is not a regular file is ignored, treated as
absent, with a warning on stderr; the server starts, serves, and its memory stays small.

Shared device conditions are trusted only while fresh: the process that wrote them still runs
(its pid *and* its start time: a pid now used by another process vouches for nothing) and their
`at` is at most `--conditions-max-age` old; the host's server rewrites them every fifth of it.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp_helpers import place, raw  # noqa: E402,F401
from mcp_modern import rawm  # noqa: E402,F401
from sessions_helpers import create, transition  # noqa: E402
from storage_helpers import Roots, choose, info, start  # noqa: E402
from wsfiles import save  # noqa: E402
from test_mcp_device import ELICIT, LOW_BATTERY, NORMAL, SEARCH, _found, _is_deferred, host  # noqa: E402,F401

GiB = 1 << 30
# A debug build serves a small workspace in about 20 MiB; reading a 64 GiB file whole would take
# (or fail to allocate) all of it. A read capped at 64 KiB or 1 MiB stays far below this bound.
RSS_BOUND_KIB = 150 * 1024


def assert_small_peak_rss(pid: int) -> None:
    """The process's peak resident memory (VmHWM, Linux) stayed under RSS_BOUND_KIB."""
    if sys.platform.startswith("linux"):
        assert peak_rss_kib(pid) < RSS_BOUND_KIB


def peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmHWM for {pid}")


def sparse(path: Path, size: int = 64 * GiB, head: bytes = b"") -> None:
    """`path` with `head` then zeros up to `size` bytes, taking no disk space."""
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)


def conditions_file(place) -> Path:
    return place.cfg / "device-conditions.json"


def rewrite(path: Path, **changes) -> dict:
    """Replaces members of the shared conditions file atomically (as a writer would)."""
    data = json.loads(path.read_text())
    data.update(changes)
    tmp = path.with_name(path.name + ".test-tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)
    return data


def now_ms() -> int:
    return int(time.time() * 1000)


def search_runs(rawm) -> None:
    """An MCP process on the same config folder runs the heavy `search_files` (conditions not trusted)."""
    _found(rawm().mresult("tools/call", SEARCH, caps=ELICIT))


def search_deferred(rawm) -> None:
    """... or defers it for the low battery the shared conditions report."""
    _is_deferred(rawm().mresult("tools/call", SEARCH, caps={}), "lowBattery")


# -- size caps ----------------------------------------------------------------------------------------

def test_a_64_gib_sparse_conditions_file_is_ignored_by_the_mcp_face_with_one_warning(rawm, place):
    (place.root / "notes").mkdir(parents=True)
    (place.root / "notes/a.md").write_text("a needle in a haystack\n")
    place.cfg.mkdir(parents=True)
    sparse(conditions_file(place), head=json.dumps({"conditions": LOW_BATTERY, "pid": os.getpid(), "at": now_ms()}).encode())
    r = rawm()
    for _ in range(5):   # every heavy call reads the conditions
        _found(r.mresult("tools/call", SEARCH, caps=ELICIT))
    assert_small_peak_rss(r.proc.pid)
    err = r.stderr_path.read_text(errors="replace")
    assert err.count("larger than 65536 bytes") == 1, err[-2000:]
    assert "device-conditions.json" in err


def test_a_64_gib_sparse_conditions_file_is_ignored_by_the_json_rpc_face(spawn, place):
    (place.root / "notes").mkdir(parents=True)
    (place.root / "notes/a.md").write_text("a needle in a haystack\n")
    place.cfg.mkdir(parents=True)
    sparse(conditions_file(place))
    b = spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)
    sid = create(b)["id"]
    transition(b, sid, "running")
    for i in range(3):
        res = b.result("session/callTool", {"id": sid, "toolCallId": f"t{i}", **SEARCH})
        assert res["isError"] is False, res
    assert_small_peak_rss(b.proc.pid)
    assert "larger than 65536 bytes" in b.stderr_text()


def _storage_file(spawn, roots: Roots) -> Path:
    """The storage settings file a server writes when the user chooses the cloud."""
    b = start(spawn, roots)
    choose(b, "cloud")
    b.kill()
    [f] = [p for p in roots.config.iterdir() if p.name.startswith("storage-") and p.name.endswith(".json")]
    return f


@pytest.mark.parametrize("damage, warning", [
    ("huge", "larger than 1048576 bytes"),
    ("not json", "not valid JSON"),
    ("fifo", "not a regular file"),
])
def test_a_storage_settings_file_that_is_huge_damaged_or_special_is_ignored(spawn, tmp_path, damage, warning):
    roots = Roots.under(tmp_path)
    f = _storage_file(spawn, roots)
    valid = f.read_bytes()
    assert json.loads(valid)["location"] == "cloud"
    if damage == "huge":   # the valid settings, then 64 GiB of zeros: too large, whatever its start
        sparse(f, head=valid)
    elif damage == "not json":
        f.write_bytes(b'{"location": "cloud", ')
    else:
        f.unlink()
        os.mkfifo(f)

    b = start(spawn, roots)   # initialize is answered
    i = info(b)
    # Ignored as if absent: the defaults, a choice to make.
    assert i["storageType"] == "local" and i["needsChoice"] is True, i
    save(b, "still-serving.md", "yes")
    assert (roots.local / "still-serving.md").read_text() == "yes"
    assert_small_peak_rss(b.proc.pid)
    err = b.stderr_text()
    assert warning in err and f.name in err, err[-2000:]
    # Choosing again replaces the ignored file with a valid one.
    choose(b, "cloud")
    assert f.is_file() and f.stat().st_size < 4096 and json.loads(f.read_text())["location"] == "cloud"


# -- freshness ----------------------------------------------------------------------------------------

def test_conditions_older_than_the_age_limit_are_ignored_and_fresh_ones_apply(rawm, host, place):
    host.result("host/setConditions", LOW_BATTERY)
    f = conditions_file(place)
    search_deferred(rawm)
    rewrite(f, at=now_ms() - 10 * 60_000)   # written 10 minutes ago, by the host that still runs
    search_runs(rawm)
    rewrite(f, at=now_ms())
    search_deferred(rawm)
    rewrite(f, at=now_ms() + 3600_000)      # an hour ahead of the clock: not trusted either
    search_runs(rawm)


def test_conditions_whose_pid_is_now_another_process_are_ignored(rawm, host, place):
    host.result("host/setConditions", LOW_BATTERY)
    f = conditions_file(place)
    written = json.loads(f.read_text())
    assert written["pid"] == host.proc.pid and written["start"], written
    # The same pid with another start time is another process (the pid was reused).
    rewrite(f, start=written["start"] + "0")
    search_runs(rawm)
    # A running process that did not write them (this test's own pid) vouches for nothing either.
    rewrite(f, pid=os.getpid(), start=written["start"])
    search_runs(rawm)
    # A file without the writer's start time (an older server's) is not trusted.
    data = json.loads(f.read_text())
    data.pop("start")
    data["pid"] = host.proc.pid
    f.write_text(json.dumps(data))
    search_runs(rawm)
    rewrite(f, start=written["start"])
    search_deferred(rawm)


def test_the_hosts_server_refreshes_the_conditions_and_never_puts_back_replaced_ones(rawm, spawn, place):
    (place.root / "notes").mkdir(parents=True, exist_ok=True)
    (place.root / "notes/a.md").write_text("a needle in a haystack\n")
    age = ("--conditions-max-age", "2")   # trusted for 2 s; the writer refreshes every 0.4 s
    a = spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), *age, init=True)
    a.result("host/setConditions", LOW_BATTERY)
    f = conditions_file(place)
    first = json.loads(f.read_text())["at"]
    time.sleep(3)   # longer than the age limit: only a refresh keeps them trusted
    assert json.loads(f.read_text())["at"] > first
    _is_deferred(rawm(extra=age).mresult("tools/call", SEARCH, caps={}), "lowBattery")

    b = spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), *age, init=True)
    b.result("host/setConditions", NORMAL)
    time.sleep(1.5)   # several of a's refresh periods: it sees b wrote last and leaves the file alone
    now = json.loads(f.read_text())
    assert now["pid"] == b.proc.pid and now["conditions"]["batteryLevel"] == NORMAL["batteryLevel"], now
    _found(rawm(extra=age).mresult("tools/call", SEARCH, caps={}))

    b.kill()   # nobody refreshes b's conditions now: they are ignored at once (b ended)
    _found(rawm(extra=age).mresult("tools/call", SEARCH, caps={}))


def test_conditions_max_age_is_validated(raw):
    r = raw(extra=("--conditions-max-age", "0"))
    assert r.proc.wait(timeout=10) != 0
    assert "--conditions-max-age" in r.stderr_path.read_text(errors="replace")
