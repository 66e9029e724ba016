"""The tasks extension (`io.modelcontextprotocol/tasks`, ext-tasks; docs/mcp-2026.md §10) on the
modern MCP face: a client that declares it and searches a big tree (test_mcp_long's 5,000 files)
gets a task, polls it to completion from new requests, sees progress in `statusMessage`, and can
cancel one; a client that does not declare it gets the plain result; the tools that may run as a
task say so in tools/list.
"""
from __future__ import annotations

import time
from datetime import datetime

import pytest

pytest.importorskip("mcp")

from mcp_helpers import aio, place, tool_ok  # noqa: E402,F401
from mcp_modern import (INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY, TASKS,  # noqa: E402
                        TasksExtension, open_client, rawm, tasks_caps, validate)
from test_mcp_long import NEEDLE, SLOW, Moved, tree  # noqa: E402,F401

FILES = 5000
TASK_FIELDS = {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"}
MAY_RUN_AS_TASK = {"search_files", "copy_file"}


def _iso(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def _check_task(t: dict, result_type: str) -> None:
    """A Task as the extension shapes it (CreateTaskResult for "task", GetTaskResult for "complete")."""
    assert t["resultType"] == result_type, t
    assert TASK_FIELDS <= set(t), f"missing task fields: {TASK_FIELDS - set(t)} in {t}"
    assert t["status"] in ("working", "input_required", "completed", "cancelled", "failed"), t
    assert isinstance(t["taskId"], str) and len(t["taskId"]) >= 16, f"a guessable task id: {t['taskId']!r}"
    assert _iso(t["createdAt"]) <= _iso(t["lastUpdatedAt"]), t
    assert t["ttlMs"] is None or (isinstance(t["ttlMs"], int) and t["ttlMs"] > 0), t
    assert "pollIntervalMs" not in t or (isinstance(t["pollIntervalMs"], int) and t["pollIntervalMs"] > 0), t
    if t["status"] == "completed":
        assert {"content", "isError"} <= set(t["result"]), t
        assert "error" not in t
    elif t["status"] == "failed":
        assert {"code", "message"} <= set(t["error"]) and "result" not in t, t
    else:
        assert "result" not in t and "error" not in t, t


def _search(query=NEEDLE, regex=False) -> dict:
    args = {"query": query, "path": "tree"}
    if regex:
        args["regex"] = True
    return {"name": "search_files", "arguments": args}


def _poll(r, task_id: str, until, timeout: float = 30.0) -> list[dict]:
    """tasks/get, each a new request, until `until(state)`; every state seen."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = r.mresult("tasks/get", {"taskId": task_id}, caps=tasks_caps())
        _check_task(state, "complete")
        assert state["taskId"] == task_id
        seen.append(state)
        if until(state):
            return seen
        time.sleep(min(0.5, (state.get("pollIntervalMs") or 100) / 1000))
    raise AssertionError(f"task {task_id} never reached the state; last: {seen[-1:]}")


# -- declaration ------------------------------------------------------------------------------------

def test_discover_advertises_and_tools_list_declares_which_tools_may_run_as_tasks(rawm):
    r = rawm()
    assert r.mresult("server/discover")["capabilities"]["extensions"][TASKS] == {}
    tools = r.mresult("tools/list")["tools"]
    for t in tools:
        support = (t.get("_meta") or {}).get(TASKS, {}).get("taskSupport")
        if t["name"] in MAY_RUN_AS_TASK:
            assert support == "optional", t
        else:
            assert support is None, f"{t['name']} never runs as a task but says {support!r}"


# -- the official client --------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["2026-07-28", "auto"])
@aio
async def test_a_long_search_runs_as_a_task_polled_to_completion(binary, place, tree, mode):
    ext = TasksExtension()
    async with open_client(binary, place.root, place.cfg, place.tmp, mode, extensions=[ext]) as c:
        with Moved(tree, place.root):
            res = tool_ok(await c.call_tool("search_files", {"query": NEEDLE, "path": "tree"}), "search_files")
            plain = await c.call_tool("search_files", {"query": NEEDLE, "path": "tree/d000"})   # 100 files: answered inline
    assert res["matches"] == [] and res["filesSearched"] == FILES and res["truncated"] is False
    assert tool_ok(plain)["filesSearched"] == 100
    assert len(ext.created) == 1, f"one task for the big search, none for the small one: {ext.created}"
    created = ext.created[0]
    assert created.status == "working" and created.status_message, created
    assert ext.polls and ext.polls[-1]["status"] == "completed"
    assert ext.polls[-1]["result"]["structuredContent"] == res


@aio
async def test_without_the_extension_the_same_search_is_a_plain_result(binary, place, tree):
    async with open_client(binary, place.root, place.cfg, place.tmp, "2026-07-28") as c:
        with Moved(tree, place.root):
            res = tool_ok(await c.call_tool("search_files", {"query": NEEDLE, "path": "tree"}))
    assert res["filesSearched"] == FILES and res["matches"] == []


# -- the wire ------------------------------------------------------------------------------------------

def test_task_shapes_polling_from_new_requests_and_the_result_kept(rawm, place, tree):
    r = rawm()
    with Moved(tree, place.root):
        plain = r.tool(**_search())          # not declared: never a task
        assert plain["resultType"] == "complete" and plain["structuredContent"]["filesSearched"] == FILES
        created = r.mresult("tools/call", _search(), caps=tasks_caps())
        _check_task(created, "task")
        assert created["status"] == "working"
        assert set(created) <= TASK_FIELDS | {"resultType", "statusMessage", "pollIntervalMs", "_meta"}, created
        # resolvable at once (the server answers only once the task exists)
        seen = _poll(r, created["taskId"], lambda s: s["status"] == "completed")
    done = seen[-1]
    assert done["createdAt"] == created["createdAt"]
    assert done["result"]["isError"] is False and done["result"]["structuredContent"]["filesSearched"] == FILES
    validate("tools/call", {**done["result"], "resultType": "complete"})
    again = r.mresult("tasks/get", {"taskId": created["taskId"]}, caps=tasks_caps())
    assert again["status"] == "completed" and again["result"] == done["result"], "a finished task's result was lost"


def test_a_task_reports_progress_and_can_be_cancelled(rawm, place, tree):
    r = rawm()
    with Moved(tree, place.root):
        created = r.mresult("tools/call", _search(SLOW, regex=True), caps=tasks_caps())    # over 10 s if left alone
        _check_task(created, "task")
        tid = created["taskId"]
        t0 = time.monotonic()
        states = _poll(r, tid, lambda s: time.monotonic() - t0 > 1.5, timeout=10)
        assert all(s["status"] == "working" for s in states), states
        messages = [s.get("statusMessage") or "" for s in states]
        assert len(set(messages)) >= 2, f"no progress in statusMessage over 1.5 s: {messages}"
        ack = r.mresult("tasks/cancel", {"taskId": tid}, caps=tasks_caps())
        assert {k: v for k, v in ack.items() if k != "_meta"} == {"resultType": "complete"}, ack
        final = _poll(r, tid, lambda s: s["status"] in ("completed", "cancelled", "failed"), timeout=10)[-1]
        assert final["status"] == "cancelled", f"a search with seconds to go was not cancelled: {final}"
        # the connection goes on; a small search still answers
        small = r.tool("search_files", {"query": "lorem", "path": "tree/d000/f000.txt"}, caps=tasks_caps())
        assert small["resultType"] == "complete" and small["structuredContent"]["matches"]


def test_task_methods_refuse_unknown_ids_and_undeclared_clients(rawm):
    r = rawm()
    for method in ("tasks/get", "tasks/cancel"):
        err = r.merror(method, {"taskId": "no-such-task-0123456789"}, caps=tasks_caps())
        assert err["code"] == INVALID_PARAMS, (method, err)
        err = r.merror(method, {"taskId": "no-such-task-0123456789"})
        assert err["code"] == MISSING_REQUIRED_CLIENT_CAPABILITY, (method, err)
        assert err["data"]["requiredCapabilities"] == {"extensions": {TASKS: {}}}, err
    err = r.merror("tasks/update", {"taskId": "no-such-task-0123456789", "inputResponses": {}}, caps=tasks_caps())
    assert err["code"] == INVALID_PARAMS, err
    assert r.merror("tasks/list", {}, caps=tasks_caps())["code"] == -32601     # removed by the redesigned extension
    assert r.mresult("server/discover")["resultType"] == "complete"


def test_a_quick_copy_from_a_declaring_client_is_the_plain_result(rawm, place):
    """copy_file may run as a task but only becomes one when it outlives its grace: a small copy
    answers inline, and the copy is there."""
    r = rawm()
    r.tool("write_file", {"path": "src.txt", "content": "copy me\n"})
    res = r.tool("copy_file", {"from": "src.txt", "to": "dst.txt"}, caps=tasks_caps())
    assert res["resultType"] == "complete" and res["isError"] is False, res
    assert (place.root / "dst.txt").read_text() == "copy me\n"


def test_running_tasks_are_bounded_and_a_call_beyond_the_bound_is_answered_inline(rawm, place, tree):
    """At most 8 tasks run at once (docs/protocol.md): the 9th big search is answered inline, not
    refused; the 8 are then cancelled and end cancelled."""
    r = rawm()
    with Moved(tree, place.root):
        ids = []
        for _ in range(8):
            created = r.mresult("tools/call", _search(SLOW, regex=True), caps=tasks_caps())
            assert created["resultType"] == "task", created
            ids.append(created["taskId"])
        assert len(set(ids)) == 8
        inline = r.mresult("tools/call", _search(), caps=tasks_caps(), timeout=120)
        assert inline["resultType"] == "complete" and inline["structuredContent"]["filesSearched"] == FILES, inline
        for tid in ids:
            r.mresult("tasks/cancel", {"taskId": tid}, caps=tasks_caps())
        for tid in ids:
            final = _poll(r, tid, lambda s: s["status"] != "working", timeout=20)[-1]
            assert final["status"] == "cancelled", final
