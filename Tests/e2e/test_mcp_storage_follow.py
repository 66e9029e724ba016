"""MCP subscriptions follow the workspace to a newly chosen storage root (issue 16).

The storage is chosen through the JSON-RPC face (`chooseStorage`; the MCP face has no storage
tool), here by a second process on the same --local-root, --cloud-root and --config-dir: the
app choosing the cloud while an agent's `workspace-bridge mcp` runs. The MCP process notices the
new choice (its settings file changed), and each subscription moves to the same workspace-relative
path in the new root: it is reported updated under its URI there at once, a later change in the
new root arrives, and a change in the old root no longer does. docs/decisions.md, "MCP
subscriptions follow the storage (issue 16)".
"""
from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("mcp")

from mcp_helpers import file_uri, place, raw  # noqa: E402,F401  (fixtures)
from mcp_modern import SUB, rawm  # noqa: E402,F401  (fixture)
from storage_helpers import Roots, choose, start, wait_until  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")   # resources/subscribe: a 2025 feature

REL = "notes/plan.md"
MOVE_TIMEOUT = 10.0


def _roots(place) -> Roots:
    """The MCP fixtures' root and config folder, plus a cloud root beside them."""
    r = Roots(place.tmp, place.root, place.tmp / "cloud", place.cfg)
    r.cloud.mkdir(parents=True, exist_ok=True)
    return r


def _seed(roots: Roots) -> None:
    """The same relative file in both roots, with different content."""
    for where in ("local", "cloud"):
        f = roots.root(where) / REL
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"plan in {where}\n")


def _updates(r, since: int) -> list[dict]:
    return [m for _, m in r.log[since:] if m.get("method") == "notifications/resources/updated"]


def _no_update_for(r, uri: str, seconds: float, since: int) -> None:
    r.drain(seconds)
    stale = [m for m in _updates(r, since) if m["params"]["uri"] == uri]
    assert not stale, f"a notification for {uri} after the move: {stale}"


def test_resources_subscribe_follows_chooseStorage_to_the_same_path_in_the_new_root(spawn, raw, place):
    roots = _roots(place)
    app = start(spawn, roots)                       # the JSON-RPC face: creates the local root
    _seed(roots)
    m = raw(extra=("--cloud-root", str(roots.cloud)))
    m.initialize()
    old_uri, new_uri = file_uri(roots.local, REL), file_uri(roots.cloud, REL)
    assert m.result("resources/subscribe", {"uri": old_uri}) == {}
    with open(roots.local / REL, "a") as f:        # watched before the move: heard
        f.write("before\n")
    upd = m.wait_for(lambda x: x.get("method") == "notifications/resources/updated", timeout=5)
    assert upd["params"]["uri"] == old_uri, upd

    choose(app, "cloud")
    # The move itself is reported: the subscribed path's content is now the cloud's, under its new URI.
    moved = m.wait_for(lambda x: x.get("method") == "notifications/resources/updated"
                       and x["params"]["uri"] == new_uri, timeout=MOVE_TIMEOUT)
    assert moved["params"] == {"uri": new_uri}, moved
    read = m.result("resources/read", {"uri": new_uri})
    assert read["contents"][0]["text"] == "plan in cloud\n", read
    # Tools act on the new root too, journaled in a session there (the one opened at initialize stays behind).
    called = m.result("tools/call", {"name": "read_file", "arguments": {"path": REL}})
    assert not called.get("isError") and called["structuredContent"]["data"] == "plan in cloud\n", called

    mark = len(m.log)
    with open(roots.local / REL, "a") as f:        # the old root: no longer the workspace
        f.write("old root\n")
    time.sleep(0.3)
    with open(roots.cloud / REL, "a") as f:        # the new root: heard, under the new URI
        f.write("new root\n")
    upd = m.wait_for(lambda x: x.get("method") == "notifications/resources/updated", timeout=5)
    assert upd["params"] == {"uri": new_uri}, upd
    _no_update_for(m, old_uri, 0.7, mark)

    # The subscription can still be ended with the URI it was made with.
    assert m.result("resources/unsubscribe", {"uri": old_uri}) == {}
    mark = len(m.log)
    with open(roots.cloud / REL, "a") as f:
        f.write("after unsubscribe\n")
    m.drain(0.8)
    assert not _updates(m, mark), f"updates after unsubscribe: {_updates(m, mark)}"


def test_listen_follows_chooseStorage_and_reports_the_list_changed(spawn, rawm, place):
    roots = _roots(place)
    app = start(spawn, roots)
    _seed(roots)
    r = rawm(extra=("--cloud-root", str(roots.cloud)))
    old_uri, new_uri = file_uri(roots.local, REL), file_uri(roots.cloud, REL)
    r.mreq("subscriptions/listen", {"notifications": {"resourceSubscriptions": [old_uri], "resourcesListChanged": True}},
           id="follow")
    ack = r.wait_for(lambda x: x.get("method") == "notifications/subscriptions/acknowledged", timeout=5)
    assert ack["params"]["notifications"] == {"resourceSubscriptions": [old_uri], "resourcesListChanged": True}, ack

    mark = len(r.log)
    choose(app, "cloud")
    moved = r.wait_for(lambda x: x.get("method") == "notifications/resources/updated"
                       and x["params"]["uri"] == new_uri, timeout=MOVE_TIMEOUT)
    assert moved["params"]["_meta"][SUB] == "follow", moved
    listed = r.wait_for(lambda x: x.get("method") == "notifications/resources/list_changed", timeout=5)
    assert listed["params"]["_meta"][SUB] == "follow", listed
    assert r.tool("read_file", {"path": REL})["structuredContent"]["data"] == "plan in cloud\n"

    mark = len(r.log)
    with open(roots.local / REL, "a") as f:
        f.write("old root\n")
    (roots.local / "notes/new-in-old.md").write_text("x")    # no list change from the old root either
    time.sleep(0.3)
    with open(roots.cloud / REL, "a") as f:
        f.write("new root\n")
    upd = r.wait_for(lambda x: x.get("method") == "notifications/resources/updated", timeout=5)
    assert upd["params"]["uri"] == new_uri and upd["params"]["_meta"][SUB] == "follow", upd
    r.drain(0.7)
    after = [x for _, x in r.log[mark:] if (x.get("params") or {}).get("_meta", {}).get(SUB) == "follow"]
    assert [x["params"]["uri"] for x in after] == [new_uri], f"only the new root's change may arrive: {after}"

    # A new file in the new root changes the list.
    (roots.cloud / "notes/new-in-cloud.md").write_text("x")
    listed = r.wait_for(lambda x: x.get("method") == "notifications/resources/list_changed", timeout=5)
    assert listed["params"]["_meta"][SUB] == "follow", listed
    # The listen request is still open (not answered by the move).
    assert not [x for _, x in r.log if x.get("id") == "follow"]


def test_back_to_local_follows_again(spawn, raw, place):
    """Choosing twice: the subscription follows each move, and never hears the root it left."""
    roots = _roots(place)
    app = start(spawn, roots)
    _seed(roots)
    m = raw(extra=("--cloud-root", str(roots.cloud)))
    m.initialize()
    local_uri, cloud_uri = file_uri(roots.local, REL), file_uri(roots.cloud, REL)
    m.result("resources/subscribe", {"uri": local_uri})
    choose(app, "cloud")
    m.wait_for(lambda x: x.get("method") == "notifications/resources/updated" and x["params"]["uri"] == cloud_uri,
               timeout=MOVE_TIMEOUT)
    choose(app, "local")
    m.wait_for(lambda x: x.get("method") == "notifications/resources/updated" and x["params"]["uri"] == local_uri,
               timeout=MOVE_TIMEOUT)
    mark = len(m.log)
    with open(roots.cloud / REL, "a") as f:
        f.write("cloud, left\n")
    time.sleep(0.3)
    with open(roots.local / REL, "a") as f:
        f.write("local again\n")
    upd = m.wait_for(lambda x: x.get("method") == "notifications/resources/updated", timeout=5)
    assert upd["params"] == {"uri": local_uri}, upd
    _no_update_for(m, cloud_uri, 0.7, mark)


def test_after_migrate_tool_calls_stay_in_the_same_session_in_the_new_root(spawn, raw, place):
    """`migrate` copies the sessions along: the MCP session named at initialize keeps journaling, now in the cloud."""
    from mcp_helpers import session_id_of
    roots = _roots(place)
    app = start(spawn, roots)
    m = raw(extra=("--cloud-root", str(roots.cloud)))
    sid = session_id_of(m.initialize())
    m.result("tools/call", {"name": "write_file", "arguments": {"path": REL, "content": "before the move\n"}})
    old_uri, new_uri = file_uri(roots.local, REL), file_uri(roots.cloud, REL)
    m.result("resources/subscribe", {"uri": old_uri})

    report = app.result("migrate", {"to": "cloud"}, timeout=30)
    assert report["switched"] is True, report
    m.wait_for(lambda x: x.get("method") == "notifications/resources/updated" and x["params"]["uri"] == new_uri,
               timeout=MOVE_TIMEOUT)
    called = m.result("tools/call", {"name": "append_file", "arguments": {"path": REL, "content": "after\n"}})
    assert not called.get("isError"), called
    assert (roots.cloud / REL).read_text() == "before the move\nafter\n"
    journal = (roots.cloud / ".workspace" / "sessions" / sid).rglob("*")
    text = "".join(p.read_text(errors="replace") for p in journal if p.is_file())
    assert "append_file" in text, f"session {sid} in the cloud root has no journal of the call after the move"


def _journal_records(session_dir) -> list[dict]:
    """The records of a session's journal (each line: a checksum, a space, the JSON record)."""
    lines = (session_dir / "journal.jsonl").read_text().splitlines()
    return [json.loads(line.split(" ", 1)[1]) for line in lines if line.strip()]


def test_a_storage_switch_keeps_the_consent_rule_and_ends_the_session_left_behind(spawn, rawm, place):
    """The session opened in the new root takes the old one's approval policy (a switch must never
    drop a consent rule), and the process's own session in the root it left is ended as at exit."""
    roots = _roots(place)
    app = start(spawn, roots)
    _seed(roots)
    r = rawm(extra=("--cloud-root", str(roots.cloud), "--approval-policy", "destructive"))
    assert r.tool("read_file", {"path": REL})["structuredContent"]["data"] == "plan in local\n"
    left = [d for d in (roots.local / ".workspace" / "sessions").iterdir() if d.is_dir()]
    assert len(left) == 1, left

    choose(app, "cloud")
    wait_until(lambda: r.tool("read_file", {"path": REL})["structuredContent"]["data"] == "plan in cloud\n",
               MOVE_TIMEOUT, "the MCP process to follow the choice")
    refused = r.tool("delete_file", {"path": REL})
    assert refused["isError"] and refused["structuredContent"]["code"] == "ApprovalRequired", refused
    assert (roots.cloud / REL).exists(), "a destructive call ran without consent after the switch"

    # The session left behind journaled a read: it is completed, not left running (the process
    # ends it on the thread that follows the switch, just after calls move to the new session).
    def states():
        return [x["to"] for x in _journal_records(left[0]) if x.get("t") == "state"]
    wait_until(lambda: states()[-1] == "completed", 5, "the session left behind to be ended")
    assert states()[-1] == "completed", states()
