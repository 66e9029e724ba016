"""Agent sessions beyond the anchors (issue 17; docs/protocol.md, "Agent sessions"): fork,
auditable compaction, bounded retention, portable export and import, presets and prices, the
device policy applied to session/create and session/callTool, and approvals — each through the
real binary, every message checked against the schema by the harness.
"""
from __future__ import annotations

import hashlib
import json

import pytest

from sessions_helpers import (all_messages, append, b, create, domain_error, get, invalid_params,  # noqa: F401 (fixtures)
                              place, transition, usage)


def msgs(n: int, start: int = 1, size: int = 0) -> list[dict]:
    return [{"role": "user" if i % 2 else "assistant", "content": f"message {i} " + "x" * size, "id": f"m{i}"}
            for i in range(start, start + n)]


def ids(b, sid: str, **kw) -> list[str]:
    return [m["id"] for m in b.result("session/messages", {"id": sid, "limit": 10000, **kw}, 10.0)["messages"]]


# -- 1. fork --------------------------------------------------------------------------

def test_a_fork_holds_the_history_up_to_its_cut_and_both_sessions_go_on(b):
    sid = create(b, title="parent", metadata={"k": 1})["id"]
    append(b, sid, msgs(5))
    fork = b.result("session/fork", {"id": sid, "atMessageId": "m3", "title": "branch"})
    assert fork["parentId"] == sid and fork["forkedAt"]["messageId"] == "m3" and fork["forkedAt"]["parentId"] == sid
    assert fork["title"] == "branch" and fork["state"] == "idle" and fork["metadata"] == {"k": 1}
    assert ids(b, fork["id"]) == ["m1", "m2", "m3"]
    append(b, fork["id"], [{"role": "user", "content": "only in the fork", "id": "f1"}])
    append(b, sid, [{"role": "user", "content": "only in the parent", "id": "p6"}])
    assert ids(b, fork["id"]) == ["m1", "m2", "m3", "f1"]
    assert ids(b, sid) == ["m1", "m2", "m3", "m4", "m5", "p6"]
    listed = {s["id"]: s for s in b.result("session/list", {})["sessions"]}
    assert listed[fork["id"]]["parentId"] == sid and "parentId" not in listed[sid]
    assert get(b, fork["id"])["forkedAt"] == fork["forkedAt"]


def test_a_fork_leaves_tool_calls_after_its_cut_and_its_usage_behind(b, place):
    sid = create(b)["id"]
    transition(b, sid, "running")
    append(b, sid, msgs(2))
    usage(b, sid, 100, 10)
    b.result("session/callTool", {"id": sid, "toolCallId": "late", "name": "append_file",
                                  "arguments": {"path": "late.txt", "content": "x"}})
    append(b, sid, msgs(1, start=3))
    fork = b.result("session/fork", {"id": sid, "atMessageId": "m2"})
    assert fork["usage"]["turns"] == 0 and fork["pendingToolCalls"] == []
    # The call finished after the cut does not carry over: in the fork it would run again.
    transition(b, fork["id"], "running")
    b.result("session/callTool", {"id": fork["id"], "toolCallId": "late", "name": "append_file",
                                  "arguments": {"path": "late.txt", "content": "y"}})
    assert (place.root / "late.txt").read_text() == "xy"


def test_fork_errors_are_typed(b):
    sid = create(b)["id"]
    append(b, sid, msgs(1))
    domain_error(b, "session/fork", {"id": "sess_nope"}, "NotFound")
    domain_error(b, "session/fork", {"id": sid, "atMessageId": "m9"}, "InvalidArgument")
    invalid_params(b, "session/fork", {"id": sid, "atMessageId": 3})
    assert b.result("ping") == {}


# -- 2. compaction -------------------------------------------------------------------

def test_compaction_shows_the_summary_in_place_lists_who_and_when_and_undoes(b):
    sid = create(b)["id"]
    append(b, sid, msgs(6))
    c = b.result("session/compact", {"id": sid, "throughMessageId": "m4", "summary": "four messages", "by": "model-x"})
    assert (c["firstMessageId"], c["throughMessageId"], c["count"], c["by"], c["active"]) == ("m1", "m4", 4, "model-x", True)
    shown = b.result("session/messages", {"id": sid})["messages"]
    assert [m["id"] for m in shown] == [c["id"], "m5", "m6"]
    assert shown[0]["content"] == "four messages" and shown[0]["role"] == "system" and shown[0]["compaction"]["id"] == c["id"]
    full = b.result("session/messages", {"id": sid, "includeCompacted": True})["messages"]
    assert [m["id"] for m in full] == [c["id"], "m1", "m2", "m3", "m4", "m5", "m6"]
    assert all(m.get("compactedBy") == c["id"] for m in full[1:5])
    assert [x["id"] for x in get(b, sid)["compactions"]] == [c["id"]]
    undone = b.result("session/uncompact", {"id": sid, "compactionId": c["id"]})
    assert undone["active"] is False and "undoneAt" in undone
    assert ids(b, sid) == ["m1", "m2", "m3", "m4", "m5", "m6"]
    listed = get(b, sid)["compactions"]
    assert listed[0]["active"] is False and listed[0]["undoneAt"] == undone["undoneAt"]


def test_compaction_survives_a_kill_and_a_big_compaction_rewrites_the_journal(spawn, place):
    b = place.start(spawn)
    sid = create(b)["id"]
    for k in range(10):
        append(b, sid, msgs(100, start=1 + 100 * k, size=200))
    journal = place.sessions_dir / sid / "journal.jsonl"
    before = journal.stat().st_size
    c = b.result("session/compact", {"id": sid, "throughMessageId": "m990", "summary": "most of it", "by": "m"}, 20.0)
    b = place.restart(spawn, b)
    assert ids(b, sid) == [c["id"]] + [f"m{i}" for i in range(991, 1001)]
    assert journal.stat().st_size < before / 4, "the originals moved out of the journal"
    assert len(ids(b, sid, includeCompacted=True)) == 1 + 1000


def test_compaction_errors_are_typed(b):
    sid = create(b)["id"]
    append(b, sid, msgs(3))
    domain_error(b, "session/compact", {"id": sid, "throughMessageId": "zz", "summary": "s"}, "InvalidArgument")
    invalid_params(b, "session/compact", {"id": sid, "throughMessageId": "m2"})
    domain_error(b, "session/uncompact", {"id": sid, "compactionId": "cmp_none"}, "NotFound")


# -- 3. retention ---------------------------------------------------------------------

def test_retention_is_set_read_applied_and_reported_in_bytes_on_disk(b, place):
    assert b.result("session/getRetention", {}) == {}
    sid = create(b)["id"]
    for k in range(10):
        append(b, sid, msgs(100, start=1 + 100 * k, size=400))
    big = get(b, sid)["bytesOnDisk"]
    assert big > 400_000
    got = b.result("session/setRetention", {"maxBytesPerSession": 131072, "keepEndedSessions": 5}, 30.0)
    assert got["policy"] == {"maxBytesPerSession": 131072, "keepEndedSessions": 5}
    assert [s["id"] for s in got["pruned"]["sessions"]] == [sid]
    assert b.result("session/getRetention", {}) == got["policy"]
    after = get(b, sid)["bytesOnDisk"]
    assert after <= 131072, after
    on_disk = sum(f.stat().st_size for f in (place.sessions_dir / sid).iterdir()
                  if f.is_file() and f.name != "listing.json")  # the listing cache is not counted
    assert on_disk == after
    listed = b.result("session/list", {"withBytesOnDisk": True})["sessions"]
    assert [s["bytesOnDisk"] for s in listed if s["id"] == sid] == [after]
    assert all("bytesOnDisk" not in s for s in b.result("session/list", {})["sessions"])
    shown = ids(b, sid)
    assert shown[-1] == "m1000"  # the last message always stays
    assert get(b, sid)["compactions"][0]["by"] == "retention"
    # Appends keep it bounded without an explicit prune.
    for k in range(10, 16):
        append(b, sid, msgs(100, start=1 + 100 * k, size=400))
    assert get(b, sid)["bytesOnDisk"] <= 131072 * 1.25 + 4096
    assert b.result("session/prune", {}) is not None
    invalid_params(b, "session/setRetention", {"maxBytesPerSession": 10})
    invalid_params(b, "session/setRetention", {"keepEndedSessions": "all"})


def test_ended_sessions_beyond_the_limit_are_pruned(b):
    ended = []
    for i in range(4):
        sid = create(b, title=f"s{i}")["id"]
        transition(b, sid, "running")
        transition(b, sid, "completed")
        ended.append(sid)
    live = create(b)["id"]
    got = b.result("session/setRetention", {"keepEndedSessions": 2})
    assert sorted(got["pruned"]["deletedSessions"]) == sorted(ended[:2])
    left = {s["id"] for s in b.result("session/list", {})["sessions"]}
    assert left == {live, *ended[2:]}


# -- 4. export / import ---------------------------------------------------------------

def test_export_writes_chats_file_and_import_round_trips_exactly(b, place):
    sid = create(b, title="trip", metadata={"seed": True})["id"]
    transition(b, sid, "running")
    append(b, sid, msgs(5))
    usage(b, sid, 1000, 100, model="claude-3-haiku-20240307")
    b.result("session/callTool", {"id": sid, "toolCallId": "c1", "name": "write_file",
                                  "arguments": {"path": "n.txt", "content": "hi"}})
    c = b.result("session/compact", {"id": sid, "throughMessageId": "m2", "summary": "hello", "by": "m"})
    out = b.result("session/export", {"id": sid})
    f = place.root / "Chats" / f"{sid}.json"
    assert out["path"] == f"Chats/{sid}.json" and out["bytes"] == f.stat().st_size
    assert out["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    doc = json.loads(f.read_text())
    assert doc["format"] == "workspace-bridge.session" and doc["version"] == 1 and doc["checksum"]["algorithm"] == "sha256"
    b.result("session/delete", {"id": sid})
    imported = b.result("session/import", {"path": f"Chats/{sid}.json"})
    assert "replacedId" not in imported and imported["session"]["id"] == sid  # the id is free again: kept
    s = imported["session"]
    assert s["usage"]["turns"] == 1 and s["metadata"] == {"seed": True} and s["compactions"][0]["id"] == c["id"]
    assert ids(b, sid) == [c["id"], "m3", "m4", "m5"]
    # The replayed call returns its recorded result: it does not run again.
    again = b.result("session/callTool", {"id": sid, "toolCallId": "c1", "name": "write_file",
                                          "arguments": {"path": "n.txt", "content": "CHANGED"}})
    assert again["isError"] is False and (place.root / "n.txt").read_text() == "hi"
    second = b.result("session/export", {"id": sid, "path": "Backups/again.json"})
    doc2 = json.loads((place.root / "Backups/again.json").read_text())
    doc.pop("checksum"), doc2.pop("checksum")
    assert doc == doc2 and second["path"] == "Backups/again.json"
    copy = b.result("session/import", {"path": "Backups/again.json"})
    assert copy["replacedId"] == sid and copy["session"]["id"] != sid


@pytest.mark.parametrize("content,reason", [
    (b"not json at all", "damaged"),
    (b'{"format": "something-else", "version": 1}', "foreign"),
    (b'{"format": "workspace-bridge.session", "version": 9}', "unsupportedVersion"),
])
def test_a_damaged_or_foreign_file_is_refused_and_nothing_is_imported(b, place, content, reason):
    (place.root / "bad.json").write_bytes(content)
    before = b.result("session/list", {})["sessions"]
    err = domain_error(b, "session/import", {"path": "bad.json"}, "InvalidArgument")
    assert err["data"]["reason"] == reason
    assert b.result("session/list", {})["sessions"] == before


def test_a_tampered_export_fails_its_checksum(b, place):
    sid = create(b)["id"]
    append(b, sid, msgs(3))
    out = b.result("session/export", {"id": sid, "path": "x.json"})
    f = place.root / "x.json"
    f.write_bytes(f.read_bytes().replace(b"message 2", b"message X"))
    assert domain_error(b, "session/import", {"path": "x.json"}, "InvalidArgument")["data"]["reason"] == "damaged"
    assert len(b.result("session/list", {})["sessions"]) == 1
    domain_error(b, "session/import", {"path": "../outside.json"}, "OutsideWorkspace")
    domain_error(b, "session/import", {"path": "nope.json"}, "NotFound")
    domain_error(b, "session/export", {"id": sid, "path": "../x.json"}, "OutsideWorkspace")
    assert out["bytes"] > 0


# -- 5. presets and prices -------------------------------------------------------------

def test_presets_and_agent_types_resolve_to_the_seeds_numbers(b):
    r = create(b, preset="research")["config"]
    assert r == {"modelTier": "balanced", "maxInputTokens": 50000, "maxOutputTokens": 4000, "maxTurns": 20}
    q = create(b, preset="quickChat", config={"maxTurns": 7})["config"]
    assert q == {"modelTier": "fast", "maxInputTokens": 10000, "maxOutputTokens": 1000, "maxTurns": 7}
    for agent, tier in [("quickLookup", "fast"), ("chatAssistant", "balanced"), ("researchAgent", "balanced"),
                        ("introductionWriter", "balanced"), ("profileGenerator", "powerful")]:
        assert create(b, agentType=agent)["config"]["modelTier"] == tier, agent
    invalid_params(b, "session/create", {"preset": "marathon"})


def test_the_seed_models_are_priced_and_an_unknown_model_is_reported_unpriced(b):
    sid = create(b)["id"]
    transition(b, sid, "running")
    haiku = usage(b, sid, 1_000_000, 0, model="claude-3-haiku-20240307")
    assert haiku["usage"]["estimatedCostUSD"] == pytest.approx(0.25)
    opus = usage(b, sid, 1_000_000, 0, model="claude-3-opus-20240229")
    assert opus["usage"]["estimatedCostUSD"] == pytest.approx(15.25)
    assert "unpricedModel" not in opus
    unknown = usage(b, sid, 1_000_000, 0, model="some-new-model")
    assert unknown["usage"]["estimatedCostUSD"] == pytest.approx(15.25) and unknown["unpricedModel"] == "some-new-model"
    assert unknown["usage"]["turns"] == 3


# -- 6. device policy ------------------------------------------------------------------

def test_low_power_mode_caps_the_tier_of_a_new_session(b):
    b.result("host/setConditions", {"network": "wifi", "isLowPowerMode": True})
    assert create(b, preset="research", userConfirmed=True)["config"]["modelTier"] == "fast"
    assert create(b, agentType="profileGenerator")["config"]["modelTier"] == "fast"


def test_a_research_session_on_an_expensive_network_is_deferred_unless_confirmed(b):
    b.result("host/setConditions", {"network": "cellular", "isExpensive": True})
    err = domain_error(b, "session/create", {"preset": "research"}, "Deferred")
    assert err["data"] == {"code": "Deferred", "reason": "expensiveNetwork", "queued": False, "confirmable": True}
    assert b.result("session/list", {})["sessions"] == []
    assert create(b, preset="research", userConfirmed=True)["config"]["modelTier"] == "balanced"
    assert create(b, preset="quickChat")["config"]["modelTier"] == "fast"  # light work is not deferred


@pytest.mark.parametrize("conditions,reason", [
    ({"network": "wifi", "batteryLevel": 0.1, "isCharging": False}, "lowBattery"),
    ({"network": "wifi", "thermalState": "serious"}, "thermal"),
    ({"network": "wifi", "thermalState": "critical"}, "thermal"),
])
def test_heavy_tools_are_deferred_visible_and_resume_when_conditions_allow(b, place, conditions, reason):
    tools = {t["name"]: t for t in b.result("agent/listTools", {})}
    assert tools["search_files"]["heavy"] is True and tools["read_file"]["heavy"] is False
    (place.root / "notes.txt").write_text("Lisbon in May\n")
    sid = create(b)["id"]
    transition(b, sid, "running")
    b.result("host/setConditions", conditions)
    call = {"id": sid, "toolCallId": "s1", "name": "search_files", "arguments": {"query": "Lisbon"}}
    err = domain_error(b, "session/callTool", call, "Deferred")
    assert err["data"] == {"code": "Deferred", "reason": reason, "queued": True, "confirmable": True}
    assert [(d["toolCallId"], d["reason"]) for d in get(b, sid)["deferredToolCalls"]] == [("s1", reason)]
    listed = b.result("session/listDeferred", {})["calls"]
    assert [(c["sessionId"], c["toolCallId"], c["runnableNow"]) for c in listed] == [(sid, "s1", False)]
    # Light tools still run.
    assert b.result("session/callTool", {"id": sid, "toolCallId": "r1", "name": "read_file",
                                         "arguments": {"path": "notes.txt"}})["isError"] is False
    b.notifications()
    b.result("host/setConditions", {"network": "wifi", "batteryLevel": 0.9})
    ready = b.pump_until(lambda: b.notifications("session/deferredReady"), 5.0, "session/deferredReady")
    assert [(c["sessionId"], c["toolCallId"], c["runnableNow"]) for c in ready[0]["params"]["calls"]] == [(sid, "s1", True)]
    b.result("host/setConditions", {"network": "wifi", "batteryLevel": 0.8})
    b.settle(0.2)
    assert b.notifications("session/deferredReady") == []  # announced once, when it became runnable
    assert b.result("session/listDeferred", {})["calls"][0]["runnableNow"] is True
    done = b.result("session/callTool", call)
    assert done["isError"] is False and done["structuredContent"]["matches"]
    assert "deferredToolCalls" not in get(b, sid)


def test_the_user_confirmation_runs_deferred_heavy_work_and_survives_a_kill(spawn, place):
    b = place.start(spawn)
    sid = create(b)["id"]
    transition(b, sid, "running")
    b.result("host/setConditions", {"network": "wifi", "batteryLevel": 0.05, "isCharging": False})
    call = {"id": sid, "toolCallId": "s2", "name": "search_files", "arguments": {"query": "x"}}
    domain_error(b, "session/callTool", call, "Deferred")
    b = place.restart(spawn, b)
    assert [d["toolCallId"] for d in get(b, sid)["deferredToolCalls"]] == ["s2"]
    b.result("host/setConditions", {"network": "wifi", "batteryLevel": 0.05, "isCharging": False})
    assert b.result("session/callTool", {**call, "userConfirmed": True})["isError"] is False


# -- 7. approvals -------------------------------------------------------------------------

def test_without_a_policy_nothing_asks(b, place):
    sid = create(b)["id"]
    transition(b, sid, "running")
    r = b.result("session/callTool", {"id": sid, "toolCallId": "d0", "name": "write_file",
                                      "arguments": {"path": "a.txt", "content": "x"}})
    assert r["isError"] is False and "approvalPolicy" not in get(b, sid)


def test_a_destructive_call_waits_for_consent_survives_a_kill_and_runs_once_allowed(spawn, place):
    b = place.start(spawn)
    (place.root / "old.md").write_text("old")
    sid = create(b, approvalPolicy="destructive")["id"]
    transition(b, sid, "running")
    assert get(b, sid)["approvalPolicy"] == "destructive"
    call = {"id": sid, "toolCallId": "d1", "name": "delete_file", "arguments": {"path": "old.md"}}
    pending = b.result("session/callTool", call)["pendingApproval"]
    assert pending["toolCallId"] == "d1" and pending["approvalId"].startswith("apr_") and "decision" not in pending
    assert (place.root / "old.md").exists(), "nothing ran"
    # A read-only tool needs no consent under "destructive".
    assert b.result("session/callTool", {"id": sid, "toolCallId": "r", "name": "read_file",
                                         "arguments": {"path": "old.md"}})["isError"] is False
    b = place.restart(spawn, b)
    resumed = b.result("session/resume", {"id": sid})
    assert [a["approvalId"] for a in resumed["session"]["pendingApprovals"]] == [pending["approvalId"]]
    assert b.result("session/callTool", call)["pendingApproval"]["approvalId"] == pending["approvalId"]
    answer = b.result("session/approve", {"id": sid, "toolCallId": "d1", "decision": "allow"})
    assert answer["approval"]["decision"] == "allow" and answer["result"]["isError"] is False
    assert not (place.root / "old.md").exists()
    assert "pendingApprovals" not in get(b, sid)
    assert b.result("session/callTool", call) == answer["result"]  # recorded: not run again
    domain_error(b, "session/approve", {"id": sid, "toolCallId": "d1", "decision": "deny"}, "InvalidArgument")


def test_a_denied_call_is_refused_and_remember_applies_to_later_calls(b, place):
    (place.root / "keep.md").write_text("keep")
    sid = create(b)["id"]
    transition(b, sid, "running")
    s = b.result("session/setApprovalPolicy", {"id": sid, "approvalPolicy": {"tools": ["delete_file"]}})
    assert s["approvalPolicy"] == {"tools": ["delete_file"], "annotations": []}
    call = {"id": sid, "toolCallId": "x1", "name": "delete_file", "arguments": {"path": "keep.md"}}
    assert "pendingApproval" in b.result("session/callTool", call)
    answer = b.result("session/approve", {"id": sid, "toolCallId": "x1", "decision": "deny", "remember": True})
    assert answer["result"]["isError"] is True and answer["result"]["structuredContent"]["code"] == "ApprovalDenied"
    assert (place.root / "keep.md").exists()
    assert b.result("session/callTool", call)["structuredContent"]["code"] == "ApprovalDenied"
    later = b.result("session/callTool", {**call, "toolCallId": "x2"})
    assert later["isError"] is True and later["structuredContent"]["code"] == "ApprovalDenied"  # remembered
    assert (place.root / "keep.md").exists()


def test_approval_errors_are_typed(b):
    sid = create(b)["id"]
    invalid_params(b, "session/create", {"approvalPolicy": "sometimes"})
    invalid_params(b, "session/setApprovalPolicy", {"id": sid, "approvalPolicy": {"annotations": ["loud"]}})
    invalid_params(b, "session/approve", {"id": sid, "toolCallId": "a", "decision": "maybe"})
    domain_error(b, "session/approve", {"id": sid, "toolCallId": "never-asked", "decision": "allow"}, "NotFound")
    assert b.result("ping") == {}


def test_a_model_the_user_adds_to_pricing_json_is_priced(spawn, place):
    place.config.mkdir(parents=True, exist_ok=True)
    (place.config / "pricing.json").write_text(json.dumps({"models": {"my-local-model": {"input": 1.0, "output": 2.0}}}))
    b = place.start(spawn)
    sid = create(b)["id"]
    transition(b, sid, "running")
    r = usage(b, sid, 1_000_000, 1_000_000, model="my-local-model")
    assert r["usage"]["estimatedCostUSD"] == pytest.approx(3.0) and "unpricedModel" not in r
