"""Agent sessions (docs/protocol.md, "Agent sessions"): create, get, list, messages, delete; the
state table (every allowed move, every refused one); session/didChangeState; message dedupe;
usage pricing and budgets; checkpoint and resume; what survives a SIGKILL.

Every server runs with --local-root and --config-dir under tmp_path (sessions_helpers.Place).
"""
from __future__ import annotations

import json
import shutil

import pytest

from sessions_helpers import (ALLOWED, DEFAULT_PRICES, PATH_TO, STATES, Place, all_messages, append, b,  # noqa: F401 (fixtures)
                              create, domain_error, drive, get, invalid_params, no_state_changes, pipeline, place,
                              price, results, state_changes, transition, usage)


# -- create / get / list / delete ---------------------------------------------------

def test_sessions_can_be_created_right_after_start(spawn, place):
    # Arrange: a workspace with many folders (initialize starts a sweep of leftover temp files
    # through them); act: create sessions as soon as initialize has answered, on 15 fresh starts.
    for i in range(1000):
        (place.root / f"d{i:04d}").mkdir(parents=True)
    failures = []
    for k in range(15):
        shutil.rmtree(place.root / ".workspace", ignore_errors=True)
        b = place.start(spawn)
        answers = pipeline(b, [("session/create", {"title": f"s{i}"}) for i in range(40)])
        failures += [(k, a["error"]) for a in answers if "error" in a]
        b.kill()

    assert not failures, f"{len(failures)} of 600 creates failed, first: {failures[0]}"


def test_sessions_created_in_parallel_on_a_first_start_are_owned_by_that_server(spawn, tmp_path):
    # A fresh configuration folder (no machine id yet); the first session calls arrive together.
    refused = []
    for k in range(20):
        place = Place(tmp_path / f"p{k}")
        b = place.start(spawn)
        ids = [r["id"] for r in results(pipeline(b, [("session/create", {}) for _ in range(3)]))]

        answers = pipeline(b, [("session/appendMessages", {"id": sid, "messages": [{"role": "user", "content": "x"}]})
                               for sid in ids])

        refused += [a["error"] for a in answers if "error" in a]
        b.kill()
    assert not refused, f"{len(refused)} of 60 appends refused, first: {refused[0]}"


def test_create_returns_an_idle_session_with_what_was_given(b):
    s = create(b, title="Trip", agentType="planner", metadata={"tags": ["x"], "n": 1},
               config={"modelTier": "powerful", "model": "m-1", "maxInputTokens": 10, "maxOutputTokens": 20,
                       "maxTurns": 3, "maxCostUSD": 0.5})

    assert s["state"] == "idle" and "error" not in s
    assert (s["title"], s["agentType"], s["metadata"]) == ("Trip", "planner", {"tags": ["x"], "n": 1})
    assert s["config"] == {"modelTier": "powerful", "model": "m-1", "maxInputTokens": 10, "maxOutputTokens": 20,
                           "maxTurns": 3, "maxCostUSD": 0.5}
    assert s["usage"] == {"inputTokens": 0, "outputTokens": 0, "turns": 0, "estimatedCostUSD": 0}
    assert s["pendingToolCalls"] == [] and s["createdAt"] == s["updatedAt"]


def test_create_without_params_uses_the_defaults(b):
    s = create(b)

    assert s["state"] == "idle" and s["config"] == {} and "metadata" not in s
    assert isinstance(s["title"], str) and isinstance(s["agentType"], str)


def test_create_refuses_a_bad_config_as_invalid_params(b):
    for config in ({"maxTurns": -1}, {"modelTier": "huge"}, {"maxCostUSD": "1"}, []):
        err = invalid_params(b, "session/create", {"config": config})
        assert err["data"]["field"] == "config", (config, err)
    assert b.result("session/list", {})["sessions"] == []


def test_get_returns_the_session_and_an_unknown_id_is_not_found(b):
    s = create(b, title="a")

    got = get(b, s["id"])
    assert got.pop("bytesOnDisk") > 0  # session/get alone reports what the session holds on disk
    assert got == s
    err = domain_error(b, "session/get", {"id": "sess_0000000000000000"}, "NotFound")
    assert err["data"]["id"] == "sess_0000000000000000"


def test_list_filters_by_state(b):
    ids = {st: create(b, title=st)["id"] for st in STATES}
    for st, sid in ids.items():
        drive(b, sid, st)

    for st in STATES:
        listed = b.result("session/list", {"state": st})["sessions"]
        assert [s["id"] for s in listed] == [ids[st]], st
    assert len(b.result("session/list", {})["sessions"]) == len(STATES)
    invalid_params(b, "session/list", {"state": "sleeping"})


def test_list_pages_most_recently_changed_first_with_a_cursor(b):
    made = [create(b, title=f"s{i}")["id"] for i in range(7)][::-1]  # newest first

    pages, cursor = [], None
    while True:
        p = {"limit": 3} if cursor is None else {"limit": 3, "cursor": cursor}
        r = b.result("session/list", p)
        pages.append([s["id"] for s in r["sessions"]])
        cursor = r.get("nextCursor")
        if cursor is None:
            break

    assert pages == [made[0:3], made[3:6], made[6:7]]
    assert [s["id"] for s in b.result("session/list", {})["sessions"]] == made
    assert [s["id"] for s in b.result("session/list", {"limit": 7})["sessions"]] == made
    assert "nextCursor" not in b.result("session/list", {"limit": 7})
    domain_error(b, "session/list", {"cursor": "not-a-cursor"}, "InvalidArgument")


def test_list_pages_stay_stable_while_sessions_are_added_and_removed(b):
    made = [create(b)["id"] for _ in range(5)][::-1]  # newest first
    first = b.result("session/list", {"limit": 2})

    b.result("session/delete", {"id": made[0]})
    b.result("session/delete", {"id": made[3]})
    late = create(b)["id"]  # newer than the cursor: on the first page of a new listing, not here
    second = b.result("session/list", {"limit": 10, "cursor": first["nextCursor"]})

    assert [s["id"] for s in first["sessions"]] == made[:2]
    assert [s["id"] for s in second["sessions"]] == [made[2], made[4]]
    assert [s["id"] for s in b.result("session/list", {})["sessions"]] == [late, made[1], made[2], made[4]]


def test_delete_removes_the_session_and_its_folder(b, place):
    keep, gone = create(b)["id"], create(b)["id"]
    append(b, gone, [{"role": "user", "content": "x"}])
    assert (place.sessions_dir / gone).is_dir()

    r = b.result("session/delete", {"id": gone})

    assert r == {"id": gone, "deleted": True}
    domain_error(b, "session/get", {"id": gone}, "NotFound")
    domain_error(b, "session/messages", {"id": gone}, "NotFound")
    domain_error(b, "session/delete", {"id": gone}, "NotFound")
    assert [s["id"] for s in b.result("session/list", {})["sessions"]] == [keep]
    assert not (place.sessions_dir / gone).exists()
    assert [p.name for p in place.sessions_dir.iterdir() if p.name.startswith("sess_")] == [keep]


# -- messages -----------------------------------------------------------------------

def test_messages_page_with_after_and_limit_in_append_order(b):
    sid = create(b)["id"]
    sent = [{"id": f"m{i}", "role": ["user", "assistant"][i % 2], "content": f"text {i}"} for i in range(10)]
    assert append(b, sid, sent[:4]) == 4
    assert append(b, sid, sent[4:]) == 6

    def ids(**p):
        return [m["id"] for m in b.result("session/messages", {"id": sid, **p})["messages"]]

    assert ids() == [f"m{i}" for i in range(10)]
    assert ids(limit=4) == ["m0", "m1", "m2", "m3"]
    assert ids(after="m3", limit=3) == ["m4", "m5", "m6"]
    assert ids(after="m6") == ["m7", "m8", "m9"]
    assert ids(after="m9") == []
    domain_error(b, "session/messages", {"id": sid, "after": "nope"}, "InvalidArgument")
    invalid_params(b, "session/messages", {"id": sid, "limit": 0})


def test_messages_keep_content_tool_calls_and_get_an_id_and_time(b):
    sid = create(b)["id"]
    tool_calls = [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}]
    sent = [
        {"role": "system", "content": "be brief"},
        {"id": "a1", "role": "assistant", "content": [{"type": "text", "text": "reading"}], "toolCalls": tool_calls},
        {"id": "t1", "role": "tool", "content": "file text", "toolCallId": "call_1"},
    ]

    assert append(b, sid, sent) == 3
    got = all_messages(b, sid)

    assert [m["role"] for m in got] == ["system", "assistant", "tool"]
    assert got[0]["id"] and got[0]["content"] == "be brief" and "toolCalls" not in got[0]
    assert got[1]["id"] == "a1" and got[1]["content"] == sent[1]["content"] and got[1]["toolCalls"] == tool_calls
    assert got[2]["toolCallId"] == "call_1"
    assert all(m["at"] for m in got)


def test_a_message_id_seen_before_is_not_stored_twice(b):
    sid = create(b)["id"]

    counts = [append(b, sid, [{"id": "m1", "role": "user", "content": "first"}, {"id": "m2", "role": "user", "content": "2"}]),
              append(b, sid, [{"id": "m2", "role": "user", "content": "changed"}, {"id": "m3", "role": "user", "content": "3"}]),
              append(b, sid, [{"id": "m4", "role": "user", "content": "4"}, {"id": "m4", "role": "user", "content": "4 again"}]),
              append(b, sid, [{"id": "m1", "role": "assistant", "content": "retry"}])]

    assert counts == [2, 1, 1, 0]
    got = all_messages(b, sid)
    assert [(m["id"], m["content"]) for m in got] == [("m1", "first"), ("m2", "2"), ("m3", "3"), ("m4", "4")]


def test_append_refuses_a_malformed_message_and_stores_nothing(b):
    sid = create(b)["id"]

    invalid_params(b, "session/appendMessages", {"id": sid, "messages": [{"role": "user", "content": "ok"},
                                                                          {"role": "robot", "content": "x"}]})
    invalid_params(b, "session/appendMessages", {"id": sid, "messages": [{"role": "user"}]})
    invalid_params(b, "session/appendMessages", {"id": sid, "messages": "hello"})

    assert all_messages(b, sid) == []


def test_thousands_of_pipelined_calls_on_one_session_are_all_answered(b):
    # Requests on one session run one after the other, in arrival order; a client may pipeline them.
    sid = create(b)["id"]
    append(b, sid, [{"id": "m1", "role": "user", "content": "x"}])
    for round_ in range(10):
        calls = [("session/appendMessages", {"id": sid, "messages": [{"id": "m1", "role": "user", "content": "x"}]})
                 for _ in range(2000)]

        answers = pipeline(b, calls, 60.0)

        assert [a.get("result") for a in answers] == [{"count": 0}] * 2000, round_
    assert [m["id"] for m in all_messages(b, sid)] == ["m1"]


# -- the state table ----------------------------------------------------------------

ALLOWED_MOVES = [(f, t) for f in STATES for t in ALLOWED[f]]


@pytest.mark.parametrize("frm, to", ALLOWED_MOVES, ids=[f"{f}-{t}" for f, t in ALLOWED_MOVES])
def test_every_allowed_transition_is_made_and_notified(b, frm, to):
    sid = create(b)["id"]
    drive(b, sid, frm)
    state_changes(b, len(PATH_TO[frm]))

    s = transition(b, sid, to)

    assert s["state"] == to and get(b, sid)["state"] == to
    note = state_changes(b, 1)[0]
    assert {k: note[k] for k in ("id", "from", "to")} == {"id": sid, "from": frm, "to": to}
    no_state_changes(b)


def test_every_change_along_a_path_is_notified_in_order(b):
    sid = create(b)["id"]
    path = ["running", "waitingForUser", "running", "backgrounded", "running", "waitingForUser", "backgrounded",
            "completed"]

    for to in path:
        transition(b, sid, to)

    notes = state_changes(b, len(path))
    assert [(n["from"], n["to"]) for n in notes] == list(zip(["idle"] + path[:-1], path))
    assert {n["id"] for n in notes} == {sid}


@pytest.mark.parametrize("frm", STATES)
def test_refused_transitions_answer_InvalidTransition_with_from_to_and_allowed(b, frm):
    sid = create(b)["id"]
    before = drive(b, sid, frm)
    state_changes(b, len(PATH_TO[frm]))
    refused = [t for t in STATES if t not in ALLOWED[frm] and t != frm]

    for to in refused:
        err = domain_error(b, "session/transition", {"id": sid, "to": to}, "InvalidTransition")
        assert (err["data"]["from"], err["data"]["to"], err["data"]["allowed"]) == (frm, to, ALLOWED[frm]), err
    # A move to the state it is in (a retry whose answer was lost) is a no-op, not an error.
    assert b.result("session/transition", {"id": sid, "to": frm}) == before

    assert {k: v for k, v in get(b, sid).items() if k != "bytesOnDisk"} == before
    no_state_changes(b)


def test_transition_params_are_checked(b):
    sid = create(b)["id"]

    invalid_params(b, "session/transition", {"id": sid, "to": "asleep"})
    invalid_params(b, "session/transition", {"id": sid})
    domain_error(b, "session/transition", {"id": "sess_ffffffffffffffff", "to": "running"}, "NotFound")
    assert get(b, sid)["state"] == "idle"


def test_failed_keeps_the_error_given_and_the_notification_gives_its_message(b):
    sid = create(b)["id"]
    transition(b, sid, "running")
    error = {"code": "ModelError", "message": "the model refused"}

    s = transition(b, sid, "failed", error=error)

    assert s["state"] == "failed" and s["error"] == error
    notes = state_changes(b, 2)
    assert notes[1] == {"id": sid, "from": "running", "to": "failed", "reason": "the model refused"}


def test_changes_made_by_the_server_itself_carry_their_reason(b):
    sid = create(b)["id"]
    transition(b, sid, "running")
    b.result("host/didEnterBackground", {})
    b.result("session/resume", {"id": sid})

    notes = state_changes(b, 3)

    assert [(n["from"], n["to"], n.get("reason")) for n in notes] == [
        ("idle", "running", None), ("running", "backgrounded", "background"), ("backgrounded", "running", "resume")]


# -- usage, pricing and budgets -----------------------------------------------------

@pytest.mark.parametrize("tier", ["fast", "balanced", "powerful"])
def test_usage_is_priced_by_the_sessions_tier(b, tier):
    sid = create(b, config={"modelTier": tier})["id"]

    r1 = usage(b, sid, 1_000_000, 0)
    r2 = usage(b, sid, 0, 1_000_000)
    r3 = usage(b, sid, 1234, 567)

    pin, pout = DEFAULT_PRICES[tier]
    assert r1["usage"]["estimatedCostUSD"] == pytest.approx(pin)
    assert r2["usage"]["estimatedCostUSD"] == pytest.approx(pin + pout)
    assert r3["usage"] == {"inputTokens": 1_001_234, "outputTokens": 1_000_567, "turns": 3,
                           "estimatedCostUSD": pytest.approx(pin + pout + price(tier, 1234, 567))}
    assert r3["remaining"] == {} and r3["exceeded"] == []
    assert get(b, sid)["usage"] == r3["usage"]


def test_usage_without_a_tier_is_priced_as_balanced(b):
    sid = create(b)["id"]

    r = usage(b, sid, 1_000_000, 1_000_000)

    assert r["usage"]["estimatedCostUSD"] == pytest.approx(sum(DEFAULT_PRICES["balanced"]))


def test_pricing_json_in_the_config_folder_overrides_the_defaults(spawn, place):
    place.config.mkdir(parents=True)
    (place.config / "pricing.json").write_text(json.dumps({
        "tiers": {"fast": {"input": 1, "output": 2}, "powerful": {"output": 100}},
        "models": {"my-model": {"input": 10, "output": 20}}}))
    b = place.start(spawn)
    fast = create(b, config={"modelTier": "fast"})["id"]
    powerful = create(b, config={"modelTier": "powerful"})["id"]
    balanced = create(b, config={"modelTier": "balanced"})["id"]
    by_model = create(b, config={"modelTier": "fast", "model": "my-model"})["id"]

    costs = {name: usage(b, sid, 1_000_000, 1_000_000)["usage"]["estimatedCostUSD"]
             for name, sid in [("fast", fast), ("powerful", powerful), ("balanced", balanced), ("model", by_model)]}
    per_call = usage(b, fast, 1_000_000, 1_000_000, model="my-model")["usage"]["estimatedCostUSD"] - costs["fast"]

    assert costs["fast"] == pytest.approx(1 + 2)
    assert costs["powerful"] == pytest.approx(15 + 100)     # input keeps its default
    assert costs["balanced"] == pytest.approx(3 + 15)       # not overridden
    assert costs["model"] == pytest.approx(10 + 20)         # the model's price wins over the tier's
    assert per_call == pytest.approx(10 + 20)               # so does the model named in the call


LIMITS = [  # (limit, value, calls within it, the call that goes over)
    ("maxInputTokens", 1000, [(600, 1), (400, 1)], (1, 0)),
    ("maxOutputTokens", 500, [(1, 250), (1, 250)], (0, 1)),
    ("maxTurns", 2, [(1, 1), (1, 1)], (0, 0)),
    ("maxCostUSD", 0.006, [(1000, 0), (1000, 0)], (1, 0)),   # balanced: $0.003 per 1000 input tokens
]


@pytest.mark.parametrize("limit, value, within, over", LIMITS, ids=[x[0] for x in LIMITS])
def test_going_over_a_limit_fails_the_session_in_the_same_answer(b, limit, value, within, over):
    sid = create(b, config={"modelTier": "balanced", limit: value})["id"]
    transition(b, sid, "running")
    state_changes(b, 1)
    for inp, out in within:  # reaching the limit exactly is allowed
        r = usage(b, sid, inp, out)
        assert r["exceeded"] == [], r
    assert get(b, sid)["state"] == "running"
    remaining_key = {"maxInputTokens": "inputTokens", "maxOutputTokens": "outputTokens", "maxTurns": "turns",
                     "maxCostUSD": "costUSD"}[limit]
    assert r["remaining"][remaining_key] == pytest.approx(0, abs=1e-12)

    r = usage(b, sid, *over)

    assert r["exceeded"] == [limit]
    s = get(b, sid)
    assert s["state"] == "failed" and s["error"]["code"] == "BudgetExceeded"
    assert s["usage"] == r["usage"] and s["usage"]["turns"] == len(within) + 1
    assert state_changes(b, 1) == [{"id": sid, "from": "running", "to": "failed", "reason": "BudgetExceeded"}]
    domain_error(b, "session/recordUsage", {"id": sid, "inputTokens": 1, "outputTokens": 1}, "BudgetExceeded")
    domain_error(b, "session/transition", {"id": sid, "to": "running"}, "InvalidTransition")
    assert get(b, sid)["usage"] == r["usage"]


def test_one_call_over_several_limits_lists_them_all(b):
    sid = create(b, config={"maxInputTokens": 10, "maxOutputTokens": 10, "maxTurns": 5})["id"]
    transition(b, sid, "running")

    r = usage(b, sid, 11, 11)

    assert r["exceeded"] == ["maxInputTokens", "maxOutputTokens"]
    assert r["remaining"] == {"inputTokens": 0, "outputTokens": 0, "turns": 4}
    assert get(b, sid)["state"] == "failed"


@pytest.mark.parametrize("state", ["idle", "waitingForUser", "backgrounded"])
def test_a_budget_stops_a_session_in_any_non_final_state(b, state):
    sid = create(b, config={"maxTurns": 0})["id"]
    drive(b, sid, state)
    state_changes(b, len(PATH_TO[state]))

    r = usage(b, sid, 1, 1)

    assert r["exceeded"] == ["maxTurns"] and get(b, sid)["state"] == "failed"
    assert state_changes(b, 1) == [{"id": sid, "from": state, "to": "failed", "reason": "BudgetExceeded"}]


def test_usage_on_a_completed_session_is_refused_and_not_counted(b):
    sid = create(b)["id"]
    drive(b, sid, "completed")

    err = b.error("session/recordUsage", {"id": sid, "inputTokens": 5, "outputTokens": 5})

    assert err["code"] == -32803
    assert get(b, sid)["usage"]["turns"] == 0


def test_record_usage_checks_its_params(b):
    sid = create(b)["id"]

    invalid_params(b, "session/recordUsage", {"id": sid, "inputTokens": -1, "outputTokens": 0})
    invalid_params(b, "session/recordUsage", {"id": sid, "inputTokens": 1})
    invalid_params(b, "session/recordUsage", {"id": sid, "inputTokens": "1", "outputTokens": 0})
    assert get(b, sid)["usage"]["turns"] == 0


# -- checkpoint and resume ----------------------------------------------------------

def test_resume_moves_a_backgrounded_session_to_running_with_its_checkpoint(b):
    sid = create(b)["id"]
    transition(b, sid, "running")
    sent = [{"id": f"m{i:02d}", "role": "user", "content": f"message {i}"} for i in range(60)]
    append(b, sid, sent)
    pending = [{"toolCallId": "call_a", "name": "read_file", "arguments": {"path": "a.md"}},
               {"id": "call_b", "function": {"name": "search_files", "arguments": "{\"query\":\"x\"}"}}]
    partial = {"draft": "Day 1: Lisbon", "steps": [1, 2]}
    c = b.result("session/checkpoint", {"id": sid, "pendingToolCalls": pending, "partialResults": partial})
    transition(b, sid, "backgrounded")
    state_changes(b, 2)

    r = b.result("session/resume", {"id": sid})

    assert c["checkpointId"] and c["at"]
    assert r["session"]["state"] == "running" and get(b, sid)["state"] == "running"
    assert [m["id"] for m in r["messagesTail"]] == [m["id"] for m in sent[-50:]]
    assert [(p["toolCallId"], p["name"], p["status"]) for p in r["pendingToolCalls"]] == [
        ("call_a", "read_file", "pending"), ("call_b", "search_files", "pending")]
    assert r["pendingToolCalls"][0]["arguments"] == {"path": "a.md"}
    assert r["pendingToolCalls"] == r["session"]["pendingToolCalls"]
    assert r["partialResults"] == partial
    assert state_changes(b, 1) == [{"id": sid, "from": "backgrounded", "to": "running", "reason": "resume"}]


def test_a_checkpoint_without_partial_results_keeps_the_last_ones_and_pending_calls_are_replaced(b):
    sid = create(b)["id"]
    transition(b, sid, "running")
    b.result("session/checkpoint", {"id": sid, "pendingToolCalls": [{"toolCallId": "c1", "name": "read_file"}],
                                    "partialResults": {"v": 1}})
    b.result("session/checkpoint", {"id": sid})
    after_keep = b.result("session/resume", {"id": sid})
    b.result("session/checkpoint", {"id": sid, "pendingToolCalls": [{"toolCallId": "c2", "name": "list_files"}],
                                    "partialResults": {"v": 2}})

    r = b.result("session/resume", {"id": sid})

    assert after_keep["partialResults"] == {"v": 1} and [p["toolCallId"] for p in after_keep["pendingToolCalls"]] == ["c1"]
    assert r["partialResults"] == {"v": 2} and [p["toolCallId"] for p in r["pendingToolCalls"]] == ["c2"]


def test_resume_leaves_other_states_as_they_are(b):
    ids = {st: create(b)["id"] for st in ("idle", "running", "waitingForUser", "completed")}
    for st, sid in ids.items():
        drive(b, sid, st)
    b.settle(0.1)
    b.notifications("session/didChangeState")

    for st, sid in ids.items():
        r = b.result("session/resume", {"id": sid})
        assert r["session"]["state"] == st and r["messagesTail"] == [] and r["partialResults"] is None

    no_state_changes(b)


def test_resume_without_a_checkpoint_has_null_partial_results(b):
    sid = create(b)["id"]
    drive(b, sid, "backgrounded")

    r = b.result("session/resume", {"id": sid})

    assert r["partialResults"] is None and r["pendingToolCalls"] == [] and r["session"]["state"] == "running"


# -- restart ------------------------------------------------------------------------

def test_everything_acknowledged_survives_a_sigkill_and_restart(spawn, place):
    b = place.start(spawn)
    a = create(b, title="a", config={"modelTier": "fast", "maxTurns": 10}, metadata={"k": "v"})["id"]
    f = create(b, title="budget", config={"maxTurns": 0})["id"]
    d = create(b, title="done")["id"]
    gone = create(b, title="deleted")["id"]
    transition(b, a, "running")
    append(b, a, [{"id": f"m{i}", "role": "user", "content": {"n": i}} for i in range(5)])
    usage(b, a, 1200, 340)
    usage(b, a, 10, 20, model="x")
    b.result("session/checkpoint", {"id": a, "pendingToolCalls": [{"toolCallId": "p1", "name": "read_file"}],
                                    "partialResults": [1, 2, 3]})
    tool = b.result("session/callTool", {"id": a, "toolCallId": "t1", "name": "append_file",
                                         "arguments": {"path": "notes/log.txt", "content": "once\n"}})
    transition(b, a, "waitingForUser")
    transition(b, a, "backgrounded")
    usage(b, f, 1, 1)
    drive(b, d, "completed")
    b.result("session/delete", {"id": gone})
    item = b.result("queue/enqueue", {"kind": "k", "payload": {"p": 1}, "idempotencyKey": "key-1"})
    sessions = {sid: get(b, sid) for sid in (a, f, d)}
    listed = b.result("session/list", {})
    messages = all_messages(b, a)

    b2 = place.restart(spawn, b)

    assert {sid: get(b2, sid) for sid in (a, f, d)} == sessions
    assert b2.result("session/list", {}) == listed
    assert all_messages(b2, a) == messages
    domain_error(b2, "session/get", {"id": gone}, "NotFound")
    assert b2.result("queue/list", {})["items"] == [item]
    again = b2.result("session/callTool", {"id": a, "toolCallId": "t1", "name": "append_file",
                                           "arguments": {"path": "notes/log.txt", "content": "once\n"}})
    assert again == tool
    assert (place.root / "notes" / "log.txt").read_text() == "once\n"
    r = b2.result("session/resume", {"id": a})
    assert r["partialResults"] == [1, 2, 3] and [p["toolCallId"] for p in r["pendingToolCalls"]] == ["p1"]
    assert [m["id"] for m in r["messagesTail"]] == [f"m{i}" for i in range(5)]
    assert sessions[f]["state"] == "failed" and sessions[f]["error"]["code"] == "BudgetExceeded"
