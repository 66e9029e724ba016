"""Work-done progress ($/progress) and window/workDoneProgress/cancel."""
from __future__ import annotations

import time

import pytest


def progress_for(b, token):
    return [e for e in b.log if isinstance(e.msg, dict) and e.msg.get("method") == "$/progress"
            and e.msg["params"]["token"] == token]


@pytest.mark.parametrize("token", ["tok-1", 987654321])
def test_sleep_with_token_reports_begin_reports_and_end_before_the_response(server, token):
    rid = server.request("debug/sleep", {"ms": 1000, "label": "p", "workDoneToken": token})

    response = server.response_entry(rid, timeout=5)

    assert response.msg["result"]["label"] == "p"
    events = progress_for(server, token)
    kinds = [e.msg["params"]["value"]["kind"] for e in events]
    assert kinds[0] == "begin" and kinds[-1] == "end", kinds
    assert set(kinds[1:-1]) <= {"report"}, kinds
    assert events[-1].seq < response.seq, "end must come before the response"
    assert isinstance(events[0].msg["params"]["value"]["title"], str)
    reports = [e for e in events if e.msg["params"]["value"]["kind"] == "report"]
    # At most 10 reports a second, counted against the server's own start and end of the request
    # (arrival times would bunch on a busy machine).
    ran = (response.msg["result"]["finishedAt"] - response.msg["result"]["startedAt"]) / 1e9
    assert len(reports) <= 10 * ran + 1, f"{len(reports)} reports during a {ran:.2f} s request"
    percentages = [e.msg["params"]["value"].get("percentage") for e in events]
    known = [p for p in percentages if p is not None]
    assert known == sorted(known), "percentages never go back"
    server.notifications("$/progress")


def test_sleep_without_token_reports_no_progress(nd):
    nd.result("debug/sleep", {"ms": 300, "label": "quiet"})
    nd.assert_silent(0.1)
    assert nd.notifications("$/progress") == []


def test_work_done_progress_cancel_cancels_the_request_owning_the_token(server):
    rid = server.request("debug/sleep", {"ms": 60_000, "label": "c", "workDoneToken": "cancel-me"})
    server.take(lambda m: isinstance(m, dict) and m.get("method") == "$/progress"
                and m["params"]["value"]["kind"] == "begin", timeout=10, what="progress begin")
    assert progress_for(server, "cancel-me")[0].msg["params"]["value"]["cancellable"] is True

    # The request would run for a minute: its answer within the 10 s hang guard is the cancel's.
    server.notify("window/workDoneProgress/cancel", {"token": "cancel-me"})
    response = server.response_entry(rid, timeout=10)

    assert response.msg["error"]["code"] == -32800 and response.msg["error"]["data"]["code"] == "RequestCancelled"
    events = progress_for(server, "cancel-me")
    assert events[-1].msg["params"]["value"]["kind"] == "end" and events[-1].seq < response.seq


def test_progress_cancel_for_unknown_token_is_ignored(nd):
    rid = nd.request("debug/sleep", {"ms": 200, "label": "kept", "workDoneToken": "mine"})
    nd.notify("window/workDoneProgress/cancel", {"token": "someone-else"})
    assert nd.response(rid, timeout=10)["result"]["label"] == "kept"
