"""The MCP face's change notifications between two real devices kept in sync by Syncthing
(issue 16: "subscriptions/listen streams resource updates from the watcher, including other
processes and other devices through the sync engine").

Reuses test_syncthing's fixtures: two Syncthing devices sharing folder `ws`, a bridge on each with
its cloud root on that device's folder, cloud chosen. Device B's folder also keeps old versions
(Syncthing's simple versioning, so `.stversions/` fills as files arrive from A). On device B an
MCP process (`workspace-bridge mcp` on B's roots and config folder, so on B's cloud root) serves
a client over raw NDJSON. Then, through the real binary:
- 2026-07-28 era: a `subscriptions/listen` for a file URI and list changes gets
  `notifications/resources/updated` for that URI when the file is saved through A's bridge, and
  `notifications/resources/list_changed` when a new file is saved on A, each within 5 s (the same
  bound as the JSON-RPC face's test: Syncthing's watcher on A waits `fsWatcherDelayS` = 1 s, then
  the index travels and B pulls it; on loopback that is about 1.5-2.5 s);
- 2025 era: `resources/subscribe` gets `notifications/resources/updated` for a file saved on A
  within the same bound, and nothing for a file it did not subscribe to;
- a conflict (both devices edit one file while paused): B's MCP client sees the file as updated
  (never the conflict copy as a resource or a list change), reads the winner, `list_files`
  marks it `conflicted`; resolving it on B is seen as one more update.
Throughout, no Syncthing artefact (`.stfolder`, `.stversions/…`, `.syncthing.*.tmp`, conflict
copies) and nothing of `.workspace/` is ever listed by `resources/list` or named by a
notification.

Skipped, like test_syncthing, when Syncthing cannot be installed.
"""
from __future__ import annotations

import json
import time
import urllib.request

import pytest

pytest.importorskip("mcp")

from mcp_helpers import RawMCP, file_uri, server_env  # noqa: E402
from mcp_modern import SUB, RawModern  # noqa: E402
from storage_helpers import wait_until  # noqa: E402
from test_syncthing import GUI, _connected, bridges, devices, rest  # noqa: E402,F401  (fixtures)
from wsfiles import save  # noqa: E402

UPDATED = "notifications/resources/updated"
LIST_CHANGED = "notifications/resources/list_changed"
BOUND = 5.0          # seconds from a save on A to the notification on B (as test_syncthing's)


def _is_artefact(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (parts[0] in (".stfolder", ".stversions", ".stignore", ".workspace", ".wb-staging.nosync")
            or name.startswith(".syncthing.") or name.startswith("~syncthing~") or ".sync-conflict-" in name)


def _patch_folder(device: str, change: dict) -> None:
    req = urllib.request.Request(f"http://{GUI[device]}/rest/config/folders/ws", data=json.dumps(change).encode(),
                                 method="PATCH", headers={"X-API-Key": f"key-{device}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200


def _folder_state(device: str) -> str:
    return rest(device, "GET", "/rest/db/status?folder=ws").get("state", "")


@pytest.fixture(scope="module")
def versioned(bridges):
    """Device B keeps replaced versions in `.stversions/` (simple versioning), as many users set it."""
    _patch_folder("b", {"versioning": {"type": "simple", "params": {"keep": "5"}}})
    wait_until(lambda: rest("b", "GET", "/rest/config/folders/ws")["versioning"]["type"] == "simple", 10,
               "B's folder to keep versions")
    wait_until(lambda: _connected("a") and _connected("b"), 30, "both devices connected again")
    return bridges


@pytest.fixture
def mcp_b(versioned, binary, tmp_path):
    """mcp_b(modern=True, on=B) -> a raw MCP client of a `workspace-bridge mcp` process on device
    B (or on the device of the bridge `on`), on its roots and config folder."""
    _, b = versioned
    procs: list[RawMCP] = []

    def _start(modern: bool = True, on=None) -> RawMCP:
        roots = (on or b).roots
        argv = ["mcp", "--local-root", str(roots.local), "--cloud-root", str(roots.cloud),
                "--config-dir", str(roots.config)]
        cls = RawModern if modern else RawMCP
        r = cls(binary, argv, server_env(tmp_path), tmp_path / f"mcp-stderr-{len(procs)}.log")
        procs.append(r)
        return r

    yield _start
    for r in procs:
        r.kill()


def _rel(b, uri: str) -> str:
    prefix = file_uri(b.roots.cloud) + "/"
    assert uri.startswith(prefix), f"{uri} is not a resource of B's active root {prefix}"
    return urllib.request.url2pathname(uri[len(prefix):])


def _on_b(b, rel: str, data: str) -> None:
    wait_until(lambda: (b.roots.cloud / rel).is_file() and (b.roots.cloud / rel).read_text() == data, 20,
               f"{rel} with {data!r} on device B")


def _listen(r: RawModern, rid, **notifications) -> dict:
    r.mreq("subscriptions/listen", {"notifications": notifications}, id=rid)
    ack = r.wait_for(lambda m: m.get("method") == "notifications/subscriptions/acknowledged"
                     and m["params"]["_meta"][SUB] == rid, timeout=5)
    return ack["params"]["notifications"]


def _resources(r, b, modern: bool) -> list[str]:
    """Every resource of B (all pages) as relative paths."""
    out, cursor = [], None
    while True:
        params = {"cursor": cursor} if cursor else {}
        res = r.mresult("resources/list", params) if modern else r.result("resources/list", params)
        out += [_rel(b, x["uri"]) for x in res["resources"]]
        cursor = res.get("nextCursor")
        if not cursor:
            return out


def _no_artefacts_notified(r, b) -> None:
    named = [_rel(b, m["params"]["uri"]) for _, m in r.log if m.get("method") == UPDATED]
    assert not [p for p in named if _is_artefact(p)], f"sync artefacts notified: {named}"


def _arrival(r, msg) -> float:
    return next(t for t, m in r.log if m is msg)


def _read(r, uri: str, modern: bool) -> str:
    res = r.mresult("resources/read", {"uri": uri}) if modern else r.result("resources/read", {"uri": uri})
    return res["contents"][0]["text"]


def test_modern_listen_on_b_streams_a_save_and_a_new_file_made_on_a(versioned, mcp_b):
    a, b = versioned
    save(a, "mcp/watched.md", "v1\n")
    save(a, "mcp/other.md", "o1\n")
    _on_b(b, "mcp/watched.md", "v1\n")
    _on_b(b, "mcp/other.md", "o1\n")

    r = mcp_b(modern=True)
    watched = file_uri(b.roots.cloud, "mcp/watched.md")
    assert "mcp/watched.md" in _resources(r, b, modern=True)
    assert _listen(r, "files", resourceSubscriptions=[watched]) == {"resourceSubscriptions": [watched]}
    assert _listen(r, "list", resourcesListChanged=True) == {"resourcesListChanged": True}

    # A save of the subscribed file on A: an update on B's stream, within the bound.
    mark = len(r.log)
    saved_at = time.monotonic()
    save(a, "mcp/watched.md", "v2 from device A\n")
    upd = r.wait_for(lambda m: m.get("method") == UPDATED and m["params"]["uri"] == watched, timeout=BOUND + 5)
    latency = _arrival(r, upd) - saved_at
    print(f"resources/updated A -> B listen: {latency:.2f}s")
    assert latency < BOUND
    assert upd["params"]["_meta"][SUB] == "files", upd
    assert _read(r, watched, modern=True) == "v2 from device A\n"

    # A save of a file it did not subscribe to: no update for it, ever.
    save(a, "mcp/other.md", "o2\n")
    _on_b(b, "mcp/other.md", "o2\n")
    r.drain(1.0)

    # A new file on A: a list change on the "list" subscription, and resources/list names it.
    created_at = time.monotonic()
    save(a, "mcp/new-from-a.md", "new\n")

    def new_listed(m):
        return m.get("method") == LIST_CHANGED and m["params"]["_meta"][SUB] == "list" \
            and (b.roots.cloud / "mcp/new-from-a.md").is_file()
    r.wait_for(new_listed, timeout=BOUND + 5)
    latency = time.monotonic() - created_at
    print(f"resources/list_changed A -> B listen: {latency:.2f}s")
    assert latency < BOUND + 0.5
    listed = _resources(r, b, modern=True)
    assert "mcp/new-from-a.md" in listed
    assert not [p for p in listed if _is_artefact(p)], f"sync artefacts listed as resources: {listed}"
    # Replaced versions did land in B's .stversions (the artefacts really were there to leak).
    assert any((b.roots.cloud / ".stversions").rglob("watched*.md")), "Syncthing kept no old version on B"

    r.drain(0.5)
    streamed = [m for _, m in r.log[mark:] if m.get("method") in (UPDATED, LIST_CHANGED)]
    for m in streamed:
        assert m["params"]["_meta"][SUB] in ("files", "list"), m
        if m["method"] == UPDATED:
            assert m["params"]["uri"] == watched and m["params"]["_meta"][SUB] == "files", \
                f"an update for something not subscribed: {m}"
        else:
            assert m["params"]["_meta"][SUB] == "list", f"a list change on the resource-only stream: {m}"
    _no_artefacts_notified(r, b)
    assert not [m for _, m in r.log if m.get("id") in ("files", "list")], "a listen was answered while open"


def test_2025_subscribe_on_b_is_notified_of_a_save_made_on_a(versioned, mcp_b):
    a, b = versioned
    save(a, "mcp25/sub.md", "s1\n")
    save(a, "mcp25/unsub.md", "u1\n")
    _on_b(b, "mcp25/sub.md", "s1\n")
    _on_b(b, "mcp25/unsub.md", "u1\n")

    r = mcp_b(modern=False)
    r.initialize("2025-11-25")
    sub = file_uri(b.roots.cloud, "mcp25/sub.md")
    assert r.result("resources/subscribe", {"uri": sub}) == {}
    r.drain(0.3)
    mark = len(r.log)

    save(a, "mcp25/unsub.md", "u2\n")
    _on_b(b, "mcp25/unsub.md", "u2\n")
    saved_at = time.monotonic()
    save(a, "mcp25/sub.md", "s2 from device A\n")
    upd = r.wait_for(lambda m: m.get("method") == UPDATED and m["params"]["uri"] == sub, timeout=BOUND + 5)
    latency = _arrival(r, upd) - saved_at
    print(f"resources/updated A -> B subscribe: {latency:.2f}s")
    assert latency < BOUND
    assert set(upd["params"]) == {"uri"}, f"a 2025 update carries only the uri: {upd}"
    assert _read(r, sub, modern=False) == "s2 from device A\n"

    r.drain(0.5)
    named = [m["params"]["uri"] for _, m in r.log[mark:] if m.get("method") == UPDATED]
    assert set(named) == {sub}, f"updates for resources not subscribed: {named}"
    listed = _resources(r, b, modern=False)
    assert "mcp25/sub.md" in listed
    assert not [p for p in listed if _is_artefact(p)], f"sync artefacts listed as resources: {listed}"
    _no_artefacts_notified(r, b)


def test_an_update_arriving_on_a_device_without_versions_is_no_list_change(versioned, mcp_b):
    """Device A keeps no versions (Syncthing's default): Syncthing removes the old file and renames
    its temp file into place. The MCP client on A is told the resource was updated; the list of
    resources did not change, so no list_changed (docs/protocol.md: "when a file appears or goes")."""
    a, b = versioned
    save(b, "mcp-a/kept.md", "k1\n")
    wait_until(lambda: (a.roots.cloud / "mcp-a/kept.md").is_file()
               and (a.roots.cloud / "mcp-a/kept.md").read_text() == "k1\n", 20, "kept.md on device A")
    r = mcp_b(modern=True, on=a)
    uri = file_uri(a.roots.cloud, "mcp-a/kept.md")
    _listen(r, "a", resourceSubscriptions=[uri], resourcesListChanged=True)
    r.drain(0.5)
    mark = len(r.log)
    save(b, "mcp-a/kept.md", "k2 from device B\n")
    r.wait_for(lambda m: m.get("method") == UPDATED and m["params"]["uri"] == uri, timeout=BOUND + 5)
    r.drain(1.0)
    assert "k2" in (a.roots.cloud / "mcp-a/kept.md").read_text()
    changes = [m for _, m in r.log[mark:] if m.get("method") == LIST_CHANGED]
    assert not changes, f"a list change for a file that was only updated: {changes}"


def test_a_conflict_is_seen_on_b_as_an_update_of_the_file_never_as_its_copy(versioned, mcp_b):
    a, b = versioned
    da, db = a.roots.cloud, b.roots.cloud
    t0 = time.monotonic()
    save(a, "clash.md", "base\n")
    _on_b(b, "clash.md", "base\n")

    r = mcp_b(modern=True)
    uri = file_uri(db, "clash.md")
    _listen(r, "clash", resourceSubscriptions=[uri], resourcesListChanged=True)

    # The folder is paused on both devices (the devices stay connected: resuming a device waits
    # for Syncthing's redial backoff, up to tens of seconds; resuming a folder rescans at once).
    for d in ("a", "b"):
        _patch_folder(d, {"paused": True})
    wait_until(lambda: all(rest(d, "GET", "/rest/config/folders/ws")["paused"] for d in ("a", "b"))
               and _folder_state("a") in ("", "paused") and _folder_state("b") in ("", "paused"), 15,
               "the folder paused on both devices")
    save(a, "clash.md", "edit from A\n")
    time.sleep(1.1)   # distinct modification times: B's edit is the newer one, and stays
    # B's own edit, made by B's MCP client itself.
    assert r.tool("write_file", {"path": "clash.md", "content": "edit from B\n"})["isError"] is False
    time.sleep(1.5)   # let each device's watcher record its local edit
    r.drain(0.2)
    mark = len(r.log)
    for d in ("a", "b"):
        _patch_folder(d, {"paused": False})
    t_resume = time.monotonic()

    def copy_on_b():
        return [p.name for p in db.iterdir() if p.name.startswith("clash.sync-conflict-")]
    copies = wait_until(copy_on_b, 45, "Syncthing's conflict copy on device B")
    t_copy = time.monotonic()
    upd = r.wait_for(lambda m: m.get("method") == UPDATED and m["params"]["uri"] == uri, timeout=BOUND)
    assert upd["params"]["_meta"][SUB] == "clash"
    print(f"conflict copy on B {t_copy - t_resume:.1f}s after resume, seen by MCP {time.monotonic() - t_copy:.2f}s later")

    # What B's MCP client sees: the file (B's newer edit), never the copy.
    assert _read(r, uri, modern=True) == "edit from B\n"
    listed = _resources(r, b, modern=True)
    assert "clash.md" in listed and not [p for p in listed if _is_artefact(p)], listed
    entries = r.tool("list_files", {"path": "", "includeHidden": True})["structuredContent"]["entries"]
    assert [e["state"] for e in entries if e["path"] == "clash.md"] == ["conflicted"], entries
    # (The private folder itself is listed with includeHidden, never entered: test_files.py.)
    assert not [e for e in entries if _is_artefact(e["path"]) and e["path"] != ".workspace"], entries
    r.drain(0.5)
    after = [m for _, m in r.log[mark:] if m.get("method") in (UPDATED, LIST_CHANGED)]
    assert [m for m in after if m["method"] == UPDATED] and all(
        m["params"]["uri"] == uri for m in after if m["method"] == UPDATED), after
    assert not [m for m in after if m["method"] == LIST_CHANGED], \
        f"the conflict copy, which is no resource, was announced as a list change: {after}"
    _no_artefacts_notified(r, b)

    # Settled on B (merged): one more update; the copies go on both devices.
    mark = len(r.log)
    merged = "edit from A\nedit from B\n"
    b.result("resolveConflict", {"path": "clash.md", "mergedData": merged})
    r.wait_for(lambda m: m.get("method") == UPDATED and m["params"]["uri"] == uri, timeout=BOUND)
    assert _read(r, uri, modern=True) == merged

    def converged():
        if b.result("listConflicts", {})["conflicts"]:
            b.result("resolveConflict", {"path": "clash.md", "mergedData": merged})
            return False
        left = [p.name for d in (da, db) for p in d.iterdir() if ".sync-conflict-" in p.name]
        return not left and all((d / "clash.md").read_text() == merged for d in (da, db))
    wait_until(converged, 30, "both devices to converge on the merged content", interval=0.25)
    entries = r.tool("list_files", {"path": ""})["structuredContent"]["entries"]
    assert [e["state"] for e in entries if e["path"] == "clash.md"] == ["current"], entries
    _no_artefacts_notified(r, b)
    print(f"copies {copies}; test {time.monotonic() - t0:.1f}s")
