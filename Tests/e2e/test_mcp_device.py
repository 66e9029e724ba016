"""The device policy on MCP's `tools/call`, both eras, raw NDJSON (docs/protocol.md, "MCP face",
device policy; docs/decisions.md "The device policy on the MCP face (issue 16)").

The host reports the device's conditions through the JSON-RPC face (`host/setConditions`) of a
server on the same config folder; the MCP process (started by the agent) reads them from there
(`<config>/device-conditions.json`) while that server runs. `search_files` is heavy: on a low
battery or a hot device it is deferred exactly as `session/callTool` defers it.
"""
from __future__ import annotations

import base64
import json

import pytest

pytest.importorskip("mcp")

from mcp_helpers import SESSION_ID, place, raw  # noqa: E402,F401
from mcp_modern import INVALID_PARAMS, rawm  # noqa: E402,F401

ELICIT = {"elicitation": {}}
SEARCH = {"name": "search_files", "arguments": {"query": "needle"}}
LOW_BATTERY = {"network": "wifi", "batteryLevel": 0.12, "isCharging": False}
HOT = {"network": "wifi", "thermalState": "serious"}
NORMAL = {"network": "wifi", "batteryLevel": 0.8, "isCharging": True}
ACCEPT = {"action": "accept", "content": {"confirm": True}}


@pytest.fixture
def host(spawn, place):
    """A JSON-RPC server on the same workspace and config folder: the host's face."""
    (place.root / "notes").mkdir(parents=True, exist_ok=True)
    (place.root / "notes/a.md").write_text("a needle in a haystack\n")
    return spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)


def _sid(r) -> str:
    return SESSION_ID.search(r.mresult("server/discover")["instructions"]).group(0)


def _deferred(host, sid: str) -> list[dict]:
    return [c for c in host.result("session/listDeferred")["calls"] if c["sessionId"] == sid]


def _is_deferred(res: dict, reason: str, confirmable: bool = True) -> dict:
    assert res["isError"] is True, res
    s = res["structuredContent"]
    assert s["code"] == "Deferred" and s["reason"] == reason and s["confirmable"] is confirmable and s["queued"] is True, s
    assert "search_files" in res["content"][0]["text"] and s["toolCallId"] in res["content"][0]["text"]
    return s


def _found(res: dict) -> None:
    assert res["isError"] is False, res
    assert [m["path"] for m in res["structuredContent"]["matches"]] == ["notes/a.md"], res


# -- 2026-07-28 -------------------------------------------------------------------------------------

def test_modern_asks_to_run_anyway_and_an_accepted_retry_runs_and_clears_the_deferral(rawm, host):
    host.result("host/setConditions", LOW_BATTERY)
    r = rawm()
    sid = _sid(r)
    asked = r.mresult("tools/call", SEARCH, caps=ELICIT)
    assert asked["resultType"] == "input_required", asked
    assert set(asked) <= {"resultType", "inputRequests", "requestState", "_meta"}, asked
    req = asked["inputRequests"]["confirm"]
    assert req["method"] == "elicitation/create" and req["params"]["mode"] == "form"
    msg = req["params"]["message"]
    assert "search_files" in msg and "battery at 12%, not charging" in msg, msg
    schema = req["params"]["requestedSchema"]
    assert schema["properties"]["confirm"]["type"] == "boolean" and schema["required"] == ["confirm"]
    # Recorded as deferred while the user is asked: the host sees it.
    listed = _deferred(host, sid)
    assert [(c["name"], c["reason"], c["arguments"]) for c in listed] == [("search_files", "lowBattery", SEARCH["arguments"])]
    assert listed[0]["runnableNow"] is False

    done = r.mresult("tools/call", {**SEARCH, "inputResponses": {"confirm": ACCEPT}, "requestState": asked["requestState"]},
                     caps=ELICIT)
    assert done["resultType"] == "complete"
    _found(done)
    assert _deferred(host, sid) == []


@pytest.mark.parametrize("answer", [{"action": "decline"}, {"action": "cancel"},
                                    {"action": "accept", "content": {"confirm": False}}])
def test_modern_a_declined_retry_is_deferred_listed_once_and_runs_when_conditions_allow(rawm, host, answer):
    host.result("host/setConditions", HOT)
    r = rawm()
    sid = _sid(r)
    asked = r.mresult("tools/call", SEARCH, caps=ELICIT)
    res = r.mresult("tools/call", {**SEARCH, "inputResponses": {"confirm": answer}, "requestState": asked["requestState"]},
                    caps=ELICIT)
    assert res["resultType"] == "complete"
    s = _is_deferred(res, "thermal")
    assert "declined" in res["content"][0]["text"] and "thermal state serious" in res["content"][0]["text"]
    assert s["sessionId"] == sid
    listed = _deferred(host, sid)
    assert [(c["toolCallId"], c["reason"]) for c in listed] == [(s["toolCallId"], "thermal")]
    # Asking again is the same deferred call (one entry, same tool call id).
    again = r.mresult("tools/call", SEARCH, caps=ELICIT)
    assert again["resultType"] == "input_required"
    assert [c["toolCallId"] for c in _deferred(host, sid)] == [s["toolCallId"]]

    host.result("host/setConditions", NORMAL)
    assert _deferred(host, sid)[0]["runnableNow"] is True
    ran = r.mresult("tools/call", SEARCH, caps=ELICIT)
    assert ran["resultType"] == "complete"
    _found(ran)
    assert _deferred(host, sid) == []


def test_modern_without_elicitation_gets_the_deferred_result(rawm, host):
    host.result("host/setConditions", LOW_BATTERY)
    r = rawm()
    sid = _sid(r)
    res = r.mresult("tools/call", SEARCH, caps={})
    assert res["resultType"] == "complete"
    s = _is_deferred(res, "lowBattery")
    assert "no elicitation" in res["content"][0]["text"]
    assert [c["toolCallId"] for c in _deferred(host, sid)] == [s["toolCallId"]]


def test_light_tools_run_under_any_conditions(rawm, host):
    host.result("host/setConditions", {**LOW_BATTERY, "thermalState": "critical"})
    r = rawm()
    sid = _sid(r)
    res = r.mresult("tools/call", {"name": "read_file", "arguments": {"path": "notes/a.md"}}, caps=ELICIT)
    assert res["resultType"] == "complete" and res["isError"] is False, res
    assert _deferred(host, sid) == []


def test_a_confirmation_for_another_reason_asks_again(rawm, host):
    host.result("host/setConditions", LOW_BATTERY)
    r = rawm()
    asked = r.mresult("tools/call", SEARCH, caps=ELICIT)
    host.result("host/setConditions", HOT)  # charging now, but hot: the user agreed to battery use only
    again = r.mresult("tools/call", {**SEARCH, "inputResponses": {"confirm": ACCEPT}, "requestState": asked["requestState"]},
                      caps=ELICIT)
    assert again["resultType"] == "input_required", again
    assert "thermal state serious" in again["inputRequests"]["confirm"]["params"]["message"]


def test_a_confirmation_state_for_other_arguments_or_altered_is_invalid_params(rawm, host):
    host.result("host/setConditions", LOW_BATTERY)
    r = rawm()
    asked = r.mresult("tools/call", SEARCH, caps=ELICIT)
    other = {"name": "search_files", "arguments": {"query": "other"}}
    e = r.merror("tools/call", {**other, "inputResponses": {"confirm": ACCEPT}, "requestState": asked["requestState"]}, caps=ELICIT)
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "requestState" and "other arguments" in e["data"]["got"], e
    payload, _, tag = asked["requestState"].partition(".")
    fields = json.loads(base64.b64decode(payload))
    fields["r"] = "expensiveNetwork"
    forged = base64.b64encode(json.dumps(fields, separators=(",", ":")).encode()).decode() + "." + tag
    e = r.merror("tools/call", {**SEARCH, "inputResponses": {"confirm": ACCEPT}, "requestState": forged}, caps=ELICIT)
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "requestState", e
    e = r.merror("tools/call", {**SEARCH, "inputResponses": {"confirm": "yes"}, "requestState": asked["requestState"]}, caps=ELICIT)
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "inputResponses.confirm", e
    # The server keeps serving, and nothing ran.
    assert r.mresult("tools/call", SEARCH, caps={})["structuredContent"]["code"] == "Deferred"


def test_conditions_of_a_host_that_ended_are_not_trusted(rawm, host, place):
    host.result("host/setConditions", LOW_BATTERY)
    assert json.loads((place.cfg / "device-conditions.json").read_text())["conditions"]["batteryLevel"] == 0.12
    host.kill()
    r = rawm()
    _found(r.mresult("tools/call", SEARCH, caps=ELICIT))


# -- 2025 -------------------------------------------------------------------------------------------

def _init(r, caps: dict) -> str:
    init = r.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "raw", "version": "1"}})
    r.notify("notifications/initialized")
    return SESSION_ID.search(init["instructions"]).group(0)


@pytest.mark.parametrize("confirm", [True, False])
def test_2025_elicitation_is_sent_and_its_answer_decides(raw, host, confirm):
    host.result("host/setConditions", LOW_BATTERY)
    r = raw()
    sid = _init(r, ELICIT)
    rid = r.request("tools/call", SEARCH)
    ask = r.wait_for(lambda m: m.get("method") == "elicitation/create")
    assert "battery at 12%, not charging" in ask["params"]["message"] and "mode" not in ask["params"]
    # The reading thread is free while the call waits.
    assert r.call("tools/list", {})["result"]["tools"]
    assert [c["reason"] for c in _deferred(host, sid)] == ["lowBattery"]
    r.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": confirm}}})
    res = r.response(rid)["result"]
    if confirm:
        _found(res)
        assert _deferred(host, sid) == []
    else:
        s = _is_deferred(res, "lowBattery")
        assert [c["toolCallId"] for c in _deferred(host, sid)] == [s["toolCallId"]]


def test_2025_without_elicitation_is_deferred_then_runs_when_conditions_allow(raw, host):
    host.result("host/setConditions", HOT)
    r = raw()
    sid = _init(r, {})
    s = _is_deferred(r.result("tools/call", SEARCH), "thermal")
    assert not any(m.get("method") == "elicitation/create" for _, m in r.log)
    assert [c["toolCallId"] for c in _deferred(host, sid)] == [s["toolCallId"]]
    # Still hot: deferred again under the same tool call id.
    assert _is_deferred(r.result("tools/call", SEARCH), "thermal")["toolCallId"] == s["toolCallId"]
    host.result("host/setConditions", NORMAL)
    _found(r.result("tools/call", SEARCH))
    assert _deferred(host, sid) == []


def test_2025_a_client_that_never_answers_is_deferred_after_the_bound(raw, host):
    import time
    host.result("host/setConditions", LOW_BATTERY)
    r = raw(extra=("--approval-timeout", "1"))
    sid = _init(r, ELICIT)
    started = time.monotonic()
    rid = r.request("tools/call", SEARCH)
    r.wait_for(lambda m: m.get("method") == "elicitation/create")
    res = r.response(rid, timeout=10)["result"]  # 10 s: a hang guard
    assert 0.9 <= time.monotonic() - started, "deferred before the 1 s approval timeout"
    s = _is_deferred(res, "lowBattery")
    assert "did not answer" in res["content"][0]["text"]
    assert [c["toolCallId"] for c in _deferred(host, sid)] == [s["toolCallId"]]
    assert r.call("tools/list", {})["result"]["tools"]


# -- the same decision on both faces ------------------------------------------------------------

def test_session_call_tool_on_another_server_decides_as_the_mcp_face(rawm, host, spawn, place):
    """A second JSON-RPC server whose host never reported conditions decides by the shared ones,
    as the MCP process does: the same call is deferred on both faces, for the same reason."""
    from sessions_helpers import create, domain_error, transition
    host.result("host/setConditions", HOT)
    other = spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)
    sid = create(other)["id"]
    transition(other, sid, "running")
    err = domain_error(other, "session/callTool", {"id": sid, "toolCallId": "s1", **SEARCH}, "Deferred")
    assert err["data"]["reason"] == "thermal"
    r = rawm()
    assert _is_deferred(r.mresult("tools/call", SEARCH, caps={}), "thermal")
    # Once the host says the device cooled down, both run it.
    host.result("host/setConditions", NORMAL)
    assert other.result("session/callTool", {"id": sid, "toolCallId": "s1", **SEARCH})["isError"] is False
    _found(r.mresult("tools/call", SEARCH, caps={}))
