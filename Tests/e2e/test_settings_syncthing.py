"""Synced settings between two real devices kept in sync by Syncthing (Debian's package), on loopback.

Reuses test_syncthing's fixtures: two Syncthing devices sharing folder `ws`, and a bridge on each
with its cloud root on that device's folder, cloud chosen. Then:
- a setting made through A's bridge reaches a client of B's bridge as settings/didChange with
  source "remote";
- with both devices paused, A and B each set keys, both the same key (B's write later) and
  different ones; after resuming, both devices converge on the union with B's value for the
  shared key, and Syncthing made no conflict copy (each device writes only its own file).

Skipped, like test_syncthing, when Syncthing cannot be installed.
"""
from __future__ import annotations

import time

from storage_helpers import wait_until
from test_syncthing import _connected, bridges, devices, rest  # noqa: F401  (fixtures)

CHANGED = "settings/didChange"


def _settings_changes(b, key):
    def found():
        for e in b.inbox:
            m = e.msg
            if isinstance(m, dict) and m.get("method") == CHANGED and key in m["params"]["changed"]:
                return e
        return None
    return found


def _conflict_copies(root):
    d = root / ".workspace" / "settings"
    return [p.name for p in d.iterdir() if ".sync-conflict-" in p.name] if d.is_dir() else []


def test_a_setting_made_on_device_a_reaches_a_client_on_device_b_as_a_remote_change(bridges):
    a, b = bridges
    b.result("settings/get", {})          # B's client reads its settings at launch: notifications start
    b.settle(0.2)
    b.notifications(CHANGED)

    set_at = time.monotonic()
    a.result("settings/set", {"values": {"darkMode": True, "languages": ["en", "fr"]}})
    e = b.pump_until(_settings_changes(b, "darkMode"), 20.0, "settings/didChange for darkMode on device B")

    print(f"settings propagation A -> B client: {e.t - set_at:.2f}s")
    assert e.msg["params"]["source"] == "remote"
    assert e.msg["params"]["changed"]["darkMode"] is True
    got = b.result("settings/get", {"keys": ["darkMode", "languages"]})["values"]
    assert got == {"darkMode": True, "languages": ["en", "fr"]}


def test_edits_made_apart_merge_per_key_without_conflict_copies(bridges):
    a, b = bridges
    for x in (a, b):
        x.result("settings/get", {})
    a.result("settings/set", {"values": {"theme": "base"}})
    wait_until(lambda: b.result("settings/get", {"keys": ["theme"]})["values"] == {"theme": "base"}, 20,
               "the base theme on device B")

    for d in ("a", "b"):
        rest(d, "POST", "/rest/system/pause")
    wait_until(lambda: not _connected("a") and not _connected("b"), 15, "both devices paused")
    a.result("settings/set", {"values": {"theme": "light", "fromA": 1}})
    time.sleep(0.05)  # B's write of theme is the later one
    b.result("settings/set", {"values": {"theme": "dark", "fromB": 2}})
    time.sleep(1.5)   # let each device's watcher record its local edit
    for d in ("a", "b"):
        rest(d, "POST", "/rest/system/resume")

    want = {"theme": "dark", "fromA": 1, "fromB": 2}

    def converged():
        va = a.result("settings/get", {"keys": list(want)})["values"]
        vb = b.result("settings/get", {"keys": list(want)})["values"]
        return va == want and vb == want

    # A's client is told first: a settings/get that already showed it B's keys would (by design)
    # leave nothing to notify, so A's values are only read once the notification is in.
    e = a.pump_until(_settings_changes(a, "fromB"), 45.0, "A told of B's keys")
    assert e.msg["params"]["source"] == "remote" and e.msg["params"]["changed"]["theme"] == "dark"
    wait_until(converged, 45, "both devices to merge the settings", interval=0.25)
    time.sleep(2)     # anything Syncthing would still do has had time to land
    assert _conflict_copies(a.roots.cloud) == [] and _conflict_copies(b.roots.cloud) == []
