"""Change notifications (workspace/didChangeFiles): who gets them, what they say, how they are
coalesced, and what never appears (the server's temp files, .workspace/, anything reached
through a link). How fast they come is measured by `make bench` (Benchmarks/watch_bench.py);
the waits here are hang guards."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from storage_helpers import Roots, choose, start
from wsfiles import is_temp_name, save

METHOD = "workspace/didChangeFiles"


class Watcher:
    """A client that receives didChangeFiles; every change is checked for what must never appear."""

    def __init__(self, b, root: Path):
        self.b, self.root = b, root
        self.seen: list[tuple[float, dict]] = []      # (arrival, change)
        self.messages = 0
        self.rescans: list[float] = []                # arrivals of {changes: [], rescan: true}
        self.allow_rescan = False                     # only where the test expects one (a storage switch)

    def _drain(self):
        for e in list(self.b.inbox):
            if isinstance(e.msg, dict) and e.msg.get("method") == METHOD:
                self.b.inbox.remove(e)
                self.messages += 1
                params = e.msg["params"]
                if params.get("rescan"):
                    assert self.allow_rescan, f"unexpected rescan: {params}"
                    assert params["changes"] == [], params
                    self.rescans.append(e.t)
                for c in params["changes"]:
                    parts = c["path"].split("/")
                    assert parts[0] != ".workspace", f"the server's private folder appeared: {c}"
                    assert not any(is_temp_name(p) for p in parts), f"a server temp file appeared: {c}"
                    self.seen.append((e.t, c))

    def wait_for(self, path: str, types=("created", "changed", "deleted"), since: float = 0.0,
                 timeout: float = 10.0) -> float:
        """The arrival time of the first change of `path` (of one of `types`) that arrived after `since`."""
        def found():
            self._drain()
            for t, c in self.seen:
                if t >= since and c["path"] == path and c["type"] in types:
                    return t
            return None
        return self.b.pump_until(found, timeout, f"a {'/'.join(types)} change of {path!r}")

    def settle(self, duration: float) -> None:
        self.b.settle(duration)
        self._drain()

    def changes(self, since: float = 0.0, path: str | None = None) -> list[dict]:
        self._drain()
        return [c for t, c in self.seen if t >= since and (path is None or c["path"] == path)]

    def make_live(self, name: str = "sentinel.txt") -> None:
        """Prove the watch is in place: write a file and wait for its notification."""
        since = time.monotonic()
        (self.root / name).write_text("live")
        self.wait_for(name, since=since, timeout=5.0)


def _watcher(spawn, ws_root, how: str, glob: str | None = None) -> Watcher:
    if how == "capability":
        b = spawn("--local-root", str(ws_root), framing="ndjson",
                  init={"capabilities": {"workspace": {"didChangeFiles": True}}})
    else:
        b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
        assert b.result("watchFiles", {} if glob is None else {"glob": glob}) == {"watching": True}
    return Watcher(b, ws_root)


@pytest.fixture(params=["capability", "watchFiles"])
def watcher(request, spawn, ws_root) -> Watcher:
    w = _watcher(spawn, ws_root, request.param)
    w.make_live()
    return w


def test_a_file_created_by_another_process_is_reported(watcher):
    t0 = time.monotonic()
    (watcher.root / "Research/new.md").write_text("hello")

    watcher.wait_for("Research/new.md", types=("created",), since=t0)


def test_a_change_to_an_existing_file_is_reported_as_changed(watcher):
    (watcher.root / "Research/existing.md").write_text("v1")
    watcher.wait_for("Research/existing.md")
    watcher.settle(0.3)

    t0 = time.monotonic()
    with open(watcher.root / "Research/existing.md", "a") as f:
        f.write("more")

    watcher.wait_for("Research/existing.md", types=("changed",), since=t0)


def test_an_atomic_save_over_an_existing_file_is_reported_as_changed(watcher):
    """Editors and other processes save by renaming a temp file over the old name; the kernel
    sends no delete for the replaced name, yet the file was there: `changed`, never `created`."""
    (watcher.root / "Research/kept.md").write_text("v1")
    watcher.wait_for("Research/kept.md")
    watcher.settle(0.3)

    t0 = time.monotonic()
    tmp = watcher.root / "Research/.kept.md.swp-tmp"
    tmp.write_text("v2")
    os.replace(tmp, watcher.root / "Research/kept.md")
    watcher.wait_for("Research/kept.md", types=("changed",), since=t0)
    (watcher.root / "Research/fresh.md.tmp").write_text("n")          # a rename onto a new name
    os.replace(watcher.root / "Research/fresh.md.tmp", watcher.root / "Research/fresh.md")
    watcher.wait_for("Research/fresh.md", types=("created",), since=t0)
    watcher.settle(0.3)
    assert [c["type"] for c in watcher.changes(since=t0, path="Research/kept.md")] == ["changed"]


def test_a_file_in_a_folder_made_with_mkdir_p_is_reported(watcher):
    t0 = time.monotonic()
    os.makedirs(watcher.root / "n1/n2/n3")
    (watcher.root / "n1/n2/n3/f.txt").write_text("deep")

    watcher.wait_for("n1/n2/n3/f.txt", types=("created", "changed"), since=t0)


def test_a_file_written_into_a_new_folder_later_is_reported(watcher):
    os.makedirs(watcher.root / "later/sub")
    watcher.wait_for("later", types=("created",))
    watcher.settle(0.2)

    t0 = time.monotonic()
    (watcher.root / "later/sub/f.txt").write_text("x")

    watcher.wait_for("later/sub/f.txt", since=t0)


def test_a_deleted_file_is_reported_as_deleted(watcher):
    (watcher.root / "gone.txt").write_text("x")
    watcher.wait_for("gone.txt")
    watcher.settle(0.3)

    t0 = time.monotonic()
    os.remove(watcher.root / "gone.txt")

    watcher.wait_for("gone.txt", types=("deleted",), since=t0)


def test_a_rename_is_reported_as_deleted_old_and_created_new(watcher):
    (watcher.root / "old.md").write_text("x")
    watcher.wait_for("old.md")
    watcher.settle(0.3)

    t0 = time.monotonic()
    os.rename(watcher.root / "old.md", watcher.root / "new.md")

    watcher.wait_for("old.md", types=("deleted",), since=t0)
    watcher.wait_for("new.md", types=("created",), since=t0)


def test_a_burst_of_1000_writes_to_one_file_is_coalesced(watcher):
    path = watcher.root / "burst.txt"
    path.write_text("start")
    watcher.wait_for("burst.txt")
    watcher.settle(0.6)
    t0 = time.monotonic()

    for i in range(1000):
        with open(path, "w") as f:
            f.write(f"write {i}")
    took = time.monotonic() - t0
    watcher.wait_for("burst.txt", types=("changed",), since=t0)
    watcher.settle(1.0)

    burst = watcher.changes(since=t0, path="burst.txt")
    print(f"1,000 writes in {took * 1000:.0f} ms -> {len(burst)} changes of burst.txt")
    assert 1 <= len(burst) <= 50, f"{len(burst)} notifications for 1,000 writes in {took * 1000:.0f} ms"
    assert {c["type"] for c in burst} == {"changed"}


def test_saves_by_a_server_never_show_its_temp_files(watcher, spawn, ws_root):
    writer = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    t0 = time.monotonic()

    for i in range(30):
        save(writer, "Research/saved.md", f"version {i}\n" * 100)
    save(watcher.b, "Research/saved-by-watcher.md", "x")

    watcher.wait_for("Research/saved.md", since=t0)
    watcher.wait_for("Research/saved-by-watcher.md", since=t0)
    watcher.settle(0.6)
    assert {c["path"] for c in watcher.changes(since=t0)} <= {"Research/saved.md", "Research/saved-by-watcher.md"}


def test_changes_inside_the_private_folder_never_appear(watcher):
    t0 = time.monotonic()
    (watcher.root / ".workspace/probe").write_text("x")
    (watcher.root / ".syncthing.x.md.wb-0123456789abcdef.tmp").write_text("x")
    (watcher.root / "visible.txt").write_text("x")

    watcher.wait_for("visible.txt", since=t0)
    watcher.settle(0.6)

    assert {c["path"] for c in watcher.changes(since=t0)} == {"visible.txt"}


def test_changes_behind_a_link_to_an_outside_folder_never_appear(watcher, tmp_path):
    outside = tmp_path / "ws_outside"
    outside.mkdir()
    os.symlink(outside, watcher.root / "out_link")
    watcher.wait_for("out_link", types=("created",))
    watcher.settle(0.3)
    t0 = time.monotonic()

    (outside / "f.txt").write_text("outside")
    os.makedirs(outside / "sub")
    (outside / "sub/g.txt").write_text("outside")
    (watcher.root / "after.txt").write_text("x")

    watcher.wait_for("after.txt", since=t0)
    watcher.settle(0.6)
    assert not [c for c in watcher.changes(since=t0) if c["path"].startswith("out_link/")]


def test_watch_files_glob_filters_the_paths_reported(spawn, ws_root):
    w = _watcher(spawn, ws_root, "watchFiles", glob="*.md")
    w.make_live("sentinel.md")
    t0 = time.monotonic()

    (ws_root / "ignored.txt").write_text("x")
    (ws_root / "watched.md").write_text("x")

    w.wait_for("watched.md", since=t0)
    w.settle(0.6)
    assert {c["path"] for c in w.changes(since=t0)} == {"watched.md"}


def test_after_choose_storage_the_notifications_follow_the_new_root_with_the_same_glob(spawn, tmp_path):
    roots = Roots.under(tmp_path, marker=".stfolder")
    b = start(spawn, roots)
    choose(b, "local")
    assert b.result("watchFiles", {"glob": "*.md"}) == {"watching": True}
    w = Watcher(b, roots.local)
    w.make_live("sentinel.md")

    w.allow_rescan = True
    t_choose = time.monotonic()
    choose(b, "cloud")
    w.settle(0.1)
    assert [t for t in w.rescans if t >= t_choose], "the switch must tell the client to list again (rescan)"
    w.root = roots.cloud
    w.make_live("in-cloud.md")
    t0 = time.monotonic()
    (roots.local / "left-behind.md").write_text("x")
    (roots.cloud / "filtered-out.txt").write_text("x")
    (roots.cloud / "watched.md").write_text("x")

    w.wait_for("watched.md", since=t0)
    w.settle(0.6)
    assert {c["path"] for c in w.changes(since=t0)} == {"watched.md"}


def test_watch_files_follows_a_storage_choice_made_by_another_process(spawn, tmp_path):
    """Two servers on the same roots and config folder: the one watching follows the other's choice."""
    roots = Roots.under(tmp_path, marker=".stfolder")
    app = start(spawn, roots)
    choose(app, "local")
    b = start(spawn, roots)
    assert b.result("watchFiles", {"glob": "*.md"}) == {"watching": True}
    w = Watcher(b, roots.local)
    w.make_live("sentinel.md")

    w.allow_rescan = True
    t_choose = time.monotonic()
    choose(app, "cloud")
    # The other process's choice is news to this client: it is told to list again once the watch moved.
    deadline = time.monotonic() + 10
    while not [t for t in w.rescans if t >= t_choose] and time.monotonic() < deadline:
        w.settle(0.05)
    assert [t for t in w.rescans if t >= t_choose], "no rescan after another process switched the storage"
    w.root = roots.cloud
    w.make_live("in-cloud.md")
    t0 = time.monotonic()
    (roots.local / "left-behind.md").write_text("x")
    (roots.cloud / "watched.md").write_text("x")
    w.wait_for("watched.md", since=t0)
    w.settle(0.6)
    assert {c["path"] for c in w.changes(since=t0)} == {"watched.md"}
    assert b.result("getStorageInfo", {})["storageType"] == "cloud"


def test_unwatch_files_stops_the_notifications(spawn, ws_root):
    w = _watcher(spawn, ws_root, "watchFiles")
    w.make_live()

    assert w.b.result("unwatchFiles", {}) == {"watching": False}
    w.settle(0.6)
    t0 = time.monotonic()
    (ws_root / "after-unwatch.txt").write_text("x")
    os.remove(ws_root / "sentinel.txt")

    w.settle(1.0)
    assert w.changes(since=t0) == [] and not w.b.notifications(METHOD)


def test_a_client_that_did_not_ask_gets_no_notifications(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    save(b, "x.txt", "x")

    (ws_root / "y.txt").write_text("y")
    os.remove(ws_root / "x.txt")

    b.settle(1.0)
    assert b.notifications(METHOD) == []


def test_a_client_asking_with_capability_false_gets_no_notifications(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson",
              init={"capabilities": {"workspace": {"didChangeFiles": False}}})

    (ws_root / "y.txt").write_text("y")

    b.settle(1.0)
    assert b.notifications(METHOD) == []
