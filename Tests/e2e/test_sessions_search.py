"""session/search (issue 25; docs/protocol.md, "Searching sessions"): text, regex and case, every
filter, ranked paging, compacted originals, retention, approvals, progress, cancellation and the
typed errors of its bounds, through the real binary (every message checked against the schema).
"""
from __future__ import annotations

import time
from datetime import datetime, timezone

from sessions_helpers import append, b, create, domain_error, invalid_params, place, transition  # noqa: F401 (fixtures)


def search(b, query: str, **kw) -> dict:
    return b.result("session/search", {"query": query, **kw}, 30.0)


def keys(r: dict) -> list[tuple]:
    return [(h["sessionId"], h.get("messageId") or h.get("toolCallId"), h["field"]) for h in r["hits"]]


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def test_literal_text_is_found_case_insensitively_with_snippet_and_utf16_offsets(b):
    a = create(b, title="trip", agentType="planner")["id"]
    other = create(b, title="other")["id"]
    append(b, a, [{"id": "m1", "role": "user", "content": "Find flights to Lisbon please"},
                  {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "🎉 café: lisbon, LISBON!"}]}])
    append(b, other, [{"id": "o1", "role": "user", "content": "nothing here"}])
    r = search(b, "lisbon")
    assert r["totalHits"] == 2 and r["sessionsSearched"] == 2 and "nextCursor" not in r
    by_id = {h["messageId"]: h for h in r["hits"]}
    h2 = by_id["m2"]
    assert h2["sessionId"] == a and h2["sessionTitle"] == "trip" and h2["agentType"] == "planner" and h2["state"] == "idle"
    assert h2["kind"] == "message" and h2["role"] == "assistant" and h2["field"] == "content" and h2["matchCount"] == 2
    text = "🎉 café: lisbon, LISBON!"  # the content block's text; its "type" is not searched text
    for m in h2["matches"]:  # UTF-16 code units: the emoji counts two
        start = m["start"]
        assert text.encode("utf-16-le")[2 * start:2 * (start + m["length"])].decode("utf-16-le").lower() == "lisbon"
    assert h2["matches"][0]["start"] == utf16_len("🎉 café: ")
    snippet_at = h2["matches"][0]["start"] - h2["snippetStart"]
    assert h2["snippet"].encode("utf-16-le")[2 * snippet_at:2 * (snippet_at + 6)].decode("utf-16-le") == "lisbon"
    # Ranked: two matches, the first a whole word (2 + 8) before one whole word (1 + 8).
    assert [h["messageId"] for h in r["hits"]] == ["m2", "m1"] and [h["score"] for h in r["hits"]] == [10, 9]
    assert search(b, "text")["totalHits"] == 0, "a content block's type is not text"


def test_case_sensitivity_and_regular_expressions(b):
    sid = create(b)["id"]
    append(b, sid, [{"id": "a", "role": "user", "content": "Order A-1234 shipped"},
                    {"id": "b", "role": "user", "content": "order a-99 lost"},
                    {"id": "c", "role": "user", "content": "Ünïcode ÉCOLE école"}])
    assert {h["messageId"] for h in search(b, "order")["hits"]} == {"a", "b"}
    assert {h["messageId"] for h in search(b, "Order", caseSensitive=True)["hits"]} == {"a"}
    r = search(b, r"[A-Z]-\d{4}", regex=True, caseSensitive=True)
    assert [h["messageId"] for h in r["hits"]] == ["a"] and r["hits"][0]["matches"] == [{"start": 6, "length": 6}]
    assert {h["messageId"] for h in search(b, r"[a-z]-\d+", regex=True)["hits"]} == {"a", "b"}
    # A non-ASCII literal without case: both spellings, offsets in UTF-16.
    c = search(b, "école")["hits"][0]
    assert c["messageId"] == "c" and c["matchCount"] == 2 and c["matches"][0]["start"] == utf16_len("Ünïcode ")
    assert search(b, "école", caseSensitive=True)["hits"][0]["matchCount"] == 1


def test_every_filter(b):
    planner = create(b, agentType="planner")["id"]
    coder = create(b, agentType="coder")["id"]
    done = create(b, agentType="coder")["id"]
    append(b, planner, [{"id": "p1", "role": "user", "content": "alpha from user"},
                        {"id": "p2", "role": "assistant", "content": "alpha from assistant"}])
    append(b, coder, [{"id": "c1", "role": "system", "content": "alpha system"}])
    time.sleep(0.02)
    cut = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"  # the server's clock is this machine's
    time.sleep(0.02)
    append(b, coder, [{"id": "c2", "role": "user", "content": "alpha later"}])
    append(b, done, [{"id": "d1", "role": "user", "content": "alpha ended"}])
    transition(b, done, "running")
    transition(b, done, "completed")
    everything = search(b, "alpha")
    assert everything["totalHits"] == 5
    assert {k[1] for k in keys(search(b, "alpha", sessionIds=[planner, "sess_unknown"]))} == {"p1", "p2"}
    assert {k[1] for k in keys(search(b, "alpha", roles=["user"]))} == {"p1", "c2", "d1"}
    assert {k[1] for k in keys(search(b, "alpha", roles=["system", "assistant"]))} == {"p2", "c1"}
    assert {k[1] for k in keys(search(b, "alpha", agentTypes=["coder"]))} == {"c1", "c2", "d1"}
    assert {k[1] for k in keys(search(b, "alpha", states=["completed"]))} == {"d1"}
    assert {k[1] for k in keys(search(b, "alpha", states=["idle", "running"]))} == {"p1", "p2", "c1", "c2"}
    later = search(b, "alpha", sessionIds=[coder], since=cut)
    assert {k[1] for k in keys(later)} == {"c2"}
    before = search(b, "alpha", sessionIds=[coder], until=cut)
    assert {k[1] for k in keys(before)} == {"c1"}
    invalid_params(b, "session/search", {"query": "alpha", "roles": ["robot"]})
    invalid_params(b, "session/search", {"query": "alpha", "since": "yesterday"})
    invalid_params(b, "session/search", {"query": "alpha", "states": "idle"})


def test_pages_follow_the_ranking_without_repeats_or_gaps(b):
    sids = [create(b)["id"] for _ in range(3)]
    for n, sid in enumerate(sids):
        append(b, sid, [{"id": f"m{i}", "role": "user", "content": "kiwi " * (1 + (i + n) % 4) + f"#{i}"} for i in range(7)])
    full = search(b, "kiwi", limit=200)
    assert full["totalHits"] == 21 and len(full["hits"]) == 21
    scores = [h["score"] for h in full["hits"]]
    assert scores == sorted(scores, reverse=True)
    paged, cursor = [], None
    while True:
        p = {"limit": 4} if cursor is None else {"limit": 4, "cursor": cursor}
        page = search(b, "kiwi", **p)
        assert page["totalHits"] == 21 and len(page["hits"]) <= 4
        paged += keys(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert paged == keys(full)
    # A cursor is only good for the search that made it; a page reads again the same.
    first = search(b, "kiwi", limit=4)
    assert search(b, "kiwi", limit=4, cursor=first["nextCursor"]) == search(b, "kiwi", limit=4, cursor=first["nextCursor"])
    err = domain_error(b, "session/search", {"query": "banana", "cursor": first["nextCursor"]}, "InvalidArgument")
    assert err["data"]["reason"] == "cursorMismatch"
    domain_error(b, "session/search", {"query": "kiwi", "cursor": "not-a-cursor"}, "InvalidArgument")
    invalid_params(b, "session/search", {"query": "kiwi", "limit": 0})
    invalid_params(b, "session/search", {"query": "kiwi", "limit": 201})


def test_bad_patterns_and_bounds_are_typed_errors_and_the_server_keeps_serving(b):
    sid = create(b)["id"]
    append(b, sid, [{"id": "m", "role": "user", "content": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}])
    err = domain_error(b, "session/search", {"query": "(unclosed", "regex": True}, "InvalidArgument")
    assert err["data"]["reason"] == "badPattern"
    for runaway in ["(a+)+$", "(a|aa)+$", "(x|a+){2,}$"]:  # backtracks without end on the a's: the engine's bound
        err = domain_error(b, "session/search", {"query": runaway, "regex": True}, "LimitExceeded")
        assert err["data"]["reason"] == "matchLimit", runaway
    assert search(b, "(a{2})+!", regex=True)["totalHits"] == 1, "a bounded repeat inside a repeat is fine"
    assert search(b, "(a+)+!", regex=True)["totalHits"] == 1, "a nested repeat that matches is found"
    err = domain_error(b, "session/search", {"query": "é" * 600}, "LimitExceeded")
    assert err["data"] == {"code": "LimitExceeded", "reason": "queryBytes", "limit": 1024, "size": 1200}
    domain_error(b, "session/search", {"query": ""}, "InvalidArgument")
    invalid_params(b, "session/search", {"regex": True})
    invalid_params(b, "session/search", {"query": "a", "timeLimitMs": 0})
    assert search(b, "aaaa")["totalHits"] == 1


def test_tool_calls_are_found_and_a_denied_or_pending_call_never_shows_its_arguments(b, place):
    (place.root / "keep.md").write_text("keep")
    sid = create(b)["id"]
    transition(b, sid, "running")
    ok = b.result("session/callTool", {"id": sid, "toolCallId": "w1", "name": "write_file",
                                       "arguments": {"path": "notes/zebra.txt", "content": "the zebra crossing"}})
    assert ok["isError"] is False
    r = search(b, "zebra")
    fields = {(h["toolCallId"], h["field"]) for h in r["hits"] if h["kind"] == "toolCall"}
    assert ("w1", "arguments") in fields
    hit = next(h for h in r["hits"] if h["kind"] == "toolCall")
    assert hit["toolName"] == "write_file" and "role" not in hit
    assert {h["toolCallId"] for h in search(b, "write_file")["hits"]} == {"w1"}
    assert search(b, "zebra", roles=["user"])["totalHits"] == 0, "tool calls count as role tool"
    assert search(b, "zebra", roles=["tool"])["totalHits"] == r["totalHits"]
    # Denied: its name and refusal are found, never its arguments.
    b.result("session/setApprovalPolicy", {"id": sid, "approvalPolicy": {"tools": ["delete_file"]}})
    call = {"id": sid, "toolCallId": "x1", "name": "delete_file", "arguments": {"path": "secret-giraffe.md"}}
    assert "pendingApproval" in b.result("session/callTool", call)
    assert search(b, "giraffe")["totalHits"] == 0, "a pending call is not searched"
    b.result("session/approve", {"id": sid, "toolCallId": "x1", "decision": "deny", "remember": True})
    assert search(b, "giraffe")["totalHits"] == 0, "a denied call's arguments are never found"
    refused = search(b, "did not allow")
    assert [(h["toolCallId"], h["field"]) for h in refused["hits"]] == [("x1", "result")]
    later = b.result("session/callTool", {**call, "toolCallId": "x2", "arguments": {"path": "okapi.md"}})
    assert later["structuredContent"]["code"] == "ApprovalDenied"  # remembered: no approval record for x2
    assert search(b, "okapi")["totalHits"] == 0
    assert {h["toolCallId"] for h in search(b, "delete_file", roles=["tool"])["hits"]} == {"x1", "x2"}


def test_compacted_originals_only_on_request_and_never_once_retention_dropped_them(b):
    sid = create(b)["id"]
    append(b, sid, [{"id": f"m{i}", "role": "user", "content": f"walrus {i}"} for i in range(1, 5)])
    c = b.result("session/compact", {"id": sid, "throughMessageId": "m3", "summary": "a summary of the walrus talk",
                                     "by": "tester"})
    shown = search(b, "walrus")
    assert {(h["messageId"], h.get("summary", False)) for h in shown["hits"]} == {(c["id"], True), ("m4", False)}
    assert all("compactedBy" not in h for h in shown["hits"])
    assert search(b, "walrus 2")["totalHits"] == 0
    with_originals = search(b, "walrus 2", includeCompacted=True)
    assert [(h["messageId"], h["compactedBy"]) for h in with_originals["hits"]] == [("m2", c["id"])]
    # The journal is rewritten (originals moved to the archive): still found on request.
    append(b, sid, [{"id": f"n{i}", "role": "user", "content": "y" * 2000} for i in range(200)])
    b.result("session/compact", {"id": sid, "throughMessageId": "n198", "fromMessageId": "n0", "summary": "ys", "by": "t"}, 20.0)
    assert [h["messageId"] for h in search(b, "walrus 2", includeCompacted=True)["hits"]] == ["m2"]
    b.result("session/setRetention", {"keepCompactedOriginalsSeconds": 0}, 20.0)
    b.result("session/prune", {}, 20.0)
    assert search(b, "walrus 2", includeCompacted=True)["totalHits"] == 0, "retention dropped the originals"
    assert {h["messageId"] for h in search(b, "walrus", includeCompacted=True)["hits"]} == {c["id"], "m4"}


def test_retention_pruned_messages_and_deleted_sessions_are_not_found(b):
    sid = create(b)["id"]
    for k in range(8):
        append(b, sid, [{"id": f"m{k}-{i}", "role": "user", "content": f"batch{k} item {i} " + "z" * 400} for i in range(100)])
    assert search(b, "batch0")["totalHits"] == 100
    ended = create(b, title="ended")["id"]
    append(b, ended, [{"id": "e1", "role": "user", "content": "batch0 in an ended session"}])
    transition(b, ended, "running")
    transition(b, ended, "completed")
    got = b.result("session/setRetention", {"maxBytesPerSession": 131072, "keepEndedSessions": 0}, 30.0)
    assert ended in got["pruned"]["deletedSessions"]
    assert search(b, "batch0")["totalHits"] == 0
    assert search(b, "batch0", includeCompacted=True)["totalHits"] == 0, "folded by retention: dropped, not archived"
    assert search(b, "batch7 item 99")["totalHits"] == 1, "the last message stays"


def test_progress_is_reported_and_cancel_stops_the_search(b):
    # A regex that costs 2^16 backtracking steps per line (under the engine's bound: it runs on),
    # over as many sessions as this machine needs to search for about 3 s (measured on the first).
    line = "a" * 16 + "!b"
    content = "\n".join([line] * 100)
    pattern = r"(a+)+b"

    def session() -> str:
        sid = create(b)["id"]
        append(b, sid, [{"id": "m", "role": "user", "content": content}])
        return sid

    sids = [session()]
    start = time.monotonic()
    one = search(b, pattern, regex=True, sessionIds=[sids[0]], workDoneToken="one")
    per_session = time.monotonic() - start
    assert one["totalHits"] == 0
    begin = [m for m in b.notifications("$/progress") if m["params"]["token"] == "one"]
    kinds = [m["params"]["value"]["kind"] for m in begin]
    assert kinds[0] == "begin" and kinds[-1] == "end", kinds
    assert begin[-1]["params"]["value"]["message"] == "0 hits in 1 sessions"
    sids += [session() for _ in range(min(400, int(6.0 / per_session)))]
    whole = per_session * len(sids) / 2  # two cores at most
    rid = b.request("session/search", {"query": pattern, "regex": True, "workDoneToken": "all"})
    b.track(rid, "session/search")
    b.take(lambda m: isinstance(m, dict) and m.get("method") == "$/progress" and m["params"]["token"] == "all"
           and m["params"]["value"]["kind"] == "begin", timeout=10, what="progress begin")
    sent = time.monotonic()
    b.notify("$/cancelRequest", {"id": rid})
    answer = b.response(rid, timeout=10)
    assert answer["error"]["code"] == -32800
    # The search claims the sessions it reads: a write waits until it has really stopped.
    append(b, sids[-1], [{"id": "after", "role": "user", "content": "after the cancel"}])
    waited = time.monotonic() - sent
    assert waited < max(1.0, whole / 2), f"the cancelled search went on ({waited:.2f}s of about {whole:.2f}s)"
    assert search(b, "after the cancel")["totalHits"] == 1


def test_the_time_limit_is_a_typed_error(b):
    sids = [create(b)["id"] for _ in range(8)]
    for sid in sids:
        append(b, sid, [{"id": "m", "role": "user", "content": "\n".join(["ab" * 12] * 100)}])
    err = domain_error(b, "session/search", {"query": r"\w*\w*\w*\d", "regex": True, "timeLimitMs": 1}, "LimitExceeded")
    assert err["data"]["reason"] == "time" and err["data"]["limit"] == 1
    assert search(b, "ab")["totalHits"] == 8
