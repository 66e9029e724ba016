"""The MCP 2026-07-28 era on the wire, over plain pipes (newline-delimited JSON): what the official
client hides or smooths over — exact result shapes (`resultType`, cache hints, the server's identity
stamp), error codes (−32022 and its data, −32602 for a missing `_meta` field or a missing resource,
never the retired −32002), `initialize` after a failed probe, the removed methods, per-request log
levels and `traceparent`, and `subscriptions/listen` message by message. docs/mcp-2026.md says
what each assertion comes from.
"""
from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("mcp")

from mcp_helpers import LOG_LEVELS, TOOL_NAMES, file_uri, place, raw  # noqa: E402,F401
from mcp_modern import (ALL_VERSIONS, CC, CI, INVALID_PARAMS, LL, MAX_WORKSPACE_TTL_MS, METHOD_NOT_FOUND,  # noqa: E402,F401
                        MODERN, PV, SI, SUB, TASKS, UNSUPPORTED_PROTOCOL_VERSION, assert_cache_hints,
                        meta, rawm, validate)

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
RETIRED_CODES = {-32002, -32042}      # never emitted by a 2026 server (basic/index.mdx, error codes)


def _no_retired_or_reserved_codes(r) -> None:
    """Nothing the server said used a retired code or an MCP-reserved one it may not use."""
    for _, m in r.log:
        code = (m.get("error") or {}).get("code")
        if code is None:
            continue
        assert code not in RETIRED_CODES, f"retired code in the modern era: {m}"
        assert not (-32099 <= code <= -32020) or code in (-32020, -32021, -32022), f"undefined MCP-reserved code: {m}"


# -- discovery ------------------------------------------------------------------------------------

def test_discover_is_the_first_answer_and_has_the_revision_shape(rawm, place):
    r = rawm()
    res = r.mresult("server/discover")
    first = r.log[0][1]
    assert first.get("id") == 1 and "result" in first, f"discover was not answered first: {first}"
    assert res["resultType"] == "complete"
    assert set(res["supportedVersions"]) == ALL_VERSIONS and len(res["supportedVersions"]) == 3
    assert res["capabilities"]["extensions"] == {TASKS: {}}
    assert "tools" in res["capabilities"] and "resources" in res["capabilities"]
    assert str(place.root) in res["instructions"]
    assert res["_meta"][SI]["name"] == "workspace-bridge"
    # no handshake-era keys in a discover result
    assert not {"protocolVersion", "serverInfo"} & set(res), res
    # the same answer again (stateless: nothing the first request did changes it), and without clientInfo
    again = r.mresult("server/discover")
    assert again["supportedVersions"] == res["supportedVersions"] and again["capabilities"] == res["capabilities"]
    no_info = r.request("server/discover", {"_meta": {PV: MODERN, CC: {}}})
    assert r.response(no_info)["result"]["supportedVersions"] == res["supportedVersions"]


# -- results: resultType, identity, cache hints ---------------------------------------------------------

def test_every_modern_result_has_a_result_type_and_the_cacheable_ones_have_hints(rawm, place):
    r = rawm()
    r.tool("write_file", {"path": "a.txt", "content": "hello\n"})
    tools = r.mresult("tools/list")
    assert [t["name"] for t in tools["tools"]] == TOOL_NAMES
    assert tools["cacheScope"] == "public" and tools["ttlMs"] > 0
    assert "nextCursor" not in tools or tools["nextCursor"] is None
    ok = r.tool("read_file", {"path": "a.txt"})
    assert ok["resultType"] == "complete" and ok["isError"] is False and ok["structuredContent"]["data"] == "hello\n"
    failed = r.tool("read_file", {"path": "missing.txt"})
    assert failed["resultType"] == "complete" and failed["isError"] is True
    assert failed["structuredContent"]["code"] == "NotFound"
    listed = r.mresult("resources/list")
    assert file_uri(place.root, "a.txt") in {x["uri"] for x in listed["resources"]}
    assert listed["cacheScope"] == "private" and listed["ttlMs"] <= MAX_WORKSPACE_TTL_MS
    templates = r.mresult("resources/templates/list")
    assert templates["resourceTemplates"] and templates["cacheScope"] == "public"
    read = r.mresult("resources/read", {"uri": file_uri(place.root, "a.txt")})
    assert read["contents"][0]["text"] == "hello\n"
    assert read["cacheScope"] == "private" and read["ttlMs"] <= MAX_WORKSPACE_TTL_MS
    # a file changed by another process: the next read says so and is still not cacheable for long
    with open(place.root / "a.txt", "a") as f:
        f.write("again\n")
    time.sleep(0.2)
    read2 = r.mresult("resources/read", {"uri": file_uri(place.root, "a.txt")})
    assert read2["contents"][0]["text"] == "hello\nagain\n" and read2["ttlMs"] <= MAX_WORKSPACE_TTL_MS
    _no_retired_or_reserved_codes(r)


def test_the_legacy_era_is_unchanged_on_the_same_binary(rawm):
    """A 2025 session gets exactly the 2025 shapes: no resultType, no cache hints, no identity stamp."""
    r = rawm()
    init = r.initialize("2025-06-18")
    assert init["protocolVersion"] == "2025-06-18" and init["serverInfo"]["name"] == "workspace-bridge"
    tools = r.result("tools/list")
    assert [t["name"] for t in tools["tools"]] == TOOL_NAMES
    for key in ("resultType", "ttlMs", "cacheScope", "_meta"):
        assert key not in tools and key not in init, key
    assert r.result("ping") == {}
    # and a modern request on the same process is served by its own _meta (the era is per message)
    modern = r.mresult("tools/list")
    assert [t["name"] for t in modern["tools"]] == TOOL_NAMES and modern["resultType"] == "complete"
    assert "resultType" not in r.result("tools/list")


# -- versions and the envelope ---------------------------------------------------------------------------

@pytest.mark.parametrize("asked", ["2099-01-01", "1900-01-01", "2025-11-25", "2025-06-18", "draft", ""])
@pytest.mark.parametrize("method", ["server/discover", "tools/list", "tools/call"])
def test_an_unsupported_version_gets_32022_naming_both_eras(rawm, contract, method, asked):
    r = rawm()
    params = {"name": "read_file", "arguments": {"path": "context.md"}} if method == "tools/call" else {}
    err = r.merror(method, params, version=asked)
    assert err["code"] == UNSUPPORTED_PROTOCOL_VERSION, err
    contract.check_error(err)          # the schema's ErrorData and error table know the code
    assert err["message"]
    data = err["data"]
    assert set(data["supported"]) == ALL_VERSIONS and len(data["supported"]) == 3, data
    assert data["requested"] == asked, data
    # the process still serves the version it supports
    assert r.mresult("server/discover")["resultType"] == "complete"


def test_a_missing_meta_field_is_invalid_params_and_never_not_initialized(rawm):
    r = rawm()
    no_caps = r.request("tools/list", {"_meta": {PV: MODERN, CI: {"name": "x", "version": "1"}}})
    no_version = r.request("tools/list", {"_meta": {CC: {}, CI: {"name": "x", "version": "1"}}})
    bad_caps = r.request("tools/list", {"_meta": {PV: MODERN, CC: "all"}})
    bad_version = r.request("tools/list", {"_meta": {PV: 20260728, CC: {}}})
    no_version_discover = r.request("server/discover", {})
    for rid, field in ((no_caps, CC), (no_version, PV), (bad_caps, CC), (bad_version, PV), (no_version_discover, PV)):
        err = r.response(rid)["error"]
        assert err["code"] == INVALID_PARAMS, (rid, err)
        assert err["data"]["code"] == "InvalidParams" and field in err["data"]["field"], (field, err)
    # a well-formed request right after is served
    assert r.mresult("tools/list")["tools"]
    _no_retired_or_reserved_codes(r)


def test_a_request_without_the_envelope_is_the_2025_era_s(rawm):
    """No `_meta` era keys at all: a 2025 request, answered as before the handshake ("not
    initialized"), which is also what a legacy-only server would say to a 2026 client's probe."""
    r = rawm()
    err = r.call("tools/call", {"name": "read_file", "arguments": {"path": "context.md"}})["error"]
    assert err["code"] == -32002 and err["data"]["code"] == "ServerNotInitialized", err
    assert r.initialize("2025-11-25")["protocolVersion"] == "2025-11-25"
    assert r.result("tools/call", {"name": "read_file", "arguments": {"path": "context.md"}})["isError"] is False


def test_initialize_after_a_failed_probe(rawm):
    """The SDK's automatic mode: a probe the server refuses (here an unknown version), then the
    2025 handshake on the same process, for each handshake version; and after a successful probe."""
    for version in ("2025-06-18", "2025-11-25"):
        r = rawm()
        err = r.merror("server/discover", version="2099-01-01")
        assert err["code"] == UNSUPPORTED_PROTOCOL_VERSION
        init = r.initialize(version)
        assert init["protocolVersion"] == version
        assert init["capabilities"]["tools"] is not None and "logging" in init["capabilities"]
        assert r.result("ping") == {}
        assert [t["name"] for t in r.result("tools/list")["tools"]] == TOOL_NAMES
        r.close()
    r = rawm()
    assert r.mresult("server/discover")["resultType"] == "complete"
    assert r.initialize("2025-11-25")["protocolVersion"] == "2025-11-25"
    assert r.result("tools/call", {"name": "read_file", "arguments": {"path": "context.md"}})["isError"] is False


@pytest.mark.parametrize("method, params", [
    ("ping", {}), ("logging/setLevel", {"level": "debug"}), ("resources/subscribe", {"uri": "file:///x"}),
    ("resources/unsubscribe", {"uri": "file:///x"}), ("initialize", None),
])
def test_methods_the_revision_removed_are_not_found_in_the_modern_era(rawm, method, params):
    r = rawm()
    if method == "initialize":
        # an initialize that carries the modern envelope and a modern version is not a handshake
        rid = r.request("initialize", {"protocolVersion": MODERN, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"},
                                       "_meta": meta()})
        err = r.response(rid)["error"]
        assert err["code"] in (METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION, INVALID_PARAMS), err
        assert err["code"] != UNSUPPORTED_PROTOCOL_VERSION or set(err["data"]["supported"]) == ALL_VERSIONS
    else:
        err = r.merror(method, params)
        assert err["code"] == METHOD_NOT_FOUND, err
    assert r.mresult("server/discover")["resultType"] == "complete"


def test_the_modern_era_sends_no_requests_to_the_client(rawm, place):
    """Even a client declaring roots gets no roots/list: the modern face narrows by configuration
    or arguments, never by server-to-client requests."""
    r = rawm()
    caps = {"roots": {"listChanged": True}, "elicitation": {"form": {}}, "sampling": {}}
    r.mresult("server/discover", caps=caps)
    r.tool("list_files", {"path": ""}, caps=caps)
    r.tool("write_file", {"path": "x.txt", "content": "x"}, caps=caps)
    r.drain(0.5)
    asked = [m for _, m in r.log if "method" in m and "id" in m]
    assert not asked, f"the server sent requests in the modern era: {asked}"


# -- errors ----------------------------------------------------------------------------------------------

def test_a_missing_resource_is_32602_with_its_uri(rawm, place):
    r = rawm()
    uri = file_uri(place.root, "missing.txt")
    err = r.merror("resources/read", {"uri": uri})
    assert err["code"] == INVALID_PARAMS, err
    assert err["data"]["uri"] == uri and err["data"]["code"] == "NotFound", err
    outside = r.merror("resources/read", {"uri": file_uri(place.tmp, "outside.txt")})
    assert outside["code"] == INVALID_PARAMS and outside["data"]["code"] == "OutsideWorkspace", outside
    unknown = r.merror("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert unknown["code"] == INVALID_PARAMS, unknown
    _no_retired_or_reserved_codes(r)


# -- logging and tracing -------------------------------------------------------------------------------------

def _messages_for(r, rid, since: int = 0) -> list[dict]:
    """notifications/message received after log entry `since` and before the response to `rid`."""
    out = []
    for _, m in r.log[since:]:
        if m.get("id") == rid and ("result" in m or "error" in m):
            return out
        if m.get("method") == "notifications/message":
            out.append(m)
    raise AssertionError(f"no response to {rid}")


def test_log_messages_only_for_requests_that_ask_at_their_level(rawm, place):
    r = rawm(extra=("--log-level", "debug"))
    quiet = r.mreq("tools/call", {"name": "read_file", "arguments": {"path": "missing.txt"}})
    r.response(quiet)
    assert _messages_for(r, quiet) == [], "log messages for a request that did not ask for them"
    loud = r.mreq("tools/call", {"name": "read_file", "arguments": {"path": "missing.txt"}}, log_level="debug")
    r.response(loud)
    got = _messages_for(r, loud)
    assert got, "no log message for a failed call that asked for debug"
    for m in got:
        p = m["params"]
        assert p["level"] in LOG_LEVELS and p.get("data") is not None, m
        assert SUB not in (p.get("_meta") or {}), m
    mark = len(r.log)
    high = r.mreq("tools/call", {"name": "read_file", "arguments": {"path": "missing.txt"}}, log_level="error")
    r.response(high)
    assert all(LOG_LEVELS.index(m["params"]["level"]) >= LOG_LEVELS.index("error") for m in _messages_for(r, high, mark))
    bad = r.merror("tools/list", log_level="loud")
    assert bad["code"] == INVALID_PARAMS, bad


def test_traceparent_goes_into_the_server_log_lines_not_the_output(rawm, place):
    r = rawm(extra=("--log-level", "debug"))
    r.mresult("tools/call", {"name": "read_file", "arguments": {"path": "missing.txt"}}, traceparent=TRACEPARENT)
    r.mresult("tools/list", traceparent=TRACEPARENT)
    r.close()
    err = r.stderr_path.read_text(errors="replace")
    lines = [line for line in err.splitlines() if TRACE_ID in line]
    assert lines, f"the trace id is in no log line:\n{err[-2000:]}"
    assert any("tools/call" in line or "read_file" in line for line in lines), lines
    out = json.dumps([m for _, m in r.log])
    assert TRACE_ID not in out, "the trace id was echoed into protocol output"


# -- subscriptions/listen ----------------------------------------------------------------------------------------

def _listen(r, rid, **notifications) -> dict:
    r.mreq("subscriptions/listen", {"notifications": notifications}, id=rid)
    ack = r.wait_for(lambda m: m.get("method") == "notifications/subscriptions/acknowledged"
                     and (m["params"].get("_meta") or {}).get(SUB) == rid, timeout=5)
    first = [m for _, m in r.log if (m.get("params") or {}).get("_meta", {}).get(SUB) == rid or m.get("id") == rid][0]
    assert first is ack or first == ack, f"something came before the ack of {rid}: {first}"
    return ack["params"]


def _updates(r, rid, since: int = 0) -> list[dict]:
    return [m for _, m in r.log[since:] if (m.get("params") or {}).get("_meta", {}).get(SUB) == rid
            and m.get("method") != "notifications/subscriptions/acknowledged"]


def test_listen_acknowledges_then_streams_the_opted_in_changes_of_other_processes(rawm, place):
    r = rawm()
    r.tool("write_file", {"path": "w/a.txt", "content": "1"})
    r.tool("write_file", {"path": "w/b.txt", "content": "1"})
    ua, ub = file_uri(place.root, "w/a.txt"), file_uri(place.root, "w/b.txt")
    ack = _listen(r, "L1", resourceSubscriptions=[ua], toolsListChanged=True, promptsListChanged=True)
    assert ack["notifications"] == {"resourceSubscriptions": [ua]}, \
        f"the ack must list exactly what is honoured (the tool table never changes, there are no prompts): {ack}"
    ack2 = _listen(r, 7, resourcesListChanged=True)      # an integer id: the subscription id keeps its type
    assert ack2["notifications"] == {"resourcesListChanged": True}, ack2
    mark = len(r.log)
    with open(place.root / "w/b.txt", "a") as f:       # not subscribed
        f.write("2")
    with open(place.root / "w/a.txt", "a") as f:       # subscribed by L1
        f.write("2")
    upd = r.wait_for(lambda m: m.get("method") == "notifications/resources/updated", timeout=5)
    assert upd["params"]["uri"] == ua and upd["params"]["_meta"][SUB] == "L1", upd
    (place.root / "w/new.txt").write_text("n")            # a new file: the list changed (subscription 7)
    lc = r.wait_for(lambda m: m.get("method") == "notifications/resources/list_changed", timeout=5)
    assert lc["params"]["_meta"][SUB] == 7, lc
    r.drain(0.5)
    for m in _updates(r, "L1", mark):
        assert m["method"] == "notifications/resources/updated" and m["params"]["uri"] == ua, \
            f"L1 got a notification it did not opt into: {m}"
    assert all(m["method"] == "notifications/resources/list_changed" for m in _updates(r, 7, mark))
    # nothing answered the long-lived requests yet; other requests are served meanwhile
    assert not [m for _, m in r.log if m.get("id") in ("L1", 7)]
    assert r.tool("read_file", {"path": "w/a.txt"})["structuredContent"]["data"] == "12"


def test_cancelling_a_listen_ends_its_stream_and_only_it(rawm, place):
    r = rawm()
    r.tool("write_file", {"path": "c.txt", "content": "1"})
    uri = file_uri(place.root, "c.txt")
    _listen(r, "gone", resourceSubscriptions=[uri])
    _listen(r, "kept", resourceSubscriptions=[uri])
    r.notify("notifications/cancelled", {"requestId": "gone", "reason": "done"})
    r.mresult("server/discover")           # the cancel has been read when this is answered
    mark = len(r.log)
    with open(place.root / "c.txt", "a") as f:
        f.write("2")
    r.wait_for(lambda m: (m.get("params") or {}).get("_meta", {}).get(SUB) == "kept", timeout=5)
    r.drain(0.7)
    late = [m for _, m in r.log[mark:] if m.get("id") == "gone" or (m.get("params") or {}).get("_meta", {}).get(SUB) == "gone"]
    assert not late, f"messages for a cancelled subscription: {late}"


def test_listen_refuses_a_uri_outside_the_workspace(rawm, place):
    r = rawm()
    rid = r.mreq("subscriptions/listen", {"notifications": {"resourceSubscriptions": [file_uri(place.tmp, "outside.txt")]}})
    resp = r.response(rid)
    assert resp["error"]["code"] == INVALID_PARAMS, resp
    assert resp["error"]["data"]["code"] in ("OutsideWorkspace", "InvalidPath"), resp
    assert not [m for _, m in r.log if m.get("method") == "notifications/subscriptions/acknowledged"]


def test_listen_ends_gracefully_when_the_server_shuts_down(rawm, place):
    """Closing stdin ends the process; an open subscription is answered with the revision's graceful
    close (a result carrying its subscription id) before the output closes."""
    r = rawm()
    _listen(r, "bye", resourcesListChanged=True)
    r.proc.stdin.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and r._read(0.1):
        pass
    closed = [m for _, m in r.log if m.get("id") == "bye"]
    assert closed == [{"jsonrpc": "2.0", "id": "bye", "result": {"resultType": "complete", "_meta": {SUB: "bye"}}}] \
        or (len(closed) == 1 and closed[0]["result"]["resultType"] == "complete"
            and closed[0]["result"]["_meta"][SUB] == "bye"), closed
    assert r.proc.wait(5) == 0


def test_the_plain_server_answers_the_modern_era_too(rawm, place):
    """One binary, one stdin: without the `mcp` subcommand the first modern request is served as
    well (as a 2025 `initialize` carrying MCP's protocolVersion switches it to MCP)."""
    r = rawm(subcommand=False)
    res = r.mresult("server/discover")
    assert set(res["supportedVersions"]) == ALL_VERSIONS
    assert [t["name"] for t in r.mresult("tools/list")["tools"]] == TOOL_NAMES
    assert r.tool("read_file", {"path": "context.md"})["isError"] is False
    first = r.log[0][1]
    assert first.get("id") == 1 and first["result"]["resultType"] == "complete", first
