"""Consent by effect, not by tool name (issue 22, defects 1 and 2; docs/protocol.md "What each tool
call does"; docs/decisions.md "Consent by effect (issue 22)").

What a call does decides whether an approval policy asks, whichever tool and face make it:
`copy_file`/`move_file` with `overwrite`, `update_context {mode: "replace"}` ask under `destructive`
exactly as `write_file` and `delete_file` do; a plain copy and an append do not; under `write` every
change asks. An approval answers only the tool and the arguments (digest) it was asked for: another
tool or other arguments under its tool call id are refused (`InvalidArgument`, JSON-RPC face) or
ask anew (MCP face, which has no tool call ids).

Both faces through the real binary: JSON-RPC `session/callTool`, MCP `tools/call` in the
2026-07-28 era (raw and the official SDK) and the 2025 era.
"""
from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from mcp_helpers import SESSION_ID, RawMCP, aio, place, raw, server_args, server_env, tool_error, tool_ok  # noqa: E402,F401
from mcp_modern import rawm  # noqa: E402,F401

ELICIT = {"elicitation": {}}
OVERWRITE_COPY = {"name": "copy_file", "arguments": {"from": "blank.txt", "to": "important.md", "overwrite": True}}
OVERWRITE_MOVE = {"name": "move_file", "arguments": {"from": "blank.txt", "to": "important.md", "overwrite": True}}
REPLACE_CONTEXT = {"name": "update_context", "arguments": {"content": "", "mode": "replace"}}
PLAIN_COPY = {"name": "copy_file", "arguments": {"from": "important.md", "to": "copy.md"}}


def _seed(place) -> None:
    place.root.mkdir(parents=True, exist_ok=True)
    (place.root / "important.md").write_text("years of notes")
    (place.root / "context.md").write_text("what the agent learned\n")
    (place.root / "precious.md").write_text("precious")


def _intact(place) -> None:
    assert (place.root / "important.md").read_text() == "years of notes"
    assert (place.root / "context.md").read_text() == "what the agent learned\n"
    assert (place.root / "precious.md").read_text() == "precious"


def _host(spawn, place):
    return spawn("--local-root", str(place.root), "--config-dir", str(place.cfg), init=True)


def _session(b, policy) -> str:
    sid = b.result("session/create", {"title": "guarded", "approvalPolicy": policy})["id"]
    b.result("session/transition", {"id": sid, "to": "running"})
    return sid


def _call(b, sid, tcid, params) -> dict:
    return b.result("session/callTool", {"id": sid, "toolCallId": tcid, **params})


def _domain_error(b, method, params, code) -> dict:
    err = b.error(method, params)
    assert err["code"] == -32803 and err["data"]["code"] == code, err
    return err


# -- JSON-RPC face: session/callTool ----------------------------------------------------------------

def test_overwrites_and_replaces_ask_under_destructive_and_a_refusal_keeps_the_files(spawn, place):
    _seed(place)
    b = _host(spawn, place)
    sid = _session(b, "destructive")
    # Adding content never asks: the blank file of the reproduction is created unasked.
    assert _call(b, sid, "a1", {"name": "append_file", "arguments": {"path": "blank.txt", "content": ""}})["isError"] is False
    for tcid, params in [("c1", OVERWRITE_COPY), ("m1", OVERWRITE_MOVE), ("u1", REPLACE_CONTEXT)]:
        pending = _call(b, sid, tcid, params)["pendingApproval"]
        assert pending["name"] == params["name"] and pending["arguments"] == params["arguments"], pending
        assert pending["effect"] == "replaces", pending
        _intact(place)
        refused = b.result("session/approve", {"id": sid, "toolCallId": tcid, "decision": "deny"})["result"]
        assert refused["isError"] is True and refused["structuredContent"]["code"] == "ApprovalDenied"
    _intact(place)
    assert (place.root / "blank.txt").exists()
    # Allowed, the overwriting copy runs once, as asked.
    pending = _call(b, sid, "c2", OVERWRITE_COPY)["pendingApproval"]
    done = b.result("session/approve", {"id": sid, "toolCallId": "c2", "decision": "allow"})["result"]
    assert done["isError"] is False and pending["toolCallId"] == "c2"
    assert (place.root / "important.md").read_text() == ""


def test_a_plain_copy_and_an_appending_update_do_not_ask_under_destructive(spawn, place):
    _seed(place)
    b = _host(spawn, place)
    sid = _session(b, "destructive")
    assert _call(b, sid, "p1", PLAIN_COPY)["isError"] is False
    assert (place.root / "copy.md").read_text() == "years of notes"
    # A plain copy onto an existing file is refused by the tool itself (nothing replaced).
    exists = _call(b, sid, "p2", {"name": "copy_file", "arguments": {"from": "precious.md", "to": "important.md"}})
    assert exists["isError"] is True and exists["structuredContent"]["code"] == "AlreadyExists", exists
    assert _call(b, sid, "u2", {"name": "update_context", "arguments": {"content": "more"}})["isError"] is False
    assert (place.root / "context.md").read_text() == "what the agent learned\nmore\n"
    # write_file with exclusive only creates: no consent; without it, it may replace: consent.
    assert _call(b, sid, "w1", {"name": "write_file", "arguments": {"path": "new.md", "content": "n", "exclusive": True}})["isError"] is False
    assert "pendingApproval" in _call(b, sid, "w2", {"name": "write_file", "arguments": {"path": "new2.md", "content": "n"}})
    assert "pendingApproval" in _call(b, sid, "d1", {"name": "delete_file", "arguments": {"path": "copy.md"}})


def test_under_write_every_change_asks_and_a_decision_remembered_for_plain_copies_does_not_cover_overwrites(spawn, place):
    _seed(place)
    b = _host(spawn, place)
    sid = _session(b, {"annotations": ["write"]})
    assert _call(b, sid, "p1", PLAIN_COPY)["pendingApproval"]["effect"] == "adds"
    b.result("session/approve", {"id": sid, "toolCallId": "p1", "decision": "allow", "remember": True})
    assert (place.root / "copy.md").read_text() == "years of notes"
    # Remembered: another plain copy runs unasked.
    assert _call(b, sid, "p2", {"name": "copy_file", "arguments": {"from": "precious.md", "to": "copy2.md"}})["isError"] is False
    # An overwriting copy is another effect: it asks.
    over = {"name": "copy_file", "arguments": {"from": "precious.md", "to": "important.md", "overwrite": True}}
    assert "pendingApproval" in _call(b, sid, "o1", over)
    assert "pendingApproval" in _call(b, sid, "a1", {"name": "append_journal", "arguments": {"entry": "x"}})
    assert _call(b, sid, "r1", {"name": "read_context", "arguments": {}})["isError"] is False
    _intact(place)


def test_an_approval_for_one_tool_does_not_authorise_another_under_its_id(spawn, place):
    """The reproduction: allow search_files under T1, then write_file under T1 ran unasked."""
    _seed(place)
    b = _host(spawn, place)
    sid = _session(b, {"tools": ["search_files"]})
    # A low battery defers the allowed search (heavy): T1 is allowed and has not run.
    b.result("host/setConditions", {"network": "wifi", "batteryLevel": 0.05, "isCharging": False})
    assert "pendingApproval" in _call(b, sid, "T1", {"name": "search_files", "arguments": {"query": "notes"}})
    _domain_error(b, "session/approve", {"id": sid, "toolCallId": "T1", "decision": "allow"}, "Deferred")
    forged = {"id": sid, "toolCallId": "T1", "name": "write_file", "arguments": {"path": "precious.md", "content": ""}}
    err = _domain_error(b, "session/callTool", forged, "InvalidArgument")
    assert err["data"]["name"] == "search_files" and err["data"]["toolCallId"] == "T1", err
    # Other arguments for the approved tool are refused too.
    other = {"id": sid, "toolCallId": "T1", "name": "search_files", "arguments": {"query": "precious"}}
    _domain_error(b, "session/callTool", other, "InvalidArgument")
    _intact(place)
    # The approved call itself still runs, once the conditions allow.
    b.result("host/setConditions", {"network": "wifi", "batteryLevel": 0.9})
    ran = _call(b, sid, "T1", {"name": "search_files", "arguments": {"query": "notes"}})
    assert ran["isError"] is False and ran["structuredContent"]["matches"], ran
    # And its recorded result is never another tool's answer.
    _domain_error(b, "session/callTool", forged, "InvalidArgument")
    _intact(place)
    assert b.result("ping") == {}


def test_an_mcp_approval_does_not_authorise_another_tool_on_the_json_rpc_face(raw, spawn, place):
    _seed(place)
    host = _host(spawn, place)
    sid = host.result("session/create", {"title": "guarded", "agentType": "mcp", "approvalPolicy": {"tools": ["search_files"]}})["id"]
    r = raw(extra=("--session", sid))
    _init_2025(r, {})
    asked = r.result("tools/call", {"name": "search_files", "arguments": {"query": "notes"}})["structuredContent"]
    assert asked["code"] == "ApprovalRequired", asked
    host.result("session/approve", {"id": sid, "toolCallId": asked["toolCallId"], "decision": "allow"})
    forged = {"id": sid, "toolCallId": asked["toolCallId"], "name": "write_file", "arguments": {"path": "precious.md", "content": ""}}
    _domain_error(host, "session/callTool", forged, "InvalidArgument")
    _intact(place)
    # The MCP client's identical call runs under the decision.
    assert r.result("tools/call", {"name": "search_files", "arguments": {"query": "notes"}})["isError"] is False


# -- MCP face: tools/call ---------------------------------------------------------------------------

def _init_2025(r: RawMCP, caps: dict) -> None:
    r.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "raw", "version": "1"}})
    r.notify("notifications/initialized")


def test_modern_overwrites_and_replaces_ask_under_destructive(rawm, place):
    _seed(place)
    (place.root / "blank.txt").write_text("")
    r = rawm(extra=("--approval-policy", "destructive"))
    for params in (OVERWRITE_COPY, OVERWRITE_MOVE, REPLACE_CONTEXT):
        asked = r.mresult("tools/call", params, caps=ELICIT)
        assert asked["resultType"] == "input_required", (params, asked)
        message = asked["inputRequests"]["approve"]["params"]["message"]
        assert params["name"] in message and "replace existing content" in message, message
        # A client that cannot be asked: ApprovalRequired, nothing run.
        res = r.mresult("tools/call", params, caps={})
        assert res["isError"] is True and res["structuredContent"]["code"] == "ApprovalRequired", res
    _intact(place)
    plain = r.mresult("tools/call", PLAIN_COPY, caps=ELICIT)
    assert plain["resultType"] == "complete" and plain["isError"] is False, plain
    assert (place.root / "copy.md").read_text() == "years of notes"
    appended = r.mresult("tools/call", {"name": "update_context", "arguments": {"content": "more"}}, caps=ELICIT)
    assert appended["resultType"] == "complete" and appended["isError"] is False, appended


def test_2025_overwrites_and_replaces_ask_under_destructive(raw, place):
    _seed(place)
    (place.root / "blank.txt").write_text("")
    r = raw(extra=("--approval-policy", "destructive"))
    _init_2025(r, {})
    for params in (OVERWRITE_COPY, OVERWRITE_MOVE, REPLACE_CONTEXT):
        res = r.result("tools/call", params)
        assert res["isError"] is True and res["structuredContent"]["code"] == "ApprovalRequired", (params, res)
    _intact(place)
    assert r.result("tools/call", PLAIN_COPY)["isError"] is False
    assert (place.root / "copy.md").read_text() == "years of notes"


def test_2025_an_approval_for_some_arguments_does_not_cover_others(raw, spawn, place):
    _seed(place)
    r = raw(extra=("--approval-policy", "destructive"))
    _init_2025(r, {})
    sid = SESSION_ID.search(r.log[0][1]["result"]["instructions"]).group(0)
    first = {"name": "delete_file", "arguments": {"path": "important.md"}}
    asked = r.result("tools/call", first)["structuredContent"]
    assert asked["code"] == "ApprovalRequired"
    _host(spawn, place).result("session/approve", {"id": sid, "toolCallId": asked["toolCallId"], "decision": "allow"})
    # Another path is another call: it asks anew, and nothing is deleted.
    other = r.result("tools/call", {"name": "delete_file", "arguments": {"path": "precious.md"}})["structuredContent"]
    assert other["code"] == "ApprovalRequired" and other["approvalId"] != asked["approvalId"], other
    assert (place.root / "precious.md").read_text() == "precious"
    # Another tool on the approved path asks too.
    over = r.result("tools/call", {"name": "write_file", "arguments": {"path": "important.md", "content": ""}})["structuredContent"]
    assert over["code"] == "ApprovalRequired" and over["approvalId"] != asked["approvalId"], over
    assert (place.root / "important.md").read_text() == "years of notes"
    # The approved call runs.
    assert r.result("tools/call", first)["isError"] is False
    assert not (place.root / "important.md").exists()


def test_annotations_agree_with_the_effect_on_both_faces(rawm, spawn, place):
    place.root.mkdir(parents=True, exist_ok=True)
    r = rawm()
    mcp = {t["name"]: t["annotations"] for t in r.mresult("tools/list", {})["tools"]}
    rpc = {t["name"]: t["annotations"] for t in _host(spawn, place).result("agent/listTools", {})}
    assert mcp == rpc
    for name in ("copy_file", "move_file", "update_context", "write_file", "delete_file"):
        assert mcp[name]["destructiveHint"] is True and mcp[name]["readOnlyHint"] is False, name
    for name in ("append_file", "create_folder", "append_journal"):
        assert mcp[name]["destructiveHint"] is False and mcp[name]["readOnlyHint"] is False, name
    for name in ("read_file", "read_multiple_files", "list_files", "search_files", "get_file_info", "get_storage_info", "read_context"):
        assert mcp[name]["readOnlyHint"] is True and mcp[name]["destructiveHint"] is False, name


# -- the official SDK -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
@aio
async def test_sdk_an_overwriting_copy_asks_and_a_declined_one_leaves_the_file(binary, place, mode):
    import mcp_types
    from mcp import Client, StdioServerParameters, stdio_client
    from mcp_types import Implementation

    _seed(place)
    (place.root / "blank.txt").write_text("")
    asked: list[str] = []

    async def decline(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="decline")

    params = StdioServerParameters(command=str(binary), args=server_args(place.root, place.cfg, extra=("--approval-policy", "destructive")),
                                   env=server_env(place.tmp))
    with open(place.tmp / "mcp-stderr.log", "a") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=30,
                          client_info=Implementation(name="e2e-consent", version="1"), elicitation_callback=decline) as c:
            tool_error(await c.call_tool("copy_file", OVERWRITE_COPY["arguments"]), "ApprovalDenied")
            tool_error(await c.call_tool("update_context", REPLACE_CONTEXT["arguments"]), "ApprovalDenied")
            assert len(asked) == 2 and "copy_file" in asked[0] and "update_context" in asked[1]
            tool_ok(await c.call_tool("copy_file", PLAIN_COPY["arguments"]))
            assert len(asked) == 2
    _intact(place)
    assert (place.root / "copy.md").read_text() == "years of notes"
