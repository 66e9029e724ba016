"""migrate (docs/protocol.md, "Storage", **migrate**): copy and move in both directions,
dryRun, onConflict, identical files, folders, placeholders, the switch of the choice, progress,
cancellation and resuming, and the free-space check.

Sources are arranged on disk (as a user or a sync engine would leave them), the migration is
driven through the protocol, and the target is checked on disk by SHA-256 and through the
protocol once it is the active root.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time

import pytest

from storage_helpers import (STAGING, Roots, choose, icloud_stub, info, listed, make_tree, start, user_files,
                             user_folders)
from wsfiles import diff, snapshot as _snapshot


def snapshot(p):
    return _snapshot(p) if p.exists() else {}

SAMPLE = {
    "notes/a.txt": b"alpha\n",
    "notes/\u00fcn\u00efcode \u65e5\u672c.md": "\u00e4\u00f6\u00fc \u65e5\u672c\u8a9e\n".encode(),
    "Research/paper/p.bin": bytes(range(256)) * 40,
    "Chats/c1.json": b'{"messages": []}\n',
    "top.txt": b"top level\n",
    ".hidden-note": b"dot files travel too\n",
}
EMPTY_FOLDERS = ["Empty/inner", "Research/empty"]


def write_sample(root, files=SAMPLE, folders=EMPTY_FOLDERS):
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    for f in folders:
        (root / f).mkdir(parents=True, exist_ok=True)


def arrange(spawn, tmp_path, source: str, marker=None):
    """A server whose active root is `source` ("local" or "cloud"), holding SAMPLE and the empty folders."""
    roots = Roots.under(tmp_path, marker=marker)
    b = start(spawn, roots, debug=False)
    if source == "cloud":
        choose(b, "cloud")
    write_sample(roots.root(source))
    return b, roots


def other(where: str) -> str:
    return "cloud" if where == "local" else "local"


DIRECTIONS = [("local", "cloud"), ("cloud", "local")]


@pytest.mark.parametrize("mode", ["copy", "move"])
@pytest.mark.parametrize("source, target", DIRECTIONS, ids=["local-to-cloud", "cloud-to-local"])
def test_migrate_puts_every_file_in_the_target_and_switches_the_choice(spawn, tmp_path, source, target, mode):
    b, roots = arrange(spawn, tmp_path, source)
    src, dst = roots.root(source), roots.root(target)
    before = user_files(src)
    target_before = user_files(dst)
    folders_before = user_folders(src)

    r = b.result("migrate", {"to": target, "mode": mode}, timeout=60)
    after = info(b)

    assert r["switched"] is True and r["resumed"] is False
    assert after["storageType"] == target and after["needsChoice"] is False and after["isInitialized"] is True
    assert after["pendingMigration"] is None
    assert user_files(dst) == before, "the target does not hold exactly the source's files"
    assert folders_before <= user_folders(dst), f"folders not recreated: {folders_before - user_folders(dst)}"
    identical = {p for p in before if target_before.get(p) == before[p]}
    assert r["copied"] == len(before) - len(identical), r
    assert r["skipped"] == len(identical) and r["conflicts"] == 0 and r["renamed"] == [] and r["notDownloaded"] == []
    assert r["verified"] >= r["copied"]
    assert r["bytes"] == sum(size for p, (size, _) in before.items() if p not in identical)
    if mode == "move":
        assert user_files(src) == {}, f"move left files in the source: {sorted(user_files(src))}"
    else:
        assert user_files(src) == before, "copy changed the source"
    seen = listed(b)
    assert {p for p, e in seen.items() if e["type"] == "file"} == set(before)
    assert {f for f in EMPTY_FOLDERS} <= {p for p, e in seen.items() if e["type"] == "directory"}
    assert not [p for p in seen if p.startswith(STAGING)]


def test_dry_run_reports_without_writing_anything(spawn, tmp_path):
    b, roots = arrange(spawn, tmp_path, "local")
    (roots.cloud / "notes").mkdir()
    (roots.cloud / "notes" / "a.txt").write_bytes(b"a different alpha\n")
    shot = {name: snapshot(p) for name, p in [("local", roots.local), ("cloud", roots.cloud), ("config", roots.config)]}
    files = user_files(roots.local)

    r = b.result("migrate", {"to": "cloud", "mode": "move", "dryRun": True}, timeout=60)
    i = info(b)

    for name, p in [("local", roots.local), ("cloud", roots.cloud), ("config", roots.config)]:
        changed = diff(shot[name], snapshot(p))
        assert not changed, f"dryRun changed {name}: {changed}"
    assert r["switched"] is False and r["conflicts"] == 1
    assert r["copied"] == len(files) - 1
    assert r["bytes"] == sum(size for p, (size, _) in files.items() if p != "notes/a.txt")
    assert i["storageType"] == "local" and i["pendingMigration"] is None and i["needsChoice"] is True


# -- conflicts ------------------------------------------------------------------------

def arrange_conflict(spawn, tmp_path):
    b, roots = arrange(spawn, tmp_path, "local", marker=".stfolder")
    (roots.local / "notes.txt").write_bytes(b"local version\n")
    (roots.local / "same.txt").write_bytes(b"identical on both sides\n")
    (roots.local / "only.txt").write_bytes(b"only here\n")
    (roots.cloud / "notes.txt").write_bytes(b"cloud version, longer\n")
    (roots.cloud / "same.txt").write_bytes(b"identical on both sides\n")
    return b, roots


def test_keep_both_places_the_incoming_file_beside_the_existing_one(spawn, tmp_path):
    b, roots = arrange_conflict(spawn, tmp_path)
    same_ino = os.stat(roots.cloud / "same.txt").st_ino

    r = b.result("migrate", {"to": "cloud", "onConflict": "keepBoth"}, timeout=60)

    assert r["conflicts"] == 1 and r["switched"] is True
    assert r["renamed"] == [{"from": "notes.txt", "to": "notes (from local).txt"}]
    assert (roots.cloud / "notes.txt").read_bytes() == b"cloud version, longer\n"
    assert (roots.cloud / "notes (from local).txt").read_bytes() == b"local version\n"
    assert os.stat(roots.cloud / "same.txt").st_ino == same_ino, "an identical file was copied again"
    assert (roots.cloud / "only.txt").read_bytes() == b"only here\n"
    assert r["skipped"] >= 1
    assert "notes (from local).txt" in listed(b)


def test_skip_leaves_the_target_file_alone(spawn, tmp_path):
    b, roots = arrange_conflict(spawn, tmp_path)

    r = b.result("migrate", {"to": "cloud", "onConflict": "skip"}, timeout=60)

    assert r["conflicts"] == 1 and r["renamed"] == [] and r["switched"] is True
    assert r["skipped"] >= 2   # same.txt (identical) and notes.txt (skipped)
    assert (roots.cloud / "notes.txt").read_bytes() == b"cloud version, longer\n"
    assert not [n for n in os.listdir(roots.cloud) if "(from " in n]
    assert (roots.cloud / "only.txt").read_bytes() == b"only here\n"


def test_overwrite_replaces_the_target_file(spawn, tmp_path):
    b, roots = arrange_conflict(spawn, tmp_path)

    r = b.result("migrate", {"to": "cloud", "onConflict": "overwrite"}, timeout=60)

    assert r["conflicts"] == 1 and r["renamed"] == [] and r["switched"] is True
    assert (roots.cloud / "notes.txt").read_bytes() == b"local version\n"
    assert not [n for n in os.listdir(roots.cloud) if "(from " in n]


def test_fail_refuses_before_writing_anything(spawn, tmp_path):
    b, roots = arrange_conflict(spawn, tmp_path)
    before = {name: snapshot(p) for name, p in [("local", roots.local), ("cloud", roots.cloud)]}

    err = b.error("migrate", {"to": "cloud", "onConflict": "fail"}, timeout=60)
    i = info(b)

    assert err["code"] == -32803 and err["data"]["code"] == "AlreadyExists"
    assert err["data"].get("conflicts") == 1, err
    for name, p in [("local", roots.local), ("cloud", roots.cloud)]:
        changed = diff(before[name], snapshot(p))
        assert not changed, f"onConflict fail wrote to {name}: {changed}"
    assert i["storageType"] == "local" and i["pendingMigration"] is None


def test_pristine_template_files_in_the_target_are_replaced(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots, debug=False)
    choose(b, "cloud")                       # lays out the template in the cloud root
    choose(b, "local")
    (roots.local / "context.md").write_text("# Context\n\nwhat I taught the agent\n")

    r = b.result("migrate", {"to": "cloud"}, timeout=60)

    assert (roots.cloud / "context.md").read_text() == "# Context\n\nwhat I taught the agent\n"
    assert r["renamed"] == [] and r["conflicts"] == 0
    assert not [n for n in os.listdir(roots.cloud) if "(from " in n]


# -- placeholders -----------------------------------------------------------------------

def test_placeholders_are_listed_as_not_downloaded_and_not_migrated(spawn, tmp_path):
    b, roots = arrange(spawn, tmp_path, "local")
    (roots.local / ".big.pdf.icloud").write_bytes(icloud_stub("big.pdf", 10_000_000))
    (roots.local / "Research" / "doc.txt.nextcloud").write_bytes(b"")

    r = b.result("migrate", {"to": "cloud"}, timeout=60)

    assert sorted(r["notDownloaded"]) == ["Research/doc.txt", "big.pdf"]
    assert r["switched"] is True
    for name in ["big.pdf", ".big.pdf.icloud", "Research/doc.txt", "Research/doc.txt.nextcloud"]:
        assert not (roots.cloud / name).exists(), f"{name} was migrated"


# -- progress ---------------------------------------------------------------------------

def test_progress_is_reported_with_a_work_done_token(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    roots.local.mkdir()
    make_tree(roots.local, 60, 64 * 1024, seed=7)
    b = start(spawn, roots, debug=False)

    rid = b.request("migrate", {"to": "cloud", "workDoneToken": "mig-1"})
    resp = b.response_entry(rid, timeout=60)

    progress = [e for e in b.log if isinstance(e.msg, dict) and e.msg.get("method") == "$/progress"
                and e.msg["params"]["token"] == "mig-1"]
    assert progress, "no $/progress for the token"
    kinds = [e.msg["params"]["value"]["kind"] for e in progress]
    assert kinds[0] == "begin" and kinds[-1] == "end" and set(kinds[1:-1]) <= {"report"}, kinds
    assert all(e.seq < resp.seq for e in progress), "progress arrived after the response"
    pcts = [e.msg["params"]["value"].get("percentage") for e in progress]
    pcts = [p for p in pcts if p is not None]
    assert pcts == sorted(pcts) and all(0 <= p <= 100 for p in pcts), pcts
    assert "result" in resp.msg and resp.msg["result"]["switched"] is True


# -- cancellation and resuming --------------------------------------------------------------

def _files_done(msg) -> int:
    m = re.match(r"(\d+)/(\d+)", msg.get("params", {}).get("value", {}).get("message", "") or "")
    return int(m.group(1)) if m else -1


@pytest.mark.parametrize("mode, how", [("copy", "$/cancelRequest"), ("move", "$/cancelRequest"),
                                       ("copy", "window/workDoneProgress/cancel")],
                         ids=["copy", "move", "copy-by-progress-token"])
def test_cancelled_migration_leaves_no_partial_file_and_resumes_later(spawn, tmp_path, mode, how):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots, debug=False)
    choose(b, "cloud")
    originals = make_tree(roots.cloud, 300, 256 * 1024, seed=11, jitter=False)
    source_files = user_files(roots.cloud)

    rid = b.request("migrate", {"to": "local", "mode": mode, "workDoneToken": "c"})
    b.take(lambda m: isinstance(m, dict) and m.get("method") == "$/progress" and _files_done(m) >= 30,
           timeout=30, what="progress past 30 files")
    cancelled_at = time.monotonic()
    b.notify(how, {"id": rid} if how == "$/cancelRequest" else {"token": "c"})
    resp = b.response(rid, timeout=30)
    print(f"answered {time.monotonic() - cancelled_at:.3f}s after the cancel")

    assert "error" in resp and resp["error"]["code"] == -32800, f"not cancelled: {str(resp)[:300]}"
    i = info(b)
    assert i["storageType"] == "cloud", "the choice changed on a cancelled migration"
    pending = i["pendingMigration"]
    assert pending and pending["to"] == "local" and pending["mode"] == mode, i
    assert pending["filesTotal"] == len(source_files)
    # Every file visible in the target is whole; nothing of the staging folder shows.
    on_target = user_files(roots.local)
    partial = [p for p, v in on_target.items() if p in source_files and v != source_files[p]]
    assert not partial, f"partial files visible in the target: {partial[:5]}"
    done_before = len([p for p in on_target if p in originals])
    assert 0 < done_before < len(originals)
    assert pending["filesDone"] >= 1, f"pendingMigration.filesDone does not count the {done_before} finished files: {pending}"
    observer = start(spawn, Roots(roots.base, roots.local, roots.cloud, tmp_path / "observer-config"), cloud=False)
    seen = listed(observer)
    # The staging folder itself may show with includeHidden (like .workspace); nothing in it may.
    assert not [p for p in seen if p.startswith(STAGING + "/") or p.endswith(".tmp")], sorted(seen)[:10]
    assert {p for p in seen if p in originals} == {p for p in on_target if p in originals}
    for p in seen:
        if seen[p]["type"] == "file" and p in source_files:
            assert seen[p]["size"] == source_files[p][0], f"{p} is listed with a partial size"
    observer.kill()

    r = b.result("migrate", {"to": "local", "mode": mode}, timeout=120)

    assert r["resumed"] is True and r["switched"] is True
    assert r["copied"] <= len(source_files) - done_before, f"verified files were copied again: {r}"
    final = user_files(roots.local)
    for rel, sha in originals.items():
        assert final[rel][1] == sha, f"{rel} differs after the resumed migration"
        assert hashlib.sha256((roots.local / rel).read_bytes()).hexdigest() == sha
    assert not [p for p in final if "(from " in p]
    i = info(b)
    assert i["storageType"] == "local" and i["pendingMigration"] is None
    if mode == "move":
        assert user_files(roots.cloud) == {}


# -- free space --------------------------------------------------------------------------------

@pytest.fixture
def small_cloud(tmp_path):
    """A cloud root on an 8 MiB tmpfs (needs root and mount)."""
    mnt = tmp_path / "cloud"
    mnt.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a small tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode(errors='replace').strip()}")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_migrate_refuses_a_target_without_enough_space(spawn, tmp_path, small_cloud):
    roots = Roots.under(tmp_path)
    roots.local.mkdir()
    (roots.local / "big").mkdir()
    for i in range(3):
        (roots.local / "big" / f"{i}.bin").write_bytes(os.urandom(4 << 20))
    b = start(spawn, roots, debug=False)

    err = b.error("migrate", {"to": "cloud"}, timeout=60)
    i = info(b)

    assert err["code"] == -32803 and err["data"]["code"] == "InsufficientSpace"
    assert err["data"]["needed"] >= 12 << 20 and err["data"]["free"] <= 8 << 20, err
    assert os.listdir(small_cloud) == [], f"files were written to the full target: {os.listdir(small_cloud)}"
    assert i["storageType"] == "local" and i["pendingMigration"] is None


@pytest.mark.parametrize("dry_run", [False, True])
def test_migrate_to_the_active_root_with_nothing_pending_is_a_no_op_that_says_so(spawn, tmp_path, dry_run):
    # What a client sends when it retries a migration whose answer it lost (or after a crash).
    b, roots = arrange(spawn, tmp_path, "local")
    before, cloud_before = user_files(roots.local), user_files(roots.cloud)

    r = b.result("migrate", {"to": "local", "mode": "move", "dryRun": dry_run}, timeout=60)

    assert r["alreadyActive"] is True and r["switched"] is False and r["resumed"] is False
    assert (r["copied"], r["verified"], r["bytes"], r["conflicts"]) == (0, 0, 0, 0)
    assert user_files(roots.local) == before and user_files(roots.cloud) == cloud_before
    after = info(b)
    assert after["storageType"] == "local" and after["pendingMigration"] is None
    assert b.result("ping") == {}
