"""Sync engines' artefacts in the active root (docs/protocol.md, "Storage", "File states";
DESIGN.md, "Sync-engine artefacts").

The tests make each engine's files on disk, as the engine would, in the cloud root (with the
engine's marker, cloud chosen), then look through the protocol: internal and temp files never
appear, placeholders are listed under the real name as notDownloaded, loadFile/downloadFile on
them, conflict copies of every engine mark the original conflicted and are settled with
resolveConflict.
"""
from __future__ import annotations

import base64
import os
import threading
import time

import pytest

from storage_helpers import Roots, choose, icloud_stub, start
from wsfiles import domain_error, list_all, load_bytes

WATCH = "workspace/didChangeFiles"

MARKERS = {"syncthing": ".stfolder", "nextcloud": ".sync_0123456789ab.db", "dropbox": ".dropbox",
           "unison": ".unison", "rclone": "RCLONE_TEST", "folder": None}

# Internal and temp files of each engine (relative paths), all containing the word "needle".
INTERNAL = {
    "syncthing": [".stignore", ".syncthing.notes.txt.tmp", ".stversions/notes~20251122-101010.txt",
                  "sub/.syncthing.deep.md.tmp", "~syncthing~notes.txt.tmp"],
    "nextcloud": [".sync_0123456789ab.db-wal", ".sync_0123456789ab.db-shm", "._sync_abcdef012345.db",
                  ".nextcloudsync.log", ".owncloudsync.log", ".notes.txt.~1a2b3c", "sub/.deep.md.~ff00"],
    "dropbox": [".dropbox.attr", ".dropbox.cache/pending.txt", "sub/.DS_Store"],
    "unison": [".unison.notes.txt.8a9b0c.unison.tmp", "sub/.unison.deep.md.77.unison.tmp", ".#notes.txt.0.unison.tmp"],
    "rclone": [".rclone-bisync", "notes.txt.a1B2c3D4.partial", "sub/deep.md.ZZZZ9999.partial"],
}

# (engine, copy name of "x.txt", device recorded in the name or None)
CONFLICT_COPIES = [
    ("syncthing", "x.sync-conflict-20251122-101010-ABCDEFG.txt", "ABCDEFG"),
    ("nextcloud", "x (conflicted copy 2025-11-22 101010).txt", None),
    ("nextcloud", "x (conflicted copy Alice 2025-11-22 101010).txt", "Alice"),
    ("dropbox", "x (Alice's conflicted copy 2025-11-22).txt", "Alice"),
    ("unison", "x (conflict_on_2025-11-22).txt", None),
    ("rclone", "x.txt..path1", None),
    ("rclone", "x.txt.conflict1", None),
]
COPY_IDS = ["syncthing", "nextcloud", "nextcloud-user", "dropbox", "unison", "rclone-path1", "rclone-conflict1"]


def cloud_server(spawn, tmp_path, engine="folder", watch=False):
    roots = Roots.under(tmp_path, marker=MARKERS[engine])
    b = start(spawn, roots, watch=watch)
    choose(b, "cloud")
    b.root = roots.cloud
    return b


def write(root, rel, data: bytes | str = b"needle inside\n"):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def entries(b, **kw):
    return {e["path"]: e for e in list_all(b, recursive=True, includeHidden=True, **kw)}


def change_paths(msgs):
    return [c["path"] for m in msgs if m.get("method") == WATCH for c in m["params"]["changes"]]


def wait_change(b, path, types=("created", "changed", "deleted"), timeout=10.0):
    def found():
        for e in b.inbox:
            m = e.msg
            if isinstance(m, dict) and m.get("method") == WATCH and \
                    any(c["path"] == path and c["type"] in types for c in m["params"]["changes"]):
                return e
        return None
    return b.pump_until(found, timeout, f"a {'/'.join(types)} notification of {path!r}")


# -- internal and temp files ------------------------------------------------------

@pytest.mark.parametrize("engine", list(INTERNAL))
def test_engine_internal_and_temp_files_are_never_listed_searched_or_notified(spawn, tmp_path, engine):
    b = cloud_server(spawn, tmp_path, engine, watch=True)
    root = b.root
    write(root, "sub/visible-first.txt", "first\n")
    wait_change(b, "sub/visible-first.txt")

    for rel in INTERNAL[engine]:
        write(root, rel)
    write(root, "sentinel.txt", "needle in the sentinel\n")
    wait_change(b, "sentinel.txt")
    b.settle(0.7)

    listed = entries(b)
    found = b.result("searchFiles", {"query": "needle", "includeHidden": True})
    notified = change_paths([e.msg for e in b.log])
    internal = set(INTERNAL[engine])
    internal_dirs = {rel.split("/")[0] for rel in internal if "/" in rel and rel.split("/")[0] != "sub"}

    def is_internal(p):
        return p in internal or p in internal_dirs or any(p.startswith(d + "/") for d in internal_dirs)

    assert not [p for p in listed if is_internal(p)], f"internal files listed: {sorted(listed)}"
    assert not [p for p in notified if is_internal(p)], f"internal files notified: {notified}"
    marker = MARKERS[engine]
    assert marker not in listed or marker == "RCLONE_TEST"
    assert [m["path"] for m in found["matches"]] == ["sentinel.txt"], found


# -- placeholders ------------------------------------------------------------------

def test_icloud_stub_is_listed_under_the_real_name_with_the_recorded_size(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, ".report.pdf.icloud", icloud_stub("report.pdf", 123456))
    write(b.root, "Research/.paper.md.icloud", icloud_stub("paper.md", 42))

    listed = entries(b)
    info = b.result("getFileInfo", {"path": "report.pdf"})

    assert listed["report.pdf"]["state"] == "notDownloaded" and listed["report.pdf"]["size"] == 123456
    assert listed["report.pdf"]["type"] == "file" and listed["report.pdf"]["name"] == "report.pdf"
    assert listed["Research/paper.md"]["state"] == "notDownloaded" and listed["Research/paper.md"]["size"] == 42
    assert not [p for p in listed if p.endswith(".icloud")]
    assert info["state"] == "notDownloaded" and info["size"] == 123456


def test_nextcloud_virtual_file_is_listed_under_the_real_name(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path, "nextcloud")
    write(b.root, "doc.txt.nextcloud", b"")
    write(b.root, "Research/old.md.owncloud", b"")

    listed = entries(b)

    assert listed["doc.txt"]["state"] == "notDownloaded" and listed["doc.txt"]["type"] == "file"
    assert listed["Research/old.md"]["state"] == "notDownloaded"
    assert not [p for p in listed if p.endswith((".nextcloud", ".owncloud"))]


def test_downloaded_file_wins_over_its_stale_stub(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, ".report.pdf.icloud", icloud_stub("report.pdf", 999))
    write(b.root, "report.pdf", b"%PDF real")

    listed = entries(b)

    assert listed["report.pdf"]["state"] == "current" and listed["report.pdf"]["size"] == 9


def test_placeholders_are_not_searched(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, ".report.txt.icloud", icloud_stub("report.txt", 10))
    write(b.root, "plain.txt", "NSURLNameKey\n")

    found = b.result("searchFiles", {"query": "NSURL", "includeHidden": True})

    assert [m["path"] for m in found["matches"]] == ["plain.txt"]


@pytest.mark.parametrize("stub", [".report.pdf.icloud", "report.pdf.nextcloud"])
def test_loading_a_placeholder_answers_not_downloaded_with_retry_after(spawn, tmp_path, stub):
    b = cloud_server(spawn, tmp_path)
    write(b.root, stub, icloud_stub("report.pdf", 5000) if stub.endswith(".icloud") else b"")

    err = domain_error(b, "loadFile", {"path": "report.pdf", "encoding": "base64"}, "NotDownloaded")

    assert isinstance(err["data"]["retryAfterMs"], int) and err["data"]["retryAfterMs"] > 0
    assert err["data"].get("path") == "report.pdf"


def test_download_waits_for_the_real_file_to_arrive(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    stub = write(b.root, ".report.pdf.icloud", icloud_stub("report.pdf", 2048))
    content = os.urandom(2048)

    def engine_downloads():
        time.sleep(0.3)
        staged = tmp_path / "incoming.part"
        staged.write_bytes(content)
        os.rename(staged, b.root / "report.pdf")
        stub.unlink()

    t = threading.Thread(target=engine_downloads)
    sent = time.monotonic()
    rid = b.request("downloadFile", {"path": "report.pdf", "timeoutMs": 60000})
    t.start()
    r = b.response(rid, timeout=30)  # a hang guard; a wait to the 60 s timeout would fail it
    elapsed = time.monotonic() - sent
    t.join()

    assert "result" in r, r
    assert r["result"]["path"] == "report.pdf" and r["result"]["size"] == 2048
    assert 0.3 <= elapsed, elapsed  # answered when the file arrived (a timeout answers NotDownloaded)
    assert load_bytes(b, "report.pdf") == content
    assert entries(b)["report.pdf"]["state"] == "current"


def test_download_times_out_with_not_downloaded(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, ".report.pdf.icloud", icloud_stub("report.pdf", 2048))

    sent = time.monotonic()
    err = domain_error(b, "downloadFile", {"path": "report.pdf", "timeoutMs": 400}, "NotDownloaded")
    elapsed = time.monotonic() - sent

    assert isinstance(err["data"]["retryAfterMs"], int) and err["data"]["retryAfterMs"] > 0
    assert 0.4 <= elapsed, elapsed  # after the 400 ms asked for (the request's wait is the hang guard)


def test_download_of_a_file_that_is_here_answers_at_once(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, "here.txt", "present")

    r = b.result("downloadFile", {"path": "here.txt", "timeoutMs": 60000}, timeout=10)  # at once: not after the 60 s

    assert r["path"] == "here.txt" and r["size"] == 7


def test_download_of_a_missing_file_is_not_found(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)

    domain_error(b, "downloadFile", {"path": "nothing.txt", "timeoutMs": 200}, "NotFound")


# -- conflict copies -----------------------------------------------------------------

@pytest.mark.parametrize("engine, copy, device", CONFLICT_COPIES, ids=COPY_IDS)
def test_conflict_copy_marks_the_original_conflicted_and_is_reported(spawn, tmp_path, engine, copy, device):
    b = cloud_server(spawn, tmp_path, engine)
    write(b.root, "x.txt", "mine\n")
    write(b.root, copy, "theirs, longer\n")
    write(b.root, f"sub/{copy}", "deep theirs\n")
    write(b.root, "sub/x.txt", "deep mine\n")

    listed = entries(b)
    conflicts = b.result("listConflicts", {})["conflicts"]
    sub_only = b.result("listConflicts", {"path": "sub"})["conflicts"]

    assert listed["x.txt"]["state"] == "conflicted" and listed["sub/x.txt"]["state"] == "conflicted"
    assert copy not in listed and f"sub/{copy}" not in listed, sorted(listed)
    by_path = {c["path"]: c for c in conflicts}
    assert set(by_path) == {"x.txt", "sub/x.txt"}, conflicts
    [c] = by_path["x.txt"]["copies"]
    assert c["path"] == copy and c["size"] == len("theirs, longer\n")
    if device is None:
        assert "device" not in c, c
    else:
        assert c["device"] == device
    assert [c["path"] for c in sub_only] == ["sub/x.txt"]
    assert sub_only[0]["copies"][0]["path"] == f"sub/{copy}"


def test_name_that_only_resembles_a_conflict_copy_is_an_ordinary_file(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, "x.txt", "mine\n")
    write(b.root, "x.sync-conflict-2025-11-22.txt", "not a copy\n")
    write(b.root, "x (conflicted copy).txt", "not a copy\n")

    listed = entries(b)

    assert listed["x.txt"]["state"] == "current"
    assert "x.sync-conflict-2025-11-22.txt" in listed and "x (conflicted copy).txt" in listed
    assert b.result("listConflicts", {})["conflicts"] == []


def test_file_info_agrees_with_the_listing_on_the_conflicted_state(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path, "syncthing")
    write(b.root, "x.txt", "mine\n")
    write(b.root, "x.sync-conflict-20251122-101010-ABCDEFG.txt", "theirs\n")

    listed = entries(b)["x.txt"]["state"]
    info = b.result("getFileInfo", {"path": "x.txt"})["state"]

    assert listed == "conflicted"
    assert info == listed, "getFileInfo and listFiles disagree on the state of a file with conflict copies"


def _two_copy_conflict(b):
    write(b.root, "x.txt", "current\n")
    a = "x.sync-conflict-20251122-101010-ABCDEFG.txt"
    d = "x (Alice's conflicted copy 2025-11-22).txt"
    write(b.root, a, "from syncthing peer\n")
    write(b.root, d, "from dropbox peer\n")
    return a, d


def _assert_settled(b, path="x.txt"):
    assert b.result("listConflicts", {})["conflicts"] == []
    assert entries(b)[path]["state"] == "current"


def test_resolve_keep_current_deletes_the_copies(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    a, d = _two_copy_conflict(b)
    ino = os.stat(b.root / "x.txt").st_ino

    r = b.result("resolveConflict", {"path": "x.txt", "keep": "current"})

    assert r["path"] == "x.txt" and r["state"] == "current" and r["size"] == len("current\n")
    assert (b.root / "x.txt").read_text() == "current\n" and os.stat(b.root / "x.txt").st_ino == ino
    assert not (b.root / a).exists() and not (b.root / d).exists()
    _assert_settled(b)


def test_resolve_keep_copy_replaces_the_file_with_its_only_copy_atomically(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, "x.txt", "current\n")
    copy = "x (conflict_on_2025-11-22).txt"
    write(b.root, copy, "the copy wins\n")
    copy_ino = os.stat(b.root / copy).st_ino

    r = b.result("resolveConflict", {"path": "x.txt", "keep": "copy"})

    assert r["state"] == "current" and r["size"] == len("the copy wins\n")
    assert (b.root / "x.txt").read_text() == "the copy wins\n"
    assert os.stat(b.root / "x.txt").st_ino == copy_ino, "the copy was not renamed into place (not atomic)"
    assert not (b.root / copy).exists()
    _assert_settled(b)


def test_resolve_keep_copy_with_several_copies_needs_copy_path(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    a, d = _two_copy_conflict(b)

    domain_error(b, "resolveConflict", {"path": "x.txt", "keep": "copy"}, "InvalidArgument")
    assert (b.root / a).exists() and (b.root / d).exists() and (b.root / "x.txt").read_text() == "current\n"

    r = b.result("resolveConflict", {"path": "x.txt", "keep": "copy", "copyPath": d})

    assert r["size"] == len("from dropbox peer\n")
    assert (b.root / "x.txt").read_text() == "from dropbox peer\n"
    assert not (b.root / a).exists() and not (b.root / d).exists()
    _assert_settled(b)


def test_resolve_with_a_copy_path_that_is_not_a_copy_is_refused(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    a, d = _two_copy_conflict(b)
    write(b.root, "other.txt", "unrelated\n")

    err = b.error("resolveConflict", {"path": "x.txt", "keep": "copy", "copyPath": "other.txt"})

    assert err["code"] == -32803 and err["data"]["code"] in ("NotFound", "InvalidArgument")
    assert (b.root / "x.txt").read_text() == "current\n" and (b.root / "other.txt").exists()
    assert (b.root / a).exists() and (b.root / d).exists()


def test_resolve_keep_both_turns_the_copies_into_ordinary_files(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    a, d = _two_copy_conflict(b)

    r = b.result("resolveConflict", {"path": "x.txt", "keep": "both"})

    assert r["state"] == "current" and (b.root / "x.txt").read_text() == "current\n"
    listed = entries(b)
    kept = sorted(p for p in listed if p.startswith("x (conflict"))
    assert kept == ["x (conflict 2).txt", "x (conflict).txt"], sorted(listed)
    assert sorted((b.root / p).read_text() for p in kept) == ["from dropbox peer\n", "from syncthing peer\n"]
    assert all(listed[p]["state"] == "current" for p in kept)
    assert not (b.root / a).exists() and not (b.root / d).exists()
    _assert_settled(b)


@pytest.mark.parametrize("encoding", ["utf8", "base64"])
def test_resolve_with_merged_data_saves_it_and_deletes_the_copies(spawn, tmp_path, encoding):
    b = cloud_server(spawn, tmp_path)
    a, d = _two_copy_conflict(b)
    merged = "current\nfrom syncthing peer\nfrom dropbox peer\n"
    data = merged if encoding == "utf8" else base64.b64encode(merged.encode()).decode()

    r = b.result("resolveConflict", {"path": "x.txt", "mergedData": data, "encoding": encoding})

    assert r["size"] == len(merged) and r["state"] == "current"
    assert (b.root / "x.txt").read_text() == merged
    assert not (b.root / a).exists() and not (b.root / d).exists()
    assert not [n for n in os.listdir(b.root) if n.endswith(".tmp")], "a temp file was left behind"
    _assert_settled(b)
    assert b.result("getFileInfo", {"path": "x.txt"})["etag"] == r["etag"]


def test_resolve_without_conflict_copies_is_not_found(spawn, tmp_path):
    b = cloud_server(spawn, tmp_path)
    write(b.root, "x.txt", "alone\n")

    domain_error(b, "resolveConflict", {"path": "x.txt", "keep": "current"}, "NotFound")

    assert (b.root / "x.txt").read_text() == "alone\n"


@pytest.mark.parametrize("engine, copy, device", CONFLICT_COPIES, ids=COPY_IDS)
def test_conflict_copy_appearing_is_notified_as_a_change_of_the_original(spawn, tmp_path, engine, copy, device):
    b = cloud_server(spawn, tmp_path, engine, watch=True)
    write(b.root, "x.txt", "mine\n")
    wait_change(b, "x.txt")
    b.settle(0.3)
    b.notifications(WATCH)

    since = time.monotonic()
    write(b.root, copy, "theirs\n")
    e = wait_change(b, "x.txt", types=("changed",))
    b.settle(0.5)

    assert e.t - since < 1.0
    notified = change_paths([x.msg for x in b.log])
    assert copy not in notified, notified
