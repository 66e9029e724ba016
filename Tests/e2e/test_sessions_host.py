"""Host lifecycle, device conditions and the offline queue (docs/protocol.md, "Agent sessions":
Host lifecycle, Conditions, Offline queue).

host/didEnterBackground with 100 running sessions is timed with the release binary
(.build/release/workspace-bridge) when it exists; a debug build is measured but not held to the
1 s target.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bridge import REPO, Bridge
from sessions_helpers import (PATH_TO, Place, b, create, domain_error, drive, get, invalid_params,  # noqa: F401 (fixtures)
                              pipeline, place, results, state_changes)

RELEASE_BIN = REPO / ".build" / "release" / "workspace-bridge"
BACKGROUND_TARGET_S = 1.0


@pytest.fixture
def start_with(contract, tmp_path):
    """start_with(place, binary) -> an initialized Bridge on `binary` (killed at teardown)."""
    bridges: list[Bridge] = []

    def _start(place: Place, binary: Path) -> Bridge:
        b = Bridge(place.argv(), "ndjson", contract, tmp_path / f"stderr-bin-{len(bridges)}.log", binary=binary,
                   env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg-data")})
        bridges.append(b)
        b.initialize()
        b.place = place
        return b

    yield _start
    for b in bridges:
        b.kill()


def make_sessions(b: Bridge, count: int, state: str) -> list[str]:
    ids = [s["id"] for s in results(pipeline(b, [("session/create", {"title": f"{state} {i}"}) for i in range(count)]))]
    for to in PATH_TO[state]:
        results(pipeline(b, [("session/transition", {"id": sid, "to": to}) for sid in ids]))
    return ids


# -- host/didEnterBackground and willEnterForeground --------------------------------

def test_entering_the_background_with_100_running_sessions_is_fast_and_durable(spawn, start_with, place,
                                                                                  binary, request):
    release = RELEASE_BIN.is_file() and os.access(RELEASE_BIN, os.X_OK)
    b = start_with(place, RELEASE_BIN if release else binary)
    running = make_sessions(b, 100, "running")
    others = {st: make_sessions(b, 2, st) for st in ("idle", "completed", "failed", "backgrounded")}
    b.settle(0.2)
    b.notifications("session/didChangeState")

    t0 = time.monotonic()
    rid = b.request("host/didEnterBackground", {})
    entry = b.response_entry(rid, 30.0)
    elapsed = entry.t - t0

    request.node.user_properties.append(("didEnterBackground_100_s", elapsed))
    print(f"\nhost/didEnterBackground with 100 running sessions: {elapsed * 1000:.1f} ms "
          f"({'release' if release else 'debug'} build {b.binary})")
    assert "result" in entry.msg, entry.msg
    moved = entry.msg["result"]["sessions"]
    assert sorted(s["id"] for s in moved) == sorted(running)
    assert all(s["state"] == "backgrounded" for s in moved)
    notes = state_changes(b, 100)
    assert sorted(n["id"] for n in notes) == sorted(running)
    assert all((n["from"], n["to"], n.get("reason")) == ("running", "backgrounded", "background") for n in notes)
    if release:
        assert elapsed < BACKGROUND_TARGET_S, f"{elapsed:.3f}s for 100 sessions (target {BACKGROUND_TARGET_S}s)"

    b.kill()  # SIGKILL right after the answer: all of it must be on disk
    b2 = place.start(spawn)
    states = {s["id"]: s["state"] for s in b2.result("session/list", {"limit": 1000})["sessions"]}
    assert all(states[sid] == "backgrounded" for sid in running)
    for st, ids in others.items():
        assert all(states[sid] == st for sid in ids), st
    listed = b2.result("host/willEnterForeground", {}, 30.0)["sessions"]
    assert {x["session"]["id"] for x in listed} == set(running) | set(others["backgrounded"])
    assert all(x["checkpoint"] is not None for x in listed if x["session"]["id"] in running)


def test_entering_the_background_also_moves_waiting_sessions_and_leaves_the_rest(b):
    ids = {st: drive(b, create(b, title=st)["id"], st)["id"] for st in ("idle", "running", "waitingForUser",
                                                                           "backgrounded", "completed", "failed")}
    b.settle(0.1)
    b.notifications("session/didChangeState")

    moved = b.result("host/didEnterBackground", {})["sessions"]

    assert sorted(s["id"] for s in moved) == sorted([ids["running"], ids["waitingForUser"]])
    for st, sid in ids.items():
        assert get(b, sid)["state"] == ("backgrounded" if st in ("running", "waitingForUser") else st)
    notes = state_changes(b, 2)
    assert {(n["id"], n["from"]) for n in notes} == {(ids["running"], "running"), (ids["waitingForUser"], "waitingForUser")}
    assert b.result("host/didEnterBackground", {})["sessions"] == []  # nothing left to move


def test_entering_the_foreground_lists_the_backgrounded_sessions_with_their_checkpoints(b):
    a = drive(b, create(b, title="a")["id"], "running")["id"]
    pending = [{"toolCallId": "call_1", "name": "read_file", "arguments": {"path": "x.md"}}]
    own = b.result("session/checkpoint", {"id": a, "pendingToolCalls": pending, "partialResults": {"draft": 1}})
    c = drive(b, create(b, title="c")["id"], "waitingForUser")["id"]
    by_hand = drive(b, create(b, title="by hand")["id"], "backgrounded")["id"]  # never checkpointed
    drive(b, create(b, title="idle")["id"], "idle")
    b.result("host/didEnterBackground", {})

    listed = b.result("host/willEnterForeground", {})["sessions"]

    assert [x["session"]["id"] for x in listed] == [a, c, by_hand]  # creation order
    first = listed[0]["checkpoint"]
    assert first["checkpointId"] != own["checkpointId"]  # backgrounding checkpointed again
    assert first["partialResults"] == {"draft": 1}
    assert [(p["toolCallId"], p["status"]) for p in first["pendingToolCalls"]] == [("call_1", "pending")]
    assert listed[1]["checkpoint"]["partialResults"] is None and listed[1]["checkpoint"]["pendingToolCalls"] == []
    assert listed[2]["checkpoint"] is None
    assert all(x["session"]["state"] == "backgrounded" for x in listed)
    for x in listed:
        assert b.result("session/resume", {"id": x["session"]["id"]})["session"]["state"] == "running"
    assert b.result("host/willEnterForeground", {})["sessions"] == []


# -- host/setConditions ---------------------------------------------------------------

POLICIES = [  # conditions, deferHeavyWork, maxModelTier, allowNetworkTools, reasons
    ({"network": "wifi"}, False, "powerful", True, []),
    ({"network": "wired", "batteryLevel": 0.1, "isCharging": False}, True, "powerful", True, ["lowBattery"]),
    ({"network": "wifi", "batteryLevel": 0.1}, True, "powerful", True, ["lowBattery"]),
    ({"network": "wifi", "batteryLevel": 0.1, "isCharging": True}, False, "powerful", True, []),
    ({"network": "wifi", "batteryLevel": 0.2}, False, "powerful", True, []),
    ({"network": "wifi", "batteryLevel": 0.19}, True, "powerful", True, ["lowBattery"]),
    ({"network": "wifi", "isLowPowerMode": True}, False, "fast", True, ["lowPowerMode"]),
    ({"network": "wifi", "thermalState": "serious"}, True, "powerful", True, ["thermal"]),
    ({"network": "wifi", "thermalState": "critical"}, True, "powerful", True, ["thermal"]),
    ({"network": "wifi", "thermalState": "fair"}, False, "powerful", True, []),
    ({"network": "cellular", "isExpensive": True}, False, "balanced", True, ["expensiveNetwork"]),
    ({"network": "cellular", "isExpensive": True, "isLowPowerMode": True}, False, "fast", True,
     ["lowPowerMode", "expensiveNetwork"]),
    ({"network": "offline"}, False, "powerful", False, ["offline"]),
    ({"network": "offline", "batteryLevel": 0.05, "isLowPowerMode": True}, True, "fast", False,
     ["lowBattery", "lowPowerMode", "offline"]),
]


@pytest.mark.parametrize("conditions, defer, tier, network_tools, reasons", POLICIES,
                         ids=[",".join(f"{k}={v}" for k, v in c[0].items()) for c in POLICIES])
def test_set_conditions_answers_the_policy_of_the_rules(b, conditions, defer, tier, network_tools, reasons):
    policy = b.result("host/setConditions", conditions)["policy"]

    assert (policy["deferHeavyWork"], policy["maxModelTier"], policy["allowNetworkTools"]) == (defer, tier, network_tools)
    assert policy["reasons"] == reasons
    assert ("message" in policy) == bool(reasons)
    got = b.result("host/getConditions", {})
    assert got["policy"] == policy
    assert got["conditions"]["network"] == conditions["network"]
    for k, v in conditions.items():
        assert got["conditions"][k] == v, k


def test_offline_refuses_network_tools_with_a_message_listing_what_still_works(b):
    tools = b.result("agent/listTools", {})

    policy = b.result("host/setConditions", {"network": "offline"})["policy"]

    assert policy["allowNetworkTools"] is False and "offline" in policy["message"]
    for t in tools:
        if not t["requiresNetwork"]:
            assert t["name"] in policy["message"], t["name"]
    sid = create(b)["id"]
    r = b.result("session/callTool", {"id": sid, "toolCallId": "c1", "name": "read_context", "arguments": {}})
    assert r["isError"] is False  # offline tools still run


def test_conditions_before_any_report_are_online_and_unlimited(b):
    got = b.result("host/getConditions", {})

    assert got["conditions"]["network"] != "offline"
    assert got["policy"] == {"deferHeavyWork": False, "maxModelTier": "powerful", "allowNetworkTools": True,
                             "reasons": []}


@pytest.mark.parametrize("params", [{}, {"network": "5g"}, {"network": "wifi", "batteryLevel": 1.5},
                                    {"network": "wifi", "isCharging": "yes"}, {"network": "wifi", "thermalState": "hot"}],
                         ids=["no-network", "bad-network", "battery-over-1", "charging-string", "bad-thermal"])
def test_set_conditions_refuses_bad_params_and_keeps_the_last_conditions(b, params):
    b.result("host/setConditions", {"network": "cellular"})

    invalid_params(b, "host/setConditions", params)

    assert b.result("host/getConditions", {})["conditions"]["network"] == "cellular"


# -- the offline queue ------------------------------------------------------------------

def enqueue(b, key: str, **kw) -> dict:
    return b.result("queue/enqueue", {"kind": kw.pop("kind", "upload"), "payload": kw.pop("payload", {"k": key}),
                                      "idempotencyKey": key, **kw})


def test_enqueue_makes_a_pending_item_and_the_same_key_never_makes_a_second(b):
    first = enqueue(b, "k1", payload={"file": "a.md"})

    again = enqueue(b, "k1", payload={"file": "other.md"}, kind="other")

    assert first["status"] == "pending" and first["attempts"] == 0 and first["requiresNetwork"] is True
    assert (first["kind"], first["payload"], first["idempotencyKey"]) == ("upload", {"file": "a.md"}, "k1")
    assert again == first
    assert b.result("queue/list", {})["items"] == [first]
    assert enqueue(b, "k2", requiresNetwork=False)["requiresNetwork"] is False


def test_queue_list_keeps_enqueue_order(b):
    keys = [f"key-{i}" for i in (5, 1, 9, 3)]
    items = [enqueue(b, k) for k in keys]

    assert [i["idempotencyKey"] for i in b.result("queue/list", {})["items"]] == keys
    assert [i["id"] for i in b.result("queue/list", {})["items"]] == [i["id"] for i in items]


def test_complete_and_fail_with_and_without_retry(b):
    done, retried, dead = enqueue(b, "done"), enqueue(b, "retry"), enqueue(b, "dead")

    c = b.result("queue/complete", {"id": done["id"], "result": {"url": "https://x"}})
    r = b.result("queue/fail", {"id": retried["id"], "error": {"message": "timeout"}, "retry": True})
    r2 = b.result("queue/fail", {"id": retried["id"], "error": "timeout again", "retry": True})
    d = b.result("queue/fail", {"id": dead["id"], "error": {"message": "gone"}})

    assert (c["status"], c["result"]) == ("completed", {"url": "https://x"})
    assert (r["status"], r["attempts"], r["error"]) == ("pending", 1, {"message": "timeout"})
    assert (r2["status"], r2["attempts"], r2["error"]) == ("pending", 2, "timeout again")
    assert (d["status"], d["attempts"]) == ("failed", 1)
    assert b.result("queue/list", {})["items"] == [c, r2, d]
    domain_error(b, "queue/complete", {"id": "q_0000000000000000"}, "NotFound")
    domain_error(b, "queue/fail", {"id": "q_0000000000000000", "error": "x"}, "NotFound")
    assert b.result("queue/complete", {"id": done["id"]}) == c  # completing twice changes nothing


def test_queue_params_are_checked(b):
    invalid_params(b, "queue/enqueue", {"kind": "k", "payload": 1})
    invalid_params(b, "queue/enqueue", {"payload": 1, "idempotencyKey": "x"})
    invalid_params(b, "queue/fail", {"id": "q_1"})
    assert b.result("queue/list", {})["items"] == []


def test_the_queue_survives_a_sigkill_and_keeps_its_keys(spawn, place, b):
    items = [enqueue(b, f"k{i}") for i in range(5)]
    items[1] = b.result("queue/complete", {"id": items[1]["id"], "result": 1})
    items[2] = b.result("queue/fail", {"id": items[2]["id"], "error": "e", "retry": True})
    items[3] = b.result("queue/fail", {"id": items[3]["id"], "error": "e"})

    b2 = place.restart(spawn, b)

    assert b2.result("queue/list", {})["items"] == items
    assert enqueue(b2, "k0") == items[0]
    assert len(b2.result("queue/list", {})["items"]) == 5


def test_queue_ready_lists_the_due_items_in_enqueue_order_when_the_network_returns(b):
    b.result("host/setConditions", {"network": "offline"})
    a = enqueue(b, "a")
    done = enqueue(b, "done")
    c = enqueue(b, "c", requiresNetwork=False)
    dead = enqueue(b, "dead")
    e = enqueue(b, "e")
    b.result("queue/complete", {"id": done["id"]})
    b.result("queue/fail", {"id": dead["id"], "error": "x"})
    e = b.result("queue/fail", {"id": e["id"], "error": "x", "retry": True})
    b.settle(0.1)
    assert not b.notifications("queue/ready")  # nothing while offline

    b.result("host/setConditions", {"network": "wifi"})

    note = b.take(lambda m: isinstance(m, dict) and m.get("method") == "queue/ready", 5.0, "queue/ready")
    assert [i["id"] for i in note["params"]["items"]] == [a["id"], c["id"], e["id"]]
    assert note["params"]["items"][2] == e
    b.result("host/setConditions", {"network": "cellular"})  # online to online: not a return
    b.settle(0.2)
    assert not b.notifications("queue/ready")


def test_no_queue_ready_when_nothing_is_due(b):
    b.result("host/setConditions", {"network": "offline"})
    x = enqueue(b, "x")
    b.result("queue/complete", {"id": x["id"]})

    b.result("host/setConditions", {"network": "wifi"})

    b.settle(0.3)
    assert not b.notifications("queue/ready")


def test_queue_ready_after_a_restart_lists_the_items_enqueued_before_it(spawn, place, b):
    b.result("host/setConditions", {"network": "offline"})
    items = [enqueue(b, f"k{i}") for i in range(3)]
    b2 = place.restart(spawn, b)

    b2.result("host/setConditions", {"network": "offline"})
    b2.result("host/setConditions", {"network": "wired"})

    note = b2.take(lambda m: isinstance(m, dict) and m.get("method") == "queue/ready", 5.0, "queue/ready")
    assert note["params"]["items"] == items
