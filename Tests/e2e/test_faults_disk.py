"""A full disk during saves, appends, session appends and migrations (issue 8, fault injection).

Each fault gets its typed error (-32803 `NoSpace`), the server keeps serving, every acknowledged
write is intact once space is back, and no partial file is ever visible: not under its own name,
not as a temp file on disk, not in `listFiles`. The disk is a small tmpfs (`mounts.tmpfs`), full
by bytes or by inodes, and "space comes back" by growing it with a remount.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from mounts import tmpfs  # noqa: F401 -- fixture
from sessions_helpers import all_messages
from storage_helpers import Roots, choose, info, user_files
from wsfiles import is_temp_name, list_all, load_bytes

CHUNK = 64 << 10


def _domain_code(r: dict) -> str | None:
    return r["error"]["data"]["code"] if "error" in r else None


def _expect_no_space(r: dict, what: str) -> None:
    assert "error" in r, f"{what}: expected NoSpace, got a result: {str(r)[:300]}"
    assert r["error"]["code"] == -32803 and r["error"]["data"]["code"] == "NoSpace", f"{what}: {r['error']}"


def _temp_files(root: Path) -> list[str]:
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files if is_temp_name(f)]


def _payload(i: int, size: int = CHUNK) -> bytes:
    return (f"{i:06d}".encode() * (size // 6 + 1))[:size]


def test_saves_on_a_full_disk_answer_NoSpace_and_leave_acknowledged_files_whole(spawn, tmpfs, tmp_path):
    tmpfs.mount("1m")
    root = tmpfs.path / "ws"
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "config"), init=True)
    b.result("saveFile", {"path": "keep/doc.txt", "data": "version one\n"})

    saved: dict[str, bytes] = {}
    failed = []
    for i in range(40):                       # 40 x 64 KiB cannot fit in 1 MiB
        path = f"fill/f{i:02d}.bin"
        r = b.call("saveFile", {"path": path, "data": _payload(i).decode()}, timeout=10)
        if "error" in r:
            _expect_no_space(r, path)
            failed.append(path)
        else:
            saved[path] = _payload(i)
    assert failed, "the 1 MiB disk never filled up"
    big = "x" * (512 << 10)
    _expect_no_space(b.call("saveFile", {"path": "keep/doc.txt", "data": big}), "overwrite of keep/doc.txt")

    # Nothing partial is visible, on disk or through the protocol; the old version survives.
    assert _temp_files(root) == []
    assert (root / "keep/doc.txt").read_bytes() == b"version one\n"
    assert load_bytes(b, "keep/doc.txt") == b"version one\n"
    for path in failed:
        assert not (root / path).exists(), f"{path} was refused, yet it is on disk"
    listed = {e["path"] for e in list_all(b, path="fill")}
    assert listed == set(saved)
    assert b.result("ping") == {}

    tmpfs.remount("size=16m")
    for path in failed:
        b.result("saveFile", {"path": path, "data": "now it fits"})
    b.result("saveFile", {"path": "keep/doc.txt", "data": big})
    for path, data in saved.items():
        assert (root / path).read_bytes() == data and load_bytes(b, path) == data, f"{path} changed"
    assert (root / "keep/doc.txt").read_text() == big


def test_appends_on_a_full_disk_keep_exactly_the_acknowledged_lines(spawn, tmpfs, tmp_path):
    tmpfs.mount("512k")
    root = tmpfs.path / "ws"
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "config"), init=True)
    acknowledged: list[str] = []
    refused = 0
    for i in range(400):                      # 400 x 4 KiB lines cannot fit in 512 KiB
        line = f"{i:05d} " + "a" * 4090 + "\n"
        r = b.call("appendFile", {"path": "log/appends.txt", "data": line})
        if "error" in r:
            _expect_no_space(r, f"append {i}")
            refused += 1
        else:
            acknowledged.append(line)
    assert refused > 0 and acknowledged, f"{len(acknowledged)} acknowledged, {refused} refused"

    assert (root / "log/appends.txt").read_text() == "".join(acknowledged), "a refused append left bytes behind"
    info_now = b.result("getFileInfo", {"path": "log/appends.txt"})
    assert info_now["size"] == sum(len(x) for x in acknowledged)

    tmpfs.remount("size=8m")
    b.result("appendFile", {"path": "log/appends.txt", "data": "after\n"})
    assert (root / "log/appends.txt").read_text() == "".join(acknowledged) + "after\n"


def test_session_appends_on_a_full_disk_answer_NoSpace_and_lose_nothing_acknowledged(spawn, tmpfs, tmp_path):
    tmpfs.mount("768k")
    root, config = tmpfs.path / "ws", tmp_path / "config"
    argv = ("--local-root", str(root), "--config-dir", str(config))
    b = spawn(*argv, debug=False, init=True)
    sid = b.result("session/create", {"title": "full disk"})["id"]
    b.result("session/transition", {"id": sid, "to": "running"})

    acknowledged: list[str] = []
    refused = 0
    for i in range(200):                      # 200 x 8 KiB messages cannot fit in 768 KiB
        mid = f"m{i:04d}"
        r = b.call("session/appendMessages",
                   {"id": sid, "messages": [{"id": mid, "role": "user", "content": f"{i} " + "w" * 8000}]})
        if "error" in r:
            _expect_no_space(r, f"message {i}")
            refused += 1
        else:
            assert r["result"]["count"] == 1
            acknowledged.append(mid)
    assert refused > 0 and acknowledged, f"{len(acknowledged)} acknowledged, {refused} refused"
    assert [m["id"] for m in all_messages(b, sid)] == acknowledged
    assert b.result("ping") == {}

    # Space comes back: the session goes on from exactly the acknowledged messages, here and
    # after a SIGKILL and restart.
    tmpfs.remount("size=16m")
    assert b.result("session/appendMessages", {"id": sid, "messages": [{"id": "after", "role": "user",
                                                                         "content": "space again"}]})["count"] == 1
    b.kill()
    b2 = spawn(*argv, debug=False, init=True)
    assert [m["id"] for m in all_messages(b2, sid)] == acknowledged + ["after"]
    assert b2.result("session/get", {"id": sid})["state"] == "running"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_migration_onto_a_target_that_runs_out_of_room_fails_typed_then_resumes(spawn, tmpfs, tmp_path):
    # The target has plenty of bytes but few inodes: the free-space check passes, and the disk
    # fills in the middle of the copy.
    tmpfs.mount("32m", inodes=60)
    roots = Roots(tmp_path, tmp_path / "local", tmpfs.path / "cloud", tmp_path / "config")
    roots.cloud.mkdir()
    b = spawn("--local-root", str(roots.local), "--cloud-root", str(roots.cloud), "--config-dir", str(roots.config),
              debug=False, init=True)
    choose(b, "local")
    for i in range(120):
        b.result("saveFile", {"path": f"notes/n{i:03d}.md", "data": f"note {i}\n" * 50})
    source = user_files(roots.local)

    r = b.call("migrate", {"to": "cloud"}, timeout=60)
    _expect_no_space(r, "migrate to a target out of inodes")
    state = info(b)
    assert state["storageType"] == "local", "a failed migration switched the storage"
    assert state["pendingMigration"] is not None and state["pendingMigration"]["to"] == "cloud"
    # Whatever reached the target is whole and under its real name; no temp files anywhere.
    for rel, (size, digest) in user_files(roots.cloud).items():
        assert rel in source and source[rel] == (size, digest), f"{rel} on the target is not a whole copy"
    assert _temp_files(roots.cloud) == [] and _temp_files(roots.local) == []
    # The server keeps serving, on the local root.
    assert load_bytes(b, "notes/n000.md") == b"note 0\n" * 50

    tmpfs.remount("nr_inodes=10000")
    done = b.result("migrate", {"to": "cloud"}, timeout=60)
    assert done["resumed"] is True and done["switched"] is True
    assert user_files(roots.cloud) == source
    assert info(b)["storageType"] == "cloud" and info(b)["pendingMigration"] is None
