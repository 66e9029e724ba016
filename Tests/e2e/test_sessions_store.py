"""The session store behind agent frameworks (issue 25; docs/protocol.md, "Agent sessions"):
per-message metadata, reading by `before`/`last`/`where`, deleting messages, session metadata
and child sessions, listing from the metadata index without reading a journal, and per-turn
statistics — each through the real binary, every message checked against the schema.
"""
from __future__ import annotations

import base64
import os

from sessions_helpers import append, b, create, domain_error, get, invalid_params, place, transition, usage  # noqa: F401 (fixtures)


def ids(page: dict) -> list[str]:
    return [m["id"] for m in page["messages"]]


def messages(b, sid: str, **kw) -> dict:
    return b.result("session/messages", {"id": sid, **kw}, 10.0)


def checkpoints(n: int, thread: str = "t1") -> list[dict]:
    """What a checkpoint saver stores: one message per checkpoint, its keys in metadata."""
    return [{"id": f"c{i}" if thread == "t1" else f"{thread}c{i}", "role": "system", "content": {"step": i},
             "metadata": {"thread": thread, "step": i, "even": i % 2 == 0}} for i in range(1, n + 1)]


# -- 1. per-message metadata ----------------------------------------------------------------

def test_message_metadata_is_stored_answered_and_survives_a_kill(spawn, place, b):
    sid = create(b)["id"]
    append(b, sid, [{"id": "m1", "role": "user", "content": "hi", "metadata": {"run": "r1", "n": [1, {"x": None}]}},
                    {"id": "m2", "role": "assistant", "content": "hello"}])
    b = place.restart(spawn, b)
    got = messages(b, sid)["messages"]
    assert got[0]["metadata"] == {"run": "r1", "n": [1, {"x": None}]} and "metadata" not in got[1]


def test_message_metadata_that_is_no_object_or_too_large_is_refused_and_nothing_is_stored(b):
    sid = create(b)["id"]
    err = invalid_params(b, "session/appendMessages", {"id": sid, "messages": [
        {"role": "user", "content": "x", "metadata": [1]}]})
    assert "messages[0]" in err["data"]["field"]
    big = {"blob": "x" * (64 << 10)}
    err = domain_error(b, "session/appendMessages", {"id": sid, "messages": [
        {"id": "ok", "role": "user", "content": "x"}, {"role": "user", "content": "y", "metadata": big}]}, "TooLarge")
    assert err["data"]["limit"] == 65536 and err["data"]["size"] > 65536
    assert messages(b, sid)["messages"] == []
    domain_error(b, "session/create", {"metadata": big}, "TooLarge")


# -- 2. reading: before, last, where, hasMore ------------------------------------------------

def test_messages_read_before_last_and_where_with_a_place_to_go_on(b):
    sid = create(b)["id"]
    append(b, sid, checkpoints(9) + checkpoints(3, thread="t2"))
    page = messages(b, sid, limit=4)
    assert ids(page) == ["c1", "c2", "c3", "c4"] and page["hasMore"] is True and page["nextAfter"] == "c4"
    page = messages(b, sid, last=2, before="c9")
    assert ids(page) == ["c7", "c8"] and page["hasMore"] and page["nextBefore"] == "c7"
    # The last checkpoint of thread t1, and paging backwards through its even steps.
    page = messages(b, sid, last=1, where={"metadata": {"thread": "t1"}})
    assert [m["metadata"]["step"] for m in page["messages"]] == [9] and page["hasMore"]
    page = messages(b, sid, last=2, where={"metadata": {"thread": "t1", "even": True}})
    assert [m["metadata"]["step"] for m in page["messages"]] == [6, 8] and page["nextBefore"]
    page = messages(b, sid, last=2, before=page["nextBefore"], where={"metadata": {"thread": "t1", "even": True}})
    assert [m["metadata"]["step"] for m in page["messages"]] == [2, 4] and page["hasMore"] is False
    assert "nextBefore" not in page
    page = messages(b, sid, where={"metadata": {"thread": "t2"}}, limit=2)
    assert [m["metadata"]["step"] for m in page["messages"]] == [1, 2] and page["hasMore"]
    page = messages(b, sid, where={"metadata": {"thread": "t2"}}, after=page["nextAfter"])
    assert [m["metadata"]["step"] for m in page["messages"]] == [3] and page["hasMore"] is False
    assert ids(messages(b, sid, where={"role": "user"})) == []
    assert ids(messages(b, sid, after="c2", before="c5")) == ["c3", "c4"]


def test_message_reading_errors_are_typed(b):
    sid = create(b)["id"]
    append(b, sid, checkpoints(2))
    domain_error(b, "session/messages", {"id": sid, "before": "nope"}, "InvalidArgument")
    invalid_params(b, "session/messages", {"id": sid, "where": {"role": "robot"}})
    invalid_params(b, "session/messages", {"id": sid, "where": {"colour": "red"}})
    invalid_params(b, "session/messages", {"id": sid, "last": 0})


# -- 3. deleting messages -----------------------------------------------------------------

def test_deleted_messages_stay_deleted_through_a_kill_a_fork_and_an_export(spawn, place, b):
    sid = create(b)["id"]
    append(b, sid, checkpoints(6))
    assert b.result("session/deleteMessages", {"id": sid, "messageIds": ["c2", "nope"]})["deleted"] == ["c2"]
    assert b.result("session/deleteMessages", {"id": sid, "where": {"metadata": {"step": 4}}})["deleted"] == ["c4"]
    assert b.result("session/deleteMessages", {"id": sid, "last": 1})["deleted"] == ["c6"]
    assert b.result("session/deleteMessages", {"id": sid, "messageIds": ["c2"]})["deleted"] == []
    b = place.restart(spawn, b)
    assert ids(messages(b, sid)) == ["c1", "c3", "c5"]
    fork = b.result("session/fork", {"id": sid})
    assert ids(messages(b, fork["id"])) == ["c1", "c3", "c5"]
    exported = b.result("session/export", {"id": sid, "path": "Chats/out.json"})
    imported = b.result("session/import", {"path": exported["path"]})
    assert ids(messages(b, imported["session"]["id"])) == ["c1", "c3", "c5"]
    # A deleted id is free again.
    assert append(b, sid, [{"id": "c2", "role": "user", "content": "again"}]) == 1
    assert ids(messages(b, sid)) == ["c1", "c3", "c5", "c2"]


def test_delete_messages_needs_exactly_one_selector(b):
    sid = create(b)["id"]
    append(b, sid, checkpoints(2))
    invalid_params(b, "session/deleteMessages", {"id": sid})
    invalid_params(b, "session/deleteMessages", {"id": sid, "messageIds": ["c1"], "last": 1})
    invalid_params(b, "session/deleteMessages", {"id": sid, "messageIds": [1]})
    domain_error(b, "session/deleteMessages", {"id": "sess_nope", "last": 1}, "NotFound")
    assert ids(messages(b, sid)) == ["c1", "c2"]


# -- 4. session metadata, forks' metadata, children ------------------------------------------

def test_update_merges_metadata_key_by_key_and_survives_a_kill(spawn, place, b):
    sid = create(b, metadata={"a": 1, "b": 2})["id"]
    s = b.result("session/update", {"id": sid, "title": "named", "metadata": {"b": None, "c": {"d": 3}}})
    assert s["title"] == "named" and s["metadata"] == {"a": 1, "c": {"d": 3}}
    b = place.restart(spawn, b)
    assert get(b, sid)["metadata"] == {"a": 1, "c": {"d": 3}} and get(b, sid)["title"] == "named"
    fork = b.result("session/fork", {"id": sid, "metadata": {"a": None, "branch": "x"}})
    assert fork["metadata"] == {"c": {"d": 3}, "branch": "x"} and get(b, sid)["metadata"]["a"] == 1
    invalid_params(b, "session/update", {"id": sid, "metadata": [1]})
    domain_error(b, "session/update", {"id": sid, "metadata": {"big": "x" * (64 << 10)}}, "TooLarge")


def test_a_child_session_names_its_parent_and_is_listed_under_it(b):
    parent = create(b, title="main")["id"]
    child = create(b, title="subagent", parentId=parent)
    assert child["parentId"] == parent and child["parentKind"] == "child" and "forkedAt" not in child
    fork = b.result("session/fork", {"id": parent})
    assert fork["parentKind"] == "fork" and fork["forkedAt"]["parentId"] == parent
    under = b.result("session/list", {"parentId": parent})["sessions"]
    assert {s["id"] for s in under} == {child["id"], fork["id"]}
    domain_error(b, "session/create", {"parentId": "sess_0000000000000000"}, "NotFound")


# -- 5. listing from the metadata index ---------------------------------------------------

def test_list_is_most_recent_first_filtered_and_paged_with_a_stable_cursor(b):
    made = []
    for i in range(7):
        s = create(b, title=f"Chat {i}", agentType="coder" if i % 2 else "writer", metadata={"project": f"p{i % 3}"})
        made.append(s["id"])
    b.result("session/update", {"id": made[2], "title": "Chat 2 renamed"})  # now the most recent
    want = [made[2]] + [m for m in reversed(made) if m != made[2]]
    seen, cursor = [], None
    while True:
        p = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        page = b.result("session/list", p)
        seen += [s["id"] for s in page["sessions"]]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert seen == want
    coder = [s["id"] for s in b.result("session/list", {"agentType": "coder"})["sessions"]]
    assert set(coder) == {made[1], made[3], made[5]}
    assert [s["id"] for s in b.result("session/list", {"metadata": {"project": "p1"}})["sessions"]] == [made[4], made[1]]
    assert [s["id"] for s in b.result("session/list", {"titleContains": "RENAMED"})["sessions"]] == [made[2]]
    since = get(b, made[2])["updatedAt"]
    assert [s["id"] for s in b.result("session/list", {"updatedSince": since})["sessions"]] == [made[2]]
    transition(b, made[0], "running")
    assert [s["id"] for s in b.result("session/list", {"state": "running", "agentType": "writer"})["sessions"]] == [made[0]]
    invalid_params(b, "session/list", {"updatedSince": "yesterday"})
    domain_error(b, "session/list", {"cursor": "c1:1:sess_x"}, "InvalidArgument")


def test_list_answers_from_the_index_without_reading_a_journal(spawn, place, b):
    sid = create(b, title="indexed", metadata={"k": "v"})["id"]
    other = create(b, title="other")["id"]
    append(b, sid, checkpoints(3))
    b.result("session/update", {"id": sid, "metadata": {"k": "w"}})
    assert b.result("session/list", {})["sessions"][0]["metadata"] == {"k": "w"}  # writes the index
    b.kill()
    folder = place.sessions_dir / sid
    journal = folder / "journal.jsonl"
    st = journal.stat()
    # Same size and time, unreadable content: only a server that reads the journal would notice.
    journal.write_bytes(b"\x00" * st.st_size)
    os.utime(journal, ns=(st.st_atime_ns, st.st_mtime_ns))
    b = place.start(spawn)
    listed = b.result("session/list", {"metadata": {"k": "w"}})["sessions"]
    assert [(s["id"], s["title"]) for s in listed] == [(sid, "indexed")]
    # Without an index the journal is read (the zeroed one holds no session; the other one is
    # listed and its index written again).
    b.kill()
    (folder / "listing.json").unlink()
    (place.sessions_dir / other / "listing.json").unlink()
    b = place.start(spawn)
    assert [s["id"] for s in b.result("session/list", {})["sessions"]] == [other]
    assert (place.sessions_dir / other / "listing.json").exists()


def test_an_index_that_does_not_match_its_journal_is_not_believed(spawn, place, b):
    sid = create(b, title="before")["id"]
    b.result("session/list", {})
    b.result("session/update", {"id": sid, "title": "after"})
    b.kill()  # the index on disk still says "before", and the journal grew since
    b = place.start(spawn)
    assert [s["title"] for s in b.result("session/list", {})["sessions"]] == ["after"]
    # A forged index for a journal of another size is ignored too.
    idx = place.sessions_dir / sid / "listing.json"
    idx.write_bytes(b"garbage\n")
    b = place.restart(spawn, b)
    assert [s["title"] for s in b.result("session/list", {})["sessions"]] == ["after"]


# -- 6. per-turn statistics ----------------------------------------------------------------

def test_stats_count_messages_tokens_and_tool_calls_per_turn(b, place):
    sid = create(b)["id"]
    transition(b, sid, "running")
    append(b, sid, [{"id": "sys", "role": "system", "content": "be brief"}])
    append(b, sid, [{"id": "u1", "role": "user", "content": "write a note"}])
    usage(b, sid, 100, 10, model="gpt-4o-mini")
    r = b.result("session/callTool", {"id": sid, "toolCallId": "t1", "name": "append_file",
                                      "arguments": {"path": "note.txt", "content": "x"}})
    assert r["isError"] is False
    r = b.result("session/callTool", {"id": sid, "toolCallId": "t2", "name": "read_file", "arguments": {"path": "nope.txt"}})
    assert r["isError"] is True
    append(b, sid, [{"id": "a1", "role": "assistant", "content": "done"}])
    append(b, sid, [{"id": "u2", "role": "user", "content": "thanks"}])
    usage(b, sid, 50, 5, model="claude-haiku")
    usage(b, sid, 7, 1)
    st = b.result("session/stats", {"id": sid})
    pre, t1, t2 = st["turns"]
    assert "userMessageId" not in pre and pre["messages"] == 1 and pre["toolCalls"]["count"] == 0
    assert t1["userMessageId"] == "u1" and t1["messages"] == 2
    assert (t1["usage"]["inputTokens"], t1["usage"]["outputTokens"], t1["usage"]["modelCalls"]) == (100, 10, 1)
    assert t1["usage"]["byModel"] == [{"model": "gpt-4o-mini", "inputTokens": 100, "outputTokens": 10}]
    assert t1["toolCalls"] == {"count": 2, "byName": {"append_file": 1, "read_file": 1}, "byOutcome": {"error": 1, "ok": 1}}
    assert t2["userMessageId"] == "u2" and t2["messages"] == 1 and t2["usage"]["inputTokens"] == 57
    assert {m["model"] for m in t2["usage"]["byModel"]} == {"claude-haiku", ""}
    assert st["totals"]["usage"]["inputTokens"] == 157 and st["totals"]["messages"] == 4
    assert st["totals"]["toolCalls"]["count"] == 2 and "unattributed" not in st
    assert get(b, sid)["usage"]["inputTokens"] == 157
    # A deleted user message opens no turn: its usage goes to the turn before.
    b.result("session/deleteMessages", {"id": sid, "messageIds": ["u2"]})
    assert [t.get("userMessageId") for t in b.result("session/stats", {"id": sid})["turns"]] == [None, "u1"]
    domain_error(b, "session/stats", {"id": "sess_0000000000000000"}, "NotFound")
