"""migrate carries the agent's data with the workspace (docs/protocol.md, "Storage", **migrate**):
sessions (journal, lease) and the offline queue arrive whole in the target before the choice
switches, so after a migration the same sessions, messages and queued work are there; where the
target already has a session, the fuller journal is kept and nothing acknowledged is lost.
"""
from __future__ import annotations

from sessions_helpers import all_messages, append, create
from storage_helpers import Roots, start


def sessions_dir(root):
    return root / ".workspace" / "sessions"


def arrange(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots, debug=False)
    return b, roots


def test_move_carries_sessions_and_the_queue_and_they_keep_working(spawn, tmp_path):
    b, roots = arrange(spawn, tmp_path)
    a = create(b, title="Research")["id"]
    c = create(b, title="Weekly summary")["id"]
    append(b, a, [{"role": "user", "content": f"question {i}"} for i in range(5)])
    append(b, c, [{"role": "user", "content": "summarise"}])
    queued = b.result("queue/enqueue", {"kind": "upload", "payload": {"k": 1}, "idempotencyKey": "up-1"})
    before = {s["id"]: s for s in b.result("session/list", {})["sessions"]}

    r = b.result("migrate", {"to": "cloud", "mode": "move"}, timeout=60)
    assert r["switched"] is True
    assert b.result("getStorageInfo", {})["storageType"] == "cloud"

    after = {s["id"]: s for s in b.result("session/list", {})["sessions"]}
    assert set(after) == set(before) == {a, c}
    assert after[a]["title"] == "Research" and after[a]["usage"] == before[a]["usage"]
    assert after[a]["updatedAt"] == before[a]["updatedAt"]
    assert [m["content"] for m in all_messages(b, a)] == [f"question {i}" for i in range(5)]
    assert [i["id"] for i in b.result("queue/list", {})["items"]] == [queued["id"]]
    # This device still owns them: they take new records at once.
    append(b, a, [{"role": "assistant", "content": "answer"}])
    assert all_messages(b, a)[-1]["content"] == "answer"
    # Moved, not copied: the local root no longer holds them.
    assert sorted(p.name for p in sessions_dir(roots.cloud).iterdir() if not p.name.startswith(".")) == sorted([a, c])
    assert not any(p.name in (a, c) for p in sessions_dir(roots.local).iterdir()) if sessions_dir(roots.local).exists() else True
    assert not (roots.local / ".workspace" / "queue").exists()
    # No staging folders are left anywhere.
    assert not [p for p in sessions_dir(roots.cloud).iterdir() if p.name.startswith(".")]


def test_migrating_back_keeps_the_fuller_journal(spawn, tmp_path):
    b, roots = arrange(spawn, tmp_path)
    a = create(b, title="Back and forth")["id"]
    append(b, a, [{"role": "user", "content": "one"}])
    b.result("migrate", {"to": "cloud", "mode": "copy"}, timeout=60)
    # The local root keeps its (now older) copy; the session grows in the cloud.
    assert (sessions_dir(roots.local) / a / "journal.jsonl").exists()
    append(b, a, [{"role": "user", "content": "two"}, {"role": "user", "content": "three"}])

    b.result("migrate", {"to": "local", "mode": "copy"}, timeout=60)
    assert b.result("getStorageInfo", {})["storageType"] == "local"
    assert [m["content"] for m in all_messages(b, a)] == ["one", "two", "three"]
    assert (sessions_dir(roots.local) / a / "journal.jsonl").read_bytes() == \
        (sessions_dir(roots.cloud) / a / "journal.jsonl").read_bytes()


def test_a_session_changed_in_both_roots_keeps_the_target_and_leaves_the_source(spawn, tmp_path):
    b, roots = arrange(spawn, tmp_path)
    a = create(b, title="Diverged")["id"]
    append(b, a, [{"role": "user", "content": "shared"}])
    b.result("migrate", {"to": "cloud", "mode": "copy"}, timeout=60)
    append(b, a, [{"role": "user", "content": "made in the cloud"}])
    # Meanwhile the local copy gains a record of its own (another device, before syncing).
    local_journal = sessions_dir(roots.local) / a / "journal.jsonl"
    cloud_journal = sessions_dir(roots.cloud) / a / "journal.jsonl"
    lines = cloud_journal.read_bytes().splitlines(keepends=True)
    local_journal.write_bytes(local_journal.read_bytes() + lines[-1].replace(b"made in the cloud", b"made elsewhere!!!"))
    local_before = local_journal.read_bytes()

    b.result("migrate", {"to": "local", "mode": "move"}, timeout=60)
    # The target (local) kept its journal; the source's (cloud) was not removed, even in move mode.
    assert local_journal.read_bytes() == local_before
    assert cloud_journal.exists()
