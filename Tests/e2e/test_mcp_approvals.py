"""The session's approval policy on MCP's `tools/call`, both eras, raw NDJSON (docs/protocol.md,
"MCP face", approvals; docs/decisions.md "Approvals on the MCP face (issue 16)").

- 2026-07-28: `input_required` with one `elicitation/create` and an HMAC-protected `requestState`;
  the retry with `inputResponses` decides; a tampered, expired or mismatched state is -32602.
- 2025: `elicitation/create` sent to a client that declared it; a client without it (or silent
  past `--approval-timeout`) gets an `ApprovalRequired` error result naming the pending approval,
  which the host answers with `session/approve`; the same call again then runs or is refused.
"""
from __future__ import annotations

import base64
import json
import time

import pytest

pytest.importorskip("mcp")

from mcp_helpers import SESSION_ID, RawMCP, place, raw, server_args, server_env  # noqa: E402,F401
from mcp_modern import INVALID_PARAMS, rawm  # noqa: E402,F401

ELICIT = {"elicitation": {}}
WRITE = {"name": "write_file", "arguments": {"path": "notes/a.txt", "content": "hello"}}


def _journal(root, sid) -> list[dict]:
    path = root / ".workspace" / "sessions" / sid / "journal.jsonl"
    return [json.loads(line.partition(" ")[2]) for line in path.read_text().splitlines()]


def _sid(r) -> str:
    text = r.mresult("server/discover")["instructions"]
    return SESSION_ID.search(text).group(0)


def _ask(r, params=WRITE, caps=ELICIT) -> dict:
    res = r.mresult("tools/call", params, caps=caps)
    assert res["resultType"] == "input_required", res
    return res


def _retry(r, asked: dict, answer: dict, params=WRITE, caps=ELICIT) -> dict:
    return r.mcall("tools/call", {**params, "inputResponses": {"approve": answer}, "requestState": asked["requestState"]}, caps=caps)


def _refused_state(r, asked_state: str, answer: dict, params=WRITE) -> dict:
    resp = r.mcall("tools/call", {**params, "inputResponses": {"approve": answer}, "requestState": asked_state}, caps=ELICIT)
    assert "error" in resp, resp
    e = resp["error"]
    assert e["code"] == INVALID_PARAMS and e["data"]["code"] == "InvalidParams" and e["data"]["field"] == "requestState", e
    return e


ACCEPT = {"action": "accept", "content": {"approve": True}}


# -- 2026-07-28 -------------------------------------------------------------------------------------

def test_input_required_has_the_revision_shape_and_an_accepted_retry_runs_the_call(rawm, place):
    r = rawm(extra=("--approval-policy", "destructive"))
    sid = _sid(r)
    asked = _ask(r)
    assert set(asked) <= {"resultType", "inputRequests", "requestState", "_meta"}, asked
    assert "ttlMs" not in asked and "cacheScope" not in asked
    req = asked["inputRequests"]["approve"]
    assert req["method"] == "elicitation/create"
    p = req["params"]
    assert p["mode"] == "form" and "write_file" in p["message"] and "notes/a.txt" in p["message"]
    schema = p["requestedSchema"]
    assert schema["properties"]["approve"]["type"] == "boolean" and schema["required"] == ["approve"]
    assert schema["properties"]["remember"]["type"] == "boolean"
    assert not (place.root / "notes/a.txt").exists()
    # Nothing ran, and the pending approval is in the session.
    pending = r.mresult("tools/call", WRITE, caps={})  # a client without elicitation: see below
    assert pending["isError"] is True

    done = _retry(r, asked, ACCEPT)["result"]
    assert done["resultType"] == "complete" and done["isError"] is False, done
    assert (place.root / "notes/a.txt").read_text() == "hello"
    # The same retry again answers the recorded result, and runs nothing twice.
    (place.root / "notes/a.txt").write_text("changed by the user")
    again = _retry(r, asked, ACCEPT)["result"]
    assert again["isError"] is False and (place.root / "notes/a.txt").read_text() == "changed by the user"
    r.close()

    journal = _journal(place.root, sid)
    asks = [x for x in journal if x["t"] == "ask"]
    assert len(asks) == 1 and asks[0]["name"] == "write_file" and asks[0]["by"] == "mcp", asks
    decides = [x for x in journal if x["t"] == "decide"]
    assert [d["decision"] for d in decides] == ["allow"] and decides[0]["aid"] == asks[0]["aid"]
    calls = [(x["t"], x.get("call"), x.get("isError")) for x in journal if x["t"] in ("begin", "end")]
    assert calls == [("begin", asks[0]["call"], None), ("end", asks[0]["call"], False)], calls


@pytest.mark.parametrize("answer", [{"action": "decline"}, {"action": "cancel"},
                                    {"action": "accept", "content": {"approve": False}}])
def test_a_refused_retry_is_approval_denied_and_the_file_untouched(rawm, place, answer):
    (place.root / "notes").mkdir(parents=True)
    (place.root / "notes/a.txt").write_text("original")
    r = rawm(extra=("--approval-policy", "destructive"))
    sid = _sid(r)
    asked = _ask(r)
    res = _retry(r, asked, answer)["result"]
    assert res["isError"] is True and res["structuredContent"]["code"] == "ApprovalDenied", res
    assert (place.root / "notes/a.txt").read_text() == "original"
    r.close()
    journal = _journal(place.root, sid)
    ends = [x for x in journal if x["t"] == "end"]
    assert len(ends) == 1 and ends[0]["isError"] is True and ends[0]["result"]["structuredContent"]["code"] == "ApprovalDenied"


def test_a_tampered_state_is_invalid_params(rawm, place):
    r = rawm(extra=("--approval-policy", "destructive"))
    asked = _ask(r)
    payload, _, tag = asked["requestState"].partition(".")
    fields = json.loads(base64.b64decode(payload))
    fields["e"] += 3_600_000          # a longer life, same signature
    forged = base64.b64encode(json.dumps(fields, separators=(",", ":")).encode()).decode() + "." + tag
    e = _refused_state(r, forged, ACCEPT)
    assert "signature" in e["data"]["got"], e
    _refused_state(r, "not-a-state", ACCEPT)
    assert not (place.root / "notes/a.txt").exists()
    # The server keeps serving, and the genuine state still works.
    assert _retry(r, asked, ACCEPT)["result"]["isError"] is False
    assert (place.root / "notes/a.txt").read_text() == "hello"


def test_a_state_for_other_arguments_or_another_tool_is_invalid_params(rawm, place):
    r = rawm(extra=("--approval-policy", "destructive"))
    asked = _ask(r)
    other = {"name": "write_file", "arguments": {"path": "notes/a.txt", "content": "EVIL"}}
    e = _refused_state(r, asked["requestState"], ACCEPT, params=other)
    assert "other arguments" in e["data"]["got"], e
    e = _refused_state(r, asked["requestState"], ACCEPT, params={"name": "delete_file", "arguments": {"path": "notes/a.txt"}})
    assert "delete_file" not in e["data"]["got"] and "write_file" in e["data"]["got"], e
    assert not (place.root / "notes/a.txt").exists()
    # The same arguments in another key order are the same call.
    reordered = {"name": "write_file", "arguments": {"content": "hello", "path": "notes/a.txt"}}
    assert _retry(r, asked, ACCEPT, params=reordered)["result"]["isError"] is False


def test_an_expired_state_is_invalid_params(rawm, place):
    r = rawm(extra=("--approval-policy", "destructive", "--approval-timeout", "1"))
    asked = _ask(r)
    time.sleep(1.3)
    e = _refused_state(r, asked["requestState"], ACCEPT)
    assert "expired" in e["data"]["got"], e
    assert not (place.root / "notes/a.txt").exists()
    # Asking again gets a fresh state for the same pending approval.
    again = _ask(r)
    assert again["requestState"] != asked["requestState"]
    assert _retry(r, again, ACCEPT)["result"]["isError"] is False


def test_a_client_without_elicitation_gets_approval_required_then_the_host_decides(rawm, place, spawn):
    r = rawm(extra=("--approval-policy", "destructive"))
    sid = _sid(r)
    res = r.mresult("tools/call", WRITE, caps={})
    assert res["resultType"] == "complete" and res["isError"] is True, res
    s = res["structuredContent"]
    assert s["code"] == "ApprovalRequired" and s["approvalId"].startswith("apr_") and s["sessionId"] == sid, s
    assert s["approvalId"] in res["content"][0]["text"] and "session/approve" in res["content"][0]["text"]
    assert not (place.root / "notes/a.txt").exists()
    # Asking again names the same approval (one pending approval per identical call).
    assert r.mresult("tools/call", WRITE, caps={})["structuredContent"]["approvalId"] == s["approvalId"]

    host = spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)
    got = host.result("session/get", {"id": sid})
    assert [a["approvalId"] for a in got["pendingApprovals"]] == [s["approvalId"]]
    assert got["pendingApprovals"][0]["origin"] == "mcp" and got["approvalPolicy"] == "destructive"
    answer = host.result("session/approve", {"id": sid, "toolCallId": s["toolCallId"], "decision": "allow"})
    assert answer["approval"]["decision"] == "allow" and "result" not in answer, answer
    assert not (place.root / "notes/a.txt").exists(), "session/approve must not run an MCP client's call"

    done = r.mresult("tools/call", WRITE, caps={})
    assert done["isError"] is False, done
    assert (place.root / "notes/a.txt").read_text() == "hello"
    # A later identical call is a new call: it asks again.
    later = r.mresult("tools/call", WRITE, caps={})
    assert later["structuredContent"]["code"] == "ApprovalRequired" and later["structuredContent"]["approvalId"] != s["approvalId"]
    assert host.result("session/get", {"id": sid})["pendingApprovals"][0]["approvalId"] == later["structuredContent"]["approvalId"]


def test_read_only_tools_run_without_asking_under_destructive(rawm, place):
    (place.root / "notes").mkdir(parents=True)
    (place.root / "notes/a.txt").write_text("hi")
    r = rawm(extra=("--approval-policy", "destructive"))
    for name, args in [("read_file", {"path": "notes/a.txt"}), ("list_files", {"path": "notes"}),
                       ("search_files", {"query": "hi"}), ("create_folder", {"path": "more"})]:
        res = r.mresult("tools/call", {"name": name, "arguments": args}, caps=ELICIT)
        assert res["resultType"] == "complete" and res["isError"] is False, (name, res)


def test_remember_applies_to_later_calls_of_the_tool(rawm, place):
    r = rawm(extra=("--approval-policy", "destructive"))
    asked = _ask(r)
    res = _retry(r, asked, {"action": "accept", "content": {"approve": True, "remember": True}})["result"]
    assert res["isError"] is False
    other = {"name": "write_file", "arguments": {"path": "notes/b.txt", "content": "two"}}
    res = r.mresult("tools/call", other, caps=ELICIT)
    assert res["resultType"] == "complete" and res["isError"] is False, res
    assert (place.root / "notes/b.txt").read_text() == "two"
    # Only that tool: delete_file still asks.
    assert _ask(r, {"name": "delete_file", "arguments": {"path": "notes/b.txt"}})["resultType"] == "input_required"


def test_a_remembered_refusal_refuses_without_asking(rawm, place):
    r = rawm(extra=("--approval-policy", "destructive"))
    asked = _ask(r)
    res = _retry(r, asked, {"action": "accept", "content": {"approve": False, "remember": True}})["result"]
    assert res["structuredContent"]["code"] == "ApprovalDenied"
    res = r.mresult("tools/call", {"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}, caps=ELICIT)
    assert res["resultType"] == "complete" and res["structuredContent"]["code"] == "ApprovalDenied", res
    assert not (place.root / "x.txt").exists()


def test_no_policy_asks_nothing(rawm, place):
    r = rawm()
    res = r.mresult("tools/call", WRITE, caps=ELICIT)
    assert res["resultType"] == "complete" and res["isError"] is False
    assert (place.root / "notes/a.txt").read_text() == "hello"


def test_the_write_policy_asks_for_every_change(rawm, place):
    r = rawm(extra=("--approval-policy", "write"))
    assert _ask(r, {"name": "create_folder", "arguments": {"path": "f"}})["resultType"] == "input_required"
    assert r.mresult("tools/call", {"name": "list_files", "arguments": {}}, caps=ELICIT)["isError"] is False


def test_bad_approval_options_are_refused_at_start(binary, place):
    import subprocess
    for extra in (["--approval-policy", "sometimes"], ["--approval-policy", "write", "--session", "sess_0123456789abcdef"],
                  ["--approval-timeout", "0"]):
        p = subprocess.run([str(binary), *server_args(place.root, place.cfg, extra=tuple(extra))], input=b"",
                           capture_output=True, env={**server_env(place.tmp)}, timeout=20)
        assert p.returncode != 0 and p.stdout == b"", (extra, p)
        assert b"approval" in p.stderr, p.stderr


# -- 2025 -------------------------------------------------------------------------------------------

def _init(r: RawMCP, caps: dict) -> None:
    r.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "raw", "version": "1"}})
    r.notify("notifications/initialized")


def _session_2025(r: RawMCP) -> str:
    return SESSION_ID.search(r.log[0][1]["result"]["instructions"]).group(0)


@pytest.mark.parametrize("approve, written", [(True, True), (False, False)])
def test_2025_elicitation_is_sent_and_its_answer_decides(raw, place, approve, written):
    r = raw(extra=("--approval-policy", "destructive"))
    _init(r, ELICIT)
    rid = r.request("tools/call", WRITE)
    ask = r.wait_for(lambda m: m.get("method") == "elicitation/create")
    p = ask["params"]
    assert "write_file" in p["message"] and p["requestedSchema"]["properties"]["approve"]["type"] == "boolean"
    assert not (place.root / "notes/a.txt").exists()
    # The reading thread is free while the call waits: another request is answered meanwhile.
    assert r.call("tools/list", {})["result"]["tools"]
    r.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"approve": approve}}})
    res = r.response(rid)["result"]
    assert res["isError"] is (not written), res
    assert (place.root / "notes/a.txt").exists() is written
    if not written:
        assert res["structuredContent"]["code"] == "ApprovalDenied"


def test_2025_a_client_that_never_answers_gets_approval_required(raw, place):
    r = raw(extra=("--approval-policy", "destructive", "--approval-timeout", "1"))
    _init(r, ELICIT)
    started = time.monotonic()
    rid = r.request("tools/call", WRITE)
    r.wait_for(lambda m: m.get("method") == "elicitation/create")
    res = r.response(rid, timeout=10)["result"]  # 10 s: a hang guard
    assert 0.9 <= time.monotonic() - started, "answered before the 1 s approval timeout"
    assert res["isError"] is True and res["structuredContent"]["code"] == "ApprovalRequired", res
    assert "did not answer" in res["content"][0]["text"]
    assert not (place.root / "notes/a.txt").exists()
    assert r.call("tools/list", {})["result"]["tools"]


def test_2025_an_elicitation_error_gets_approval_required(raw, place):
    r = raw(extra=("--approval-policy", "destructive"))
    _init(r, ELICIT)
    rid = r.request("tools/call", WRITE)
    ask = r.wait_for(lambda m: m.get("method") == "elicitation/create")
    r.send({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -32601, "message": "no"}})
    res = r.response(rid)["result"]
    assert res["structuredContent"]["code"] == "ApprovalRequired", res


def test_2025_cancelling_a_waiting_call_ends_it(raw, place):
    r = raw(extra=("--approval-policy", "destructive"))
    _init(r, ELICIT)
    rid = r.request("tools/call", WRITE)
    r.wait_for(lambda m: m.get("method") == "elicitation/create")
    r.notify("notifications/cancelled", {"requestId": rid})
    r.drain(0.5)
    assert r.call("tools/list", {})["result"]["tools"]
    assert not (place.root / "notes/a.txt").exists()


@pytest.mark.parametrize("decision, written", [("allow", True), ("deny", False)])
def test_2025_without_elicitation_the_host_answers_and_the_retry_runs_or_is_refused(raw, place, spawn, decision, written):
    r = raw(extra=("--approval-policy", "destructive"))
    _init(r, {})
    sid = _session_2025(r)
    res = r.result("tools/call", WRITE)
    s = res["structuredContent"]
    assert res["isError"] is True and s["code"] == "ApprovalRequired" and s["sessionId"] == sid, res
    assert not any(m.get("method") == "elicitation/create" for _, m in r.log)

    host = spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)
    host.result("session/approve", {"id": sid, "toolCallId": s["toolCallId"], "decision": decision})
    again = r.result("tools/call", WRITE)
    assert again["isError"] is (not written), again
    assert (place.root / "notes/a.txt").exists() is written
    if not written:
        assert again["structuredContent"]["code"] == "ApprovalDenied"
    # The journal: the approval decided, the call run (or refused) under its tool call id.
    journal = _journal(place.root, sid)
    ends = [x for x in journal if x["t"] == "end" and x["call"] == s["toolCallId"]]
    assert len(ends) == 1 and ends[0]["isError"] is (not written), journal
    assert host.result("session/get", {"id": sid}).get("pendingApprovals", []) == []


def test_2025_a_session_keeps_its_own_policy(raw, place, spawn):
    host = spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)
    sid = host.result("session/create", {"title": "guarded", "agentType": "mcp", "approvalPolicy": "destructive"})["id"]
    r = raw(extra=("--session", sid))
    _init(r, {})
    res = r.result("tools/call", WRITE)
    assert res["structuredContent"]["code"] == "ApprovalRequired", res
    assert host.result("session/get", {"id": sid})["pendingApprovals"][0]["name"] == "write_file"


def test_a_tool_that_may_run_as_a_task_asks_before_it_becomes_one(rawm, place):
    place.root.mkdir(parents=True)
    (place.root / "src.txt").write_text("data")
    r = rawm(extra=("--approval-policy", "write"))
    caps = {**ELICIT, "extensions": {"io.modelcontextprotocol/tasks": {}}}
    copy = {"name": "copy_file", "arguments": {"from": "src.txt", "to": "dst.txt"}}
    asked = _ask(r, copy, caps=caps)
    assert not (place.root / "dst.txt").exists()
    res = _retry(r, asked, ACCEPT, params=copy, caps=caps)["result"]
    if res["resultType"] == "task":       # still copying after the grace: poll it
        deadline = time.monotonic() + 10
        while res.get("status") not in ("completed", "failed") and time.monotonic() < deadline:
            res = r.mresult("tasks/get", {"taskId": res["taskId"]}, caps=caps)
        res = res["result"]
    assert res["isError"] is False, res
    assert (place.root / "dst.txt").read_text() == "data"


def test_2025_end_of_input_while_waiting_ends_the_process_promptly(raw, place):
    r = raw(extra=("--approval-policy", "destructive"))
    _init(r, ELICIT)
    r.request("tools/call", WRITE)
    r.wait_for(lambda m: m.get("method") == "elicitation/create")
    # Promptly: without waiting the 300 s approval timeout (10 s is a hang guard).
    assert r.close(timeout=10) == 0
    assert not (place.root / "notes/a.txt").exists()
