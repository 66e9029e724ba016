"""Synced settings (docs/protocol.md, "Synced settings"): settings/get, settings/set,
settings/remove and settings/didChange, against the real binary.

A "second device" is a second server on the same root with its own --config-dir (so its own
device id), or a device file written into .workspace/settings/ the way a sync engine delivers
one (temp file, then rename). Every message is checked against schema/openrpc.json by the harness.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from storage_helpers import Roots, choose, info, start, wait_until
from wsfiles import domain_error

CHANGED = "settings/didChange"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def settings_dir(root: Path) -> Path:
    return root / ".workspace" / "settings"


def device_files(root: Path) -> list[str]:
    d = settings_dir(root)
    return sorted(p.name for p in d.iterdir() if not p.name.startswith(".")) if d.is_dir() else []


def other_device(roots: Roots, name: str) -> Roots:
    """The same roots seen from another device (its own configuration folder, so its own id)."""
    return Roots(roots.base, roots.local, roots.cloud, roots.base / f"config-{name}")


def changes(b, timeout: float = 5.0, what: str = "settings/didChange") -> dict:
    """The next settings/didChange's params."""
    return b.take(lambda m: isinstance(m, dict) and m.get("method") == CHANGED, timeout, what)["params"]


def deliver(root: Path, device: str, entries: dict) -> None:
    """Writes another device's file as a sync engine does: a temp name no reader takes, then a rename."""
    d = settings_dir(root)
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / f".syncthing.{device}.json.tmp"
    tmp.write_text(json.dumps({"version": 1, "device": device, "entries": entries}))
    os.replace(tmp, d / f"{device}.json")


def entry(value, at: int, by: str, n: int = 0) -> dict:
    return {"value": value, "at": at, "n": n, "by": by}


FAR_FUTURE = 4_102_444_800_000  # 2100-01-01: later than any write these tests make


def test_set_get_and_remove_round_trip(spawn, tmp_path):
    b = start(spawn, Roots.under(tmp_path))
    assert b.result("settings/get", {}) == {"values": {}, "updatedAt": None}

    r = b.result("settings/set", {"values": {"darkMode": True, "textSize": 17, "languages": ["en", "fr"],
                                             "font": {"family": "Inter", "weight": 500}}})
    assert r == {"values": {"darkMode": True, "textSize": 17, "languages": ["en", "fr"],
                            "font": {"family": "Inter", "weight": 500}}}
    got = b.result("settings/get", {"keys": ["darkMode", "languages", "neverSet"]})
    assert got["values"] == {"darkMode": True, "languages": ["en", "fr"]}
    assert ISO.match(got["updatedAt"])

    r = b.result("settings/remove", {"keys": ["textSize", "neverSet"]})
    assert r == {"values": {"darkMode": True, "languages": ["en", "fr"], "font": {"family": "Inter", "weight": 500}}}
    assert "textSize" not in b.result("settings/get", {})["values"]


def test_settings_live_in_the_active_roots_private_folder_one_file_per_device(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    b.result("settings/set", {"values": {"k": 1}})
    [name] = device_files(roots.local)
    assert name.endswith(".json")
    assert json.loads((settings_dir(roots.local) / name).read_text())["entries"]["k"]["value"] == 1
    # Never shown as workspace files: clients cannot reach them except through settings/*.
    listed = b.result("listFiles", {"path": "", "recursive": True, "includeHidden": True})["entries"]
    assert not [e for e in listed if e["path"].startswith(".workspace/")]
    assert domain_error(b, "loadFile", {"path": f".workspace/settings/{name}"}, "PermissionDenied")


def test_limits_are_enforced_with_typed_errors_and_nothing_written(spawn, tmp_path):
    b = start(spawn, Roots.under(tmp_path))
    err = domain_error(b, "settings/set", {"values": {"é" * 32 + "x": 1}}, "InvalidArgument")
    assert err["data"]["key"] == "é" * 32 + "x" and err["data"]["limit"] == 64 and err["data"]["size"] == 65
    domain_error(b, "settings/set", {"values": {"": 1}}, "InvalidArgument")
    b.result("settings/set", {"values": {"é" * 32: "64 bytes is fine"}})

    b.result("settings/set", {"values": {f"k{i}": i for i in range(1023)}})
    err = domain_error(b, "settings/set", {"values": {"one": 1, "two": 2}}, "QuotaExceeded")
    assert err["data"] == {"code": "QuotaExceeded", "quota": "keys", "limit": 1024, "size": 1026}
    values = b.result("settings/get", {})["values"]
    assert len(values) == 1024 and "one" not in values

    b.result("settings/remove", {"keys": [f"k{i}" for i in range(1023)]})
    big = "x" * 700_000
    b.result("settings/set", {"values": {"a": big}})
    err = domain_error(b, "settings/set", {"values": {"b": big}}, "QuotaExceeded")
    assert err["data"]["quota"] == "bytes" and err["data"]["limit"] == 1_048_576 and err["data"]["size"] > 1_048_576
    assert sorted(b.result("settings/get", {})["values"]) == ["a", "é" * 32]


def test_a_null_value_is_invalid_params(spawn, tmp_path):
    b = start(spawn, Roots.under(tmp_path))
    err = b.error("settings/set", {"values": {"darkMode": None}})
    assert err["code"] == -32602 and err["data"]["field"] == "values.darkMode"
    err = b.error("settings/remove", {"keys": "darkMode"})
    assert err["code"] == -32602 and err["data"]["field"] == "keys"


def test_settings_survive_a_restart(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    first = start(spawn, roots)
    first.result("settings/set", {"values": {"theme": "solarized", "textSize": 15}})
    updated = first.result("settings/get", {})["updatedAt"]
    first.kill()

    second = start(spawn, roots)
    assert second.result("settings/get", {}) == {"values": {"theme": "solarized", "textSize": 15}, "updatedAt": updated}


def test_a_second_device_editing_other_keys_keeps_both_and_is_notified_as_remote(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    a = start(spawn, roots)
    b = start(spawn, other_device(roots, "b"))
    a.result("settings/set", {"values": {"fromA": "a"}})
    b.result("settings/set", {"values": {"fromB": "b"}})

    assert changes(a) == {"changed": {"fromB": "b"}, "source": "remote"}
    assert a.result("settings/get", {})["values"] == {"fromA": "a", "fromB": "b"}
    assert b.result("settings/get", {})["values"] == {"fromA": "a", "fromB": "b"}
    assert len(device_files(roots.local)) == 2


def test_the_same_key_on_two_devices_the_later_write_wins_everywhere(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    a = start(spawn, roots)
    b = start(spawn, other_device(roots, "b"))
    a.result("settings/set", {"values": {"theme": "light"}})
    b.result("settings/set", {"values": {"theme": "dark"}})
    assert changes(a) == {"changed": {"theme": "dark"}, "source": "remote"}
    assert a.result("settings/get", {"keys": ["theme"]})["values"] == {"theme": "dark"}

    # A write that arrives later but was made earlier (an offline device syncing up) loses.
    deliver(roots.local, "device-offline", {"theme": entry("sepia", 1_000, "device-offline")})
    a.assert_silent(0.5)
    assert a.result("settings/get", {"keys": ["theme"]})["values"] == {"theme": "dark"}
    # One made later wins, and is announced.
    deliver(roots.local, "device-offline", {"theme": entry("sepia", FAR_FUTURE, "device-offline")})
    assert changes(a) == {"changed": {"theme": "sepia"}, "source": "remote"}
    assert b.result("settings/get", {"keys": ["theme"]})["values"] == {"theme": "sepia"}


def test_a_removal_on_another_device_is_notified_as_null(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    a = start(spawn, roots)
    b = start(spawn, other_device(roots, "b"))
    a.result("settings/set", {"values": {"languages": ["en"], "keep": 1}})
    b.result("settings/remove", {"keys": ["languages"]})
    assert changes(a) == {"changed": {"languages": None}, "source": "remote"}
    assert a.result("settings/get", {})["values"] == {"keep": 1}


def test_a_change_by_another_process_on_this_device_is_notified_as_local(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    a = start(spawn, roots)
    a.result("settings/get", {})
    same_device = start(spawn, roots)   # same --config-dir: the same device id, the same file
    same_device.result("settings/set", {"values": {"textSize": 20}})
    assert changes(a) == {"changed": {"textSize": 20}, "source": "local"}
    a.result("settings/set", {"values": {"darkMode": True}})
    assert changes(same_device) == {"changed": {"darkMode": True}, "source": "local"}
    assert same_device.result("settings/get", {})["values"] == {"textSize": 20, "darkMode": True}


def test_a_connections_own_changes_are_not_echoed(spawn, tmp_path):
    b = start(spawn, Roots.under(tmp_path))
    b.result("settings/set", {"values": {"a": 1}})
    b.result("settings/remove", {"keys": ["a"]})
    b.result("settings/set", {"values": {"b": 2}})
    b.assert_silent(0.6)


def test_conflict_copies_of_a_device_file_are_merged_not_lost(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    a = start(spawn, roots)
    a.result("settings/set", {"values": {"mine": 1}})
    deliver(roots.local, "device-x", {"x1": entry("kept", 1_000, "device-x")})
    assert changes(a) == {"changed": {"x1": "kept"}, "source": "remote"}
    copy = settings_dir(roots.local) / "device-x.sync-conflict-20250101-101010-ABCDEFG.json"
    copy.write_text(json.dumps({"version": 1, "device": "device-x",
                                "entries": {"x2": entry("from the copy", 2_000, "device-x")}}))
    assert changes(a) == {"changed": {"x2": "from the copy"}, "source": "remote"}
    assert a.result("settings/get", {})["values"] == {"mine": 1, "x1": "kept", "x2": "from the copy"}


def test_migrate_moves_settings_with_the_workspace_and_merges_with_the_targets(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    b.result("settings/set", {"values": {"darkMode": True, "textSize": 14}})
    # The cloud already holds another device's settings: one key older than ours, one newer, one new.
    deliver(roots.cloud, "device-other", {"darkMode": entry(False, 1_000, "device-other"),
                                          "textSize": entry(22, FAR_FUTURE, "device-other"),
                                          "languages": entry(["de"], 1_000, "device-other")})

    r = b.result("migrate", {"to": "cloud", "mode": "move"}, timeout=60)
    assert r["switched"] and info(b)["storageType"] == "cloud"

    assert b.result("settings/get", {})["values"] == {"darkMode": True, "textSize": 22, "languages": ["de"]}
    assert device_files(roots.local) == []
    assert "device-other.json" in device_files(roots.cloud) and len(device_files(roots.cloud)) == 2
    # The other device's file was not rewritten: only this device writes its own.
    other = json.loads((settings_dir(roots.cloud) / "device-other.json").read_text())
    assert set(other["entries"]) == {"darkMode", "textSize", "languages"}


def test_settings_follow_the_storage_choice(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    b.result("settings/set", {"values": {"where": "local"}})
    choose(b, "cloud")
    assert b.result("settings/get", {})["values"] == {}
    b.result("settings/set", {"values": {"where": "cloud"}})
    assert device_files(roots.cloud) and device_files(roots.local)
    choose(b, "local")
    assert b.result("settings/get", {})["values"] == {"where": "local"}
