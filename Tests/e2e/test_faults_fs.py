"""File-system faults under a running server (issue 8, fault injection): permission denied, a
read-only root, the cloud root vanishing in the middle of a stream of saves, a file replaced by a
folder between calls, a session journal deleted under the server.

Each gets its typed error (-32803 with `data.code`), the server keeps serving, nothing
acknowledged is lost, and no partial file becomes visible.
"""
from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from bridge import Bridge, dumps, ndjson_frame, request
from mounts import tmpfs, without_dac_override  # noqa: F401 -- fixture
from storage_helpers import Roots, choose, user_files
from test_faults_disk import _temp_files
from wsfiles import domain_error, is_temp_name, list_all, load_bytes


@pytest.fixture
def unprivileged(binary, contract, tmp_path):
    """A server on <tmp_path>/ws that file permission bits apply to, even when tests run as root."""
    launcher = without_dac_override(tmp_path, binary)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg-data")}
    b = Bridge(["--local-root", str(tmp_path / "ws"), "--config-dir", str(tmp_path / "config")], "ndjson",
               contract, tmp_path / "stderr-unprivileged.log", binary=launcher, env=env)
    b.initialize()
    b.root = tmp_path / "ws"
    yield b
    for p in (b.root / "locked", b.root / "locked/inner.txt", b.root / "secret.txt", b.root / "ro.txt"):
        if p.exists():
            p.chmod(0o755)
    b.kill()


def test_permission_denied_is_typed_and_the_server_keeps_serving(unprivileged):
    b, root = unprivileged, unprivileged.root
    b.result("saveFile", {"path": "locked/inner.txt", "data": "inside"})
    b.result("saveFile", {"path": "secret.txt", "data": "secret"})
    b.result("saveFile", {"path": "ro.txt", "data": "line 1\n"})
    (root / "locked").chmod(0o555)
    (root / "secret.txt").chmod(0o000)
    (root / "ro.txt").chmod(0o444)

    domain_error(b, "saveFile", {"path": "locked/new.txt", "data": "x"}, "PermissionDenied")
    domain_error(b, "saveFile", {"path": "locked/inner.txt", "data": "replaced"}, "PermissionDenied")
    domain_error(b, "deleteFile", {"path": "locked/inner.txt"}, "PermissionDenied")
    domain_error(b, "loadFile", {"path": "secret.txt"}, "PermissionDenied")
    domain_error(b, "appendFile", {"path": "ro.txt", "data": "line 2\n"}, "PermissionDenied")

    assert sorted(os.listdir(root / "locked")) == ["inner.txt"], "a temp file or the new file is visible"
    assert (root / "locked/inner.txt").read_text() == "inside"
    assert (root / "ro.txt").read_text() == "line 1\n"
    assert b.result("ping") == {}
    assert load_bytes(b, "locked/inner.txt") == b"inside"

    (root / "locked").chmod(0o755)
    (root / "secret.txt").chmod(0o644)
    b.result("saveFile", {"path": "locked/new.txt", "data": "now allowed"})
    assert load_bytes(b, "secret.txt") == b"secret"


def test_a_read_only_root_refuses_writes_with_ReadOnly_and_still_reads(spawn, tmpfs, tmp_path):
    tmpfs.mount("8m")
    root = tmpfs.path / "ws"
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "config"), init=True)
    b.result("saveFile", {"path": "notes/a.md", "data": "before"})
    # (A session journal open for writing would make the remount fail with EBUSY, so sessions
    # are first used once the root is read-only.)
    tmpfs.remount("ro")

    domain_error(b, "saveFile", {"path": "notes/a.md", "data": "after"}, "ReadOnly")
    domain_error(b, "saveFile", {"path": "notes/b.md", "data": "new"}, "ReadOnly")
    domain_error(b, "appendFile", {"path": "notes/a.md", "data": "more"}, "ReadOnly")
    domain_error(b, "createFolder", {"path": "folder"}, "ReadOnly")
    domain_error(b, "deleteFile", {"path": "notes/a.md"}, "ReadOnly")
    err = domain_error(b, "session/create", {"title": "read-only"}, "ReadOnly")
    # Like every error, it names paths relative to the workspace, never the host's layout.
    assert str(root) not in err["message"] and str(root) not in str(err["data"]), err
    if "path" in err["data"]:
        assert err["data"]["path"].startswith(".workspace/"), err
    assert load_bytes(b, "notes/a.md") == b"before"
    assert [e["path"] for e in list_all(b, path="notes")] == ["notes/a.md"]
    assert b.result("session/list", {})["sessions"] == []

    tmpfs.remount("rw")
    b.result("saveFile", {"path": "notes/a.md", "data": "after"})
    sid = b.result("session/create", {"title": "writable again"})["id"]
    assert b.result("session/appendMessages", {"id": sid, "messages": [{"role": "user", "content": "hi"}]})["count"] == 1
    assert (root / "notes/a.md").read_text() == "after"


def test_the_cloud_root_vanishing_mid_stream_loses_no_acknowledged_save_and_writes_nowhere_else(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = spawn("--local-root", str(roots.local), "--cloud-root", str(roots.cloud), "--config-dir", str(roots.config),
              init=True)
    choose(b, "cloud")
    local_before = user_files(roots.local)
    aside = tmp_path / "cloud-unmounted"

    count = 600
    msgs = [request("saveFile", {"path": f"stream/s{i:04d}.txt", "data": f"save {i}\n" * 200}, id=i)
            for i in range(count)]
    for m in msgs:
        b.track(m["id"], "saveFile")
    mover = threading.Timer(0.15, lambda: os.rename(roots.cloud, aside))
    mover.start()
    for i in range(0, count, 20):          # a steady stream, so the root vanishes in the middle of it
        b.write(b"".join(ndjson_frame(dumps(m)) for m in msgs[i:i + 20]))
        time.sleep(0.005)
    responses = [b.response(i, timeout=60) for i in range(count)]
    mover.join()

    acknowledged = [i for i, r in enumerate(responses) if "result" in r]
    refused = [i for i, r in enumerate(responses) if "error" in r]
    assert refused, "the cloud root vanished after every save was done: the stream was too short"
    for i in refused:
        err = responses[i]["error"]
        assert err["code"] == -32803 and err["data"]["code"] == "CloudUnavailable", f"save {i}: {err}"
    assert acknowledged == list(range(len(acknowledged))), "a save succeeded after one was refused"
    # Every acknowledged save is whole in the (moved) cloud root; nothing went anywhere else.
    for i in acknowledged:
        assert (aside / f"stream/s{i:04d}.txt").read_text() == f"save {i}\n" * 200
    for i in refused:
        assert not (aside / f"stream/s{i:04d}.txt").exists()
    assert _temp_files(aside) == []
    assert not roots.cloud.exists(), "the server recreated the vanished cloud root"
    assert user_files(roots.local) == local_before
    domain_error(b, "listFiles", {"path": "stream"}, "CloudUnavailable")
    assert b.result("ping") == {}

    os.rename(aside, roots.cloud)          # the drive comes back
    listed = [e["path"] for e in list_all(b, path="stream", limit=10000)]
    assert listed == [f"stream/s{i:04d}.txt" for i in acknowledged]
    b.result("saveFile", {"path": "stream/after.txt", "data": "back"})


def test_a_file_replaced_by_a_folder_between_calls_is_IsADirectory(ws):
    root = ws.root
    ws.result("saveFile", {"path": "doc.txt", "data": "text"})
    ws.result("saveFile", {"path": "dir/inner.txt", "data": "x"})
    (root / "doc.txt").unlink()
    (root / "doc.txt").mkdir()
    (root / "doc.txt" / "child.md").write_text("child")
    shutil.rmtree(root / "dir")
    (root / "dir").write_text("now a file")

    domain_error(ws, "saveFile", {"path": "doc.txt", "data": "again"}, "IsADirectory")
    domain_error(ws, "loadFile", {"path": "doc.txt"}, "IsADirectory")
    domain_error(ws, "appendFile", {"path": "doc.txt", "data": "more"}, "IsADirectory")
    domain_error(ws, "saveFile", {"path": "dir/inner.txt", "data": "x"}, "NotADirectory")
    domain_error(ws, "loadFile", {"path": "dir/inner.txt"}, "NotADirectory")
    assert ws.result("getFileInfo", {"path": "doc.txt"})["type"] == "directory"
    assert sorted(os.listdir(root / "doc.txt")) == ["child.md"]
    assert not any(is_temp_name(n) for n in os.listdir(root))
    assert load_bytes(ws, "doc.txt/child.md") == b"child"


def test_a_session_journal_deleted_under_the_server_is_NotFound_never_a_silent_loss(spawn, tmp_path):
    argv = ("--local-root", str(tmp_path / "ws"), "--config-dir", str(tmp_path / "config"))
    b = spawn(*argv, debug=False, init=True)
    gone = b.result("session/create", {"title": "to be deleted"})["id"]
    kept = b.result("session/create", {"title": "kept"})["id"]
    for sid in (gone, kept):
        b.result("session/transition", {"id": sid, "to": "running"})
        assert b.result("session/appendMessages", {"id": sid, "messages": [{"id": "m1", "role": "user",
                                                                            "content": "first"}]})["count"] == 1
    journal = tmp_path / "ws/.workspace/sessions" / gone / "journal.jsonl"
    assert journal.is_file()
    journal.unlink()

    # An append now would land in an unlinked file: the server must refuse it, not acknowledge it.
    domain_error(b, "session/appendMessages", {"id": gone, "messages": [{"id": "m2", "role": "user",
                                                                         "content": "lost?"}]}, "NotFound")
    domain_error(b, "session/get", {"id": gone}, "NotFound")
    assert gone not in {s["id"] for s in b.result("session/list", {})["sessions"]}
    # The other session and new ones are untouched.
    assert b.result("session/appendMessages", {"id": kept, "messages": [{"id": "m2", "role": "user",
                                                                         "content": "second"}]})["count"] == 1
    fresh = b.result("session/create", {"title": "new"})["id"]
    b.kill()
    b2 = spawn(*argv, debug=False, init=True)
    assert [m["id"] for m in b2.result("session/messages", {"id": kept})["messages"]] == ["m1", "m2"]
    assert b2.result("session/get", {"id": fresh})["title"] == "new"
    domain_error(b2, "session/get", {"id": gone}, "NotFound")
