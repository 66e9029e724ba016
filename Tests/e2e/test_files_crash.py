"""Crash safety of saveFile: a server SIGKILLed at any moment of a save leaves the file wholly old
or wholly new, never a mix, never truncated, never missing, and the server's temp files never
show (and are gone after a clean start).
"""
from __future__ import annotations

import os
import random
import signal
import time

from bridge import dumps, ndjson_frame, request
from wsfiles import MiB, b64, is_temp_name

KILLS = 200
TARGET = "crash/target.bin"


def _contents() -> tuple[bytes, bytes]:
    rng = random.Random(20251122)
    a = rng.randbytes(4 * MiB)
    b = (b"B" * 4095 + b"\n") * (4 * MiB // 4096 + 128) + b"tail"
    return a, b


def _save_line(data: bytes) -> bytes:
    return ndjson_frame(dumps(request("saveFile", {"path": TARGET, "data": b64(data), "encoding": "base64"},
                                      id="save")))


def _temp_files(folder) -> list[str]:
    return [n for n in os.listdir(folder) if is_temp_name(n)]


def _start(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson", debug=False, init=True)
    b.track("save", "saveFile")
    return b


def _answered(b) -> bool:
    try:
        b.pump_until(lambda: b.eof, 10.0, "end of stdout after the kill")
    except AssertionError:
        pass
    return any(isinstance(e.msg, dict) and e.msg.get("id") == "save" and "result" in e.msg for e in b.log)


def test_save_killed_at_random_moments_leaves_wholly_old_or_wholly_new_content(spawn, ws_root):
    a, b_ = _contents()
    lines = {0: _save_line(a), 1: _save_line(b_)}
    contents = {0: a, 1: b_}
    folder = ws_root / "crash"

    # Arrange: the file exists (content A); measure how long a save takes once its bytes are sent.
    durations = []
    for k in (0, 1, 0):
        s = _start(spawn, ws_root)
        s.write(lines[k])
        sent = time.monotonic()
        assert "result" in s.response("save", timeout=30)
        durations.append(time.monotonic() - sent)
        s.kill()
    assert (folder / "target.bin").read_bytes() == a
    window = max(0.030, 1.3 * max(durations))

    rng = random.Random(int(os.environ.get("WB_CRASH_SEED", "1")))
    kills = left_temp = answered = 0
    for i in range(KILLS):
        k = (i + 1) % 2                       # alternate: B, A, B, A, ...
        s = _start(spawn, ws_root)
        listed = s.result("listFiles", {"path": "crash", "includeHidden": True})["entries"]
        assert not [e for e in listed if is_temp_name(e["name"])], f"listFiles shows a temp file: {listed}"

        s.write(lines[k])
        if (i // 2) % 2 == 0:
            time.sleep(rng.uniform(0.0, window))             # anywhere in the save
        else:                                                # aimed at the write/fsync/rename itself
            deadline = time.monotonic() + window
            while time.monotonic() < deadline and not _temp_files(folder):
                time.sleep(0.0005)
            time.sleep(rng.uniform(0.0, 0.030))
        os.kill(s.proc.pid, signal.SIGKILL)
        s.proc.wait(5)
        kills += 1
        was_answered = _answered(s)
        s.kill()

        data = (folder / "target.bin").read_bytes()
        assert data in (a, b_), (
            f"kill {i}: target.bin is neither A nor B (size {len(data)}; A {len(a)}, B {len(b_)}; "
            f"starts like A: {data[:64] == a[:64]}, like B: {data[:64] == b_[:64]})")
        if was_answered:
            answered += 1
            assert data == contents[k], f"kill {i}: the save was answered, yet the old content is on disk"
        left_temp += bool(_temp_files(folder))

    # Every one of the KILLS kills is made, however slow the machine: a count, not a time budget.
    assert kills == KILLS
    print(f"{kills} kills, window {window * 1000:.0f} ms, {answered} answered before the kill, "
          f"{left_temp} left a temp file behind")

    # A final clean start: the temp files are gone and never listed.
    final = _start(spawn, ws_root)
    listed = final.result("listFiles", {"path": "", "recursive": True, "includeHidden": True}, timeout=20)["entries"]
    assert not [e for e in listed if is_temp_name(e["name"])]
    deadline = time.monotonic() + 10.0
    while _temp_files(folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _temp_files(folder) == [], f"temp files left after a clean start: {_temp_files(folder)[:5]}"
    assert (folder / "target.bin").read_bytes() in (a, b_)
    assert final.call("shutdown")["result"] is None
