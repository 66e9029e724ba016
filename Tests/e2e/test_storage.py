"""Storage: local and cloud roots (docs/protocol.md, "Storage: local and cloud roots").

getStorageInfo's facts, the engine detected from the cloud root's markers, the per-machine
choice (chooseStorage) and its persistence in --config-dir, an unavailable or vanished cloud
root (CloudUnavailable, nothing written elsewhere), and usage kept current when another
process changes the files. Every server runs with --local-root, --cloud-root and --config-dir
under tmp_path.
"""
from __future__ import annotations

import os
import shutil
import time

import pytest

from storage_helpers import Roots, choose, info, start, usage_on_disk, wait_until
from wsfiles import domain_error, list_all, save

MiB = 1 << 20


def same_path(a: str | None, b) -> bool:
    return a is not None and os.path.realpath(a) == os.path.realpath(str(b))


# -- getStorageInfo -------------------------------------------------------------

def test_first_run_reports_local_storage_that_still_needs_a_choice(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)

    i = info(b)

    assert i["storageType"] == "local"
    assert i["needsChoice"] is True and i["isInitialized"] is False
    assert i["isCloudEnabled"] is True and i["isCloudAvailable"] is True
    assert same_path(i["roots"]["local"], roots.local) and same_path(i["roots"]["cloud"], roots.cloud)
    assert i["pendingMigration"] is None
    assert i["cloudProvider"] == "folder"


def test_free_bytes_is_the_active_root_file_systems_free_space(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)

    free = info(b)["freeBytes"]

    vfs = os.statvfs(roots.local)
    expected = vfs.f_bavail * vfs.f_frsize
    assert free > 0
    assert abs(free - expected) < max(512 * MiB, expected // 20), (free, expected)


@pytest.mark.parametrize("marker, provider", [
    (".stfolder", "syncthing"),
    (".sync_0123456789ab.db", "nextcloud"),
    (".dropbox", "dropbox"),
    ("RCLONE_TEST", "rclone"),
    (None, "folder"),
], ids=["syncthing", "nextcloud", "dropbox", "rclone", "none"])
def test_cloud_provider_is_detected_from_the_engines_marker(spawn, tmp_path, marker, provider):
    roots = Roots.under(tmp_path, marker=marker)
    b = start(spawn, roots)

    i = info(b)

    assert i["cloudProvider"] == provider
    assert i["isCloudEnabled"] is True and i["isCloudAvailable"] is True


def test_without_a_cloud_root_there_is_no_provider_and_no_cloud(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    b = start(spawn, roots, cloud=False)

    i = info(b)

    assert i["cloudProvider"] is None
    assert i["isCloudEnabled"] is False and i["isCloudAvailable"] is False
    assert i["roots"]["cloud"] is None
    assert i["storageType"] == "local" and i["needsChoice"] is True


def test_server_never_creates_the_cloud_root(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    b = start(spawn, roots)

    i = info(b)
    save(b, "probe.txt", "x")

    assert i["isCloudEnabled"] is True and i["isCloudAvailable"] is False
    assert not roots.cloud.exists()
    assert (roots.local / "probe.txt").read_text() == "x"


# -- chooseStorage --------------------------------------------------------------

@pytest.mark.parametrize("location, storage_type, needs_choice", [
    ("local", "local", False),
    ("cloud", "cloud", False),
    ("decideLater", "local", True),
])
def test_choice_is_answered_like_get_storage_info_and_survives_a_restart(spawn, tmp_path, location, storage_type,
                                                                         needs_choice):
    roots = Roots.under(tmp_path, marker=".stfolder")
    b = start(spawn, roots)

    chosen = choose(b, location)
    save(b, "where.txt", location)
    b.kill()
    again = info(start(spawn, roots))

    for i in (chosen, again):
        assert i["storageType"] == storage_type
        assert i["needsChoice"] is needs_choice and i["isInitialized"] is (not needs_choice)
        assert i["cloudProvider"] == "syncthing"
    active = roots.cloud if storage_type == "cloud" else roots.local
    other = roots.local if storage_type == "cloud" else roots.cloud
    assert (active / "where.txt").read_text() == location
    assert not (other / "where.txt").exists()


def test_choice_is_kept_in_the_config_folder_not_in_a_synced_root(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    local_before = {p for p in os.listdir(roots.local)}

    choose(b, "cloud")

    assert roots.config.is_dir() and os.listdir(roots.config), "nothing was written to --config-dir"
    assert {p for p in os.listdir(roots.local)} == local_before
    assert not [p for p in os.listdir(roots.cloud) if "storage" in p.lower() or p.endswith(".json")]


def test_choice_is_per_config_folder(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    choose(start(spawn, roots), "cloud")

    other = Roots(roots.base, roots.local, roots.cloud, tmp_path / "other-config")
    i = info(start(spawn, other))

    assert i["storageType"] == "local" and i["needsChoice"] is True


def test_choosing_a_missing_cloud_root_is_cloud_unavailable_and_changes_nothing(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    b = start(spawn, roots)

    err = domain_error(b, "chooseStorage", {"location": "cloud"}, "CloudUnavailable")
    i = info(b)

    assert err["code"] == -32803
    assert i["isCloudAvailable"] is False
    assert i["storageType"] == "local" and i["needsChoice"] is True and i["isInitialized"] is False
    assert not roots.cloud.exists()


# -- the active cloud root vanishing --------------------------------------------

def _vanish(roots: Roots, how: str) -> None:
    if how == "removed":
        shutil.rmtree(roots.cloud)
    elif how == "renamed":
        roots.cloud.rename(roots.base / "cloud-elsewhere")
    elif how == "replaced":
        roots.cloud.rename(roots.base / "cloud-elsewhere")
        roots.cloud.mkdir()
    else:
        raise ValueError(how)


@pytest.mark.parametrize("how", ["removed", "renamed", "replaced"])
def test_file_methods_answer_cloud_unavailable_when_the_active_cloud_root_goes(spawn, tmp_path, how):
    roots = Roots.under(tmp_path, marker=".stfolder")
    b = start(spawn, roots)
    choose(b, "cloud")
    save(b, "before.txt", "in the cloud")
    _vanish(roots, how)

    for method, params in [("saveFile", {"path": "after.txt", "data": "lost?"}),
                           ("appendFile", {"path": "after.txt", "data": "lost?"}),
                           ("createFolder", {"path": "newdir"}),
                           ("loadFile", {"path": "before.txt"}),
                           ("listFiles", {"path": ""}),
                           ("getFileInfo", {"path": "before.txt"}),
                           ("searchFiles", {"query": "cloud"}),
                           ("deleteFile", {"path": "before.txt"})]:
        domain_error(b, method, params, "CloudUnavailable")

    assert not (roots.local / "after.txt").exists() and not (roots.local / "newdir").exists()
    assert (roots.local / "before.txt").exists() is False
    if roots.cloud.exists():
        assert not (roots.cloud / "after.txt").exists() and not (roots.cloud / "newdir").exists()
        assert sorted(os.listdir(roots.cloud)) == [], f"the replacement root was written to: {os.listdir(roots.cloud)}"
    moved = roots.base / "cloud-elsewhere"
    if moved.exists():
        assert not (moved / "after.txt").exists() and (moved / "before.txt").read_text() == "in the cloud"


@pytest.mark.parametrize("how", ["removed", "renamed"])
def test_storage_info_reports_an_unavailable_cloud_after_it_went(spawn, tmp_path, how):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    choose(b, "cloud")
    _vanish(roots, how)

    r = b.call("getStorageInfo", {})

    assert "result" in r, f"getStorageInfo should report isCloudAvailable false, not fail: {r}"
    assert r["result"]["isCloudAvailable"] is False
    assert r["result"]["storageType"] == "cloud"


def test_cloud_root_coming_back_is_usable_again(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    choose(b, "cloud")
    save(b, "a.txt", "1")
    roots.cloud.rename(roots.base / "unmounted")
    domain_error(b, "loadFile", {"path": "a.txt"}, "CloudUnavailable")

    (roots.base / "unmounted").rename(roots.cloud)

    assert b.result("loadFile", {"path": "a.txt"})["data"] == "1"


# -- usage ----------------------------------------------------------------------

def _usage_matches(b, root):
    def check():
        u = info(b)["usage"]
        expected = usage_on_disk(root)
        return (u["files"], u["bytes"]) == expected and u
    return check


def test_usage_counts_the_active_roots_files_and_bytes(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    roots.local.mkdir()
    (roots.local / "Research").mkdir()
    (roots.local / "Research" / "a.bin").write_bytes(b"a" * 1000)
    (roots.local / "b.txt").write_bytes(b"b" * 234)
    b = start(spawn, roots)

    u = info(b)["usage"]

    assert (u["files"], u["bytes"]) == usage_on_disk(roots.local)
    assert u["files"] == 4   # the two above, plus the template's context.md and README.txt


def test_usage_follows_changes_made_by_another_process(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    info(b)   # the first call walks the tree
    root = roots.local

    (root / "new.bin").write_bytes(os.urandom(5000))
    (root / "deep" / "er").mkdir(parents=True)
    (root / "deep" / "er" / "x.bin").write_bytes(b"x" * 777)
    with open(root / "context.md", "ab") as f:
        f.write(b"appended by another process\n")
    wait_until(_usage_matches(b, root), 10, "usage to count created files")

    (root / "new.bin").unlink()
    shutil.rmtree(root / "deep")
    wait_until(_usage_matches(b, root), 10, "usage to forget deleted files and folders")

    (root / "Research" / "moved").mkdir()
    (root / "Research" / "moved" / "m.bin").write_bytes(b"m" * 4096)
    os.rename(root / "Research" / "moved", root / "Chats" / "moved")
    wait_until(_usage_matches(b, root), 10, "usage after a folder was moved")


def test_usage_follows_the_choice_to_the_cloud_root(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    (roots.cloud / "big.bin").write_bytes(b"c" * 10_000)
    b = start(spawn, roots)
    local = info(b)["usage"]

    chosen = choose(b, "cloud")["usage"]
    cloud_then = usage_on_disk(roots.cloud)
    (roots.cloud / "more.bin").write_bytes(b"m" * 3000)

    assert (local["files"], local["bytes"]) == usage_on_disk(roots.local)
    assert (chosen["files"], chosen["bytes"]) == cloud_then
    wait_until(_usage_matches(b, roots.cloud), 10, "usage of the cloud root after a change")


def test_file_methods_act_on_the_chosen_root(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    save(b, "first.txt", "local")

    choose(b, "cloud")
    save(b, "second.txt", "cloud")
    names = {e["path"] for e in list_all(b, recursive=True)}

    assert (roots.local / "first.txt").read_text() == "local" and not (roots.cloud / "first.txt").exists()
    assert (roots.cloud / "second.txt").read_text() == "cloud" and not (roots.local / "second.txt").exists()
    assert "second.txt" in names and "first.txt" not in names
    assert (roots.cloud / "context.md").is_file(), "choosing the cloud lays out the template there"
