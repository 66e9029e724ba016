"""The W3C trace context of an MCP request (`_meta.traceparent`, `tracestate`) on every log line
written while serving it, not only the per-request summary line: the tools' own lines (a copy, a
search), the detached work of a task, in both eras; a request without one carries none, a
malformed one is never written into the log. Asserted on the real binary's stderr at
`--log-level debug`.
"""
from __future__ import annotations

import re

import pytest

pytest.importorskip("mcp")

from mcp_helpers import place, raw  # noqa: E402,F401
from mcp_modern import rawm, tasks_caps  # noqa: E402,F401
from test_mcp_long import NEEDLE, Moved, tree  # noqa: E402,F401

DEBUG = ("--log-level", "debug")
T1 = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
T2 = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
T3 = "00-11111111111111111111111111111111-2222222222222222-00"


def _lines(r, pattern: str) -> list[str]:
    r.close()
    err = r.stderr_path.read_text(errors="replace")
    found = [line for line in err.splitlines() if re.search(pattern, line)]
    assert found, f"no log line matches {pattern!r}:\n{err[-3000:]}"
    return found


def test_a_tools_own_log_line_carries_the_requests_traceparent_and_only_its_own(rawm, place):
    r = rawm(extra=DEBUG)
    r.tool("write_file", {"path": "a.txt", "content": "hello\n"})
    r.tool("copy_file", {"from": "a.txt", "to": "traced.txt"}, traceparent=T1, tracestate="vendor=abc")
    r.tool("copy_file", {"from": "a.txt", "to": "untraced.txt"})
    r.tool("copy_file", {"from": "a.txt", "to": "forged.txt"}, traceparent="00-zz\n[workspace-bridge] error: forged")
    (traced,) = _lines(r, r"copy a\.txt to traced\.txt")
    assert f"traceparent={T1}" in traced and "tracestate=vendor=abc" in traced, traced
    (untraced,) = _lines(r, r"copy a\.txt to untraced\.txt")
    assert "traceparent=" not in untraced and "tracestate=" not in untraced, untraced
    (forged,) = _lines(r, r"copy a\.txt to forged\.txt")
    assert "traceparent=" not in forged, forged
    assert "error: forged" not in r.stderr_path.read_text(errors="replace"), "a malformed traceparent reached the log"
    # the per-request summary line still carries it, exactly once
    summary = [line for line in _lines(r, r"mcp tools/call copy_file") if T1 in line]
    assert len(summary) == 1 and summary[0].count("traceparent=") == 1, summary


def test_a_tasks_detached_work_keeps_the_trace_of_the_call_that_started_it(rawm, place, tree):
    r = rawm(extra=DEBUG)
    with Moved(tree, place.root):
        created = r.mresult("tools/call", {"name": "search_files", "arguments": {"query": NEEDLE, "path": "tree"}},
                            caps=tasks_caps(), traceparent=T2)
        assert created["resultType"] == "task", created
        tid = created["taskId"]
        # polled from requests of another trace
        _poll_traced(r, tid)
    (search,) = _lines(r, rf"search for \"{NEEDLE}\" in 'tree'")
    assert f"traceparent={T2}" in search, search
    ended = _lines(r, rf"task {tid}: tools/call search_files ended completed")
    assert ended and all(f"traceparent={T2}" in line for line in ended), ended
    polls = _lines(r, r"mcp tasks/get")
    assert all(f"traceparent={T3}" in line and T2 not in line for line in polls), polls


def _poll_traced(r, tid: str) -> None:
    for _ in range(400):
        state = r.mresult("tasks/get", {"taskId": tid}, caps=tasks_caps(), traceparent=T3)
        if state["status"] != "working":
            assert state["status"] == "completed", state
            return
        r.drain(0.05)
    raise AssertionError(f"task {tid} never ended")


def test_the_2025_era_passes_the_trace_into_tool_log_lines_too(raw, place):
    r = raw(extra=DEBUG)
    r.initialize()
    r.result("tools/call", {"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}})
    r.result("tools/call", {"name": "copy_file", "arguments": {"from": "a.txt", "to": "b.txt"}, "_meta": {"traceparent": T1}})
    (line,) = _lines(r, r"copy a\.txt to b\.txt")
    assert f"traceparent={T1}" in line, line
