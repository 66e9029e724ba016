"""Kill test (issue 5, docs/protocol.md "Agent sessions"): at least 500 SIGKILLs at random moments
while a client pipelines scripted sessions (appendMessages, recordUsage, callTool, transitions,
every one with unique ids), each followed by a restart on the same folders and a check of what was
recovered:

- 0 acknowledged records lost: every acknowledged message is in session/messages (in order, once),
  every acknowledged tool call's result is recorded (the same toolCallId returns it, and the tool's
  effect is there exactly once);
- what landed without an answer is a prefix of what was sent on that session (requests on one
  session run in arrival order), and nothing landed after a call that was cut off;
- every recovered state is legal (the state after a prefix of the sent transitions, at least up to
  the last acknowledged one);
- usage equals the sum of the acknowledged recordUsage calls plus a prefix of the unanswered ones
  (so at most the sum of those sent);
- no orphan tool calls: a call whose effect is on disk is either recorded or listed in
  pendingToolCalls as interrupted (the client then runs it again with the same toolCallId).

WB_SESSION_KILLS (default 500) and WB_SESSION_KILL_SEED change the number of kills and the moments.
"""
from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass, field

from bridge import dumps, ndjson_frame, request
from sessions_helpers import Place, all_messages, pipeline, results

KILLS = int(os.environ.get("WB_SESSION_KILLS", "500"))
SEED = int(os.environ.get("WB_SESSION_KILL_SEED", "20251122"))
SESSIONS = 3
OPS_PER_SESSION = 8
# Fresh sessions every so many kills keep each journal (which a restart scans whole) to about 800
# records, so that a cycle stays short in a debug build; the retired ones are checked at the end.
ROTATE_EVERY = 100
MAX_DELAY_S = 0.025
NEXT = {"idle": ["running"], "running": ["waitingForUser", "backgrounded"],
        "waitingForUser": ["running", "backgrounded"], "backgrounded": ["running"]}


@dataclass
class Op:
    pos: int                    # position among the session's requests in this script
    kind: str                   # msg, usage, tool, state
    params: dict
    rid: int = 0
    acked: bool = False
    result: object = None
    error: dict | None = None
    ids: list = field(default_factory=list)   # msg: message ids
    to: str = ""                # state: target
    tokens: tuple = (0, 0)      # usage
    call: str = ""              # tool: toolCallId
    line: str = ""              # tool: the line it appends


@dataclass
class Model:
    """What is known to be in a session (acknowledged, or found after a restart)."""
    sid: str
    path: str
    state: str = "idle"
    messages: list = field(default_factory=list)
    usage: tuple = (0, 0, 0)    # inputTokens, outputTokens, turns
    acked_usage: tuple = (0, 0, 0)
    sent_usage: tuple = (0, 0, 0)
    calls: dict = field(default_factory=dict)      # acknowledged toolCallId -> result
    lines_max: dict = field(default_factory=dict)  # line -> times it may appear (1, or 2 after an interrupted re-run)
    ops: list = field(default_factory=list)        # the last script's requests


@dataclass
class Stats:
    kills: int = 0
    sent: int = 0
    acked: int = 0
    landed_unacked: int = 0
    interrupted: int = 0
    recorded_unacked_calls: int = 0
    cycle_s: list = field(default_factory=list)


def add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


def make_script(rng: random.Random, models: list[Model], cycle: int) -> list[tuple[Model, Op]]:
    per = []
    for k, m in enumerate(models):
        ops, state = [], m.state
        for j in range(OPS_PER_SESSION):
            tag = f"c{cycle}-s{k}-{j}"
            r = rng.random()
            if r < 0.35:
                ids = [f"{tag}-m{n}" for n in range(rng.randint(1, 3))]
                op = Op(j, "msg", {"id": m.sid, "messages": [{"id": i, "role": rng.choice(["user", "assistant"]),
                                                              "content": f"text of {i}"} for i in ids]}, ids=ids)
            elif r < 0.6:
                t = (rng.randint(1, 5000), rng.randint(1, 2000))
                op = Op(j, "usage", {"id": m.sid, "inputTokens": t[0], "outputTokens": t[1]}, tokens=t)
            elif r < 0.8:
                call, line = f"{tag}-t", f"{tag}-t"
                op = Op(j, "tool", {"id": m.sid, "toolCallId": call, "name": "append_file",
                                    "arguments": {"path": m.path, "content": line + "\n"}}, call=call, line=line)
            else:
                state = rng.choice(NEXT[state])
                op = Op(j, "state", {"id": m.sid, "to": state}, to=state)
            ops.append(op)
        m.ops = ops
        per.append([(m, op) for op in ops])
    out = []
    for j in range(OPS_PER_SESSION):   # round-robin across sessions
        for lst in per:
            out.append(lst[j])
    return out


METHOD = {"msg": "session/appendMessages", "usage": "session/recordUsage", "tool": "session/callTool",
          "state": "session/transition"}


def send_script(b, script: list[tuple[Model, Op]]) -> None:
    data = bytearray()
    for _, op in script:
        op.rid = b.new_id()
        b.track(op.rid, METHOD[op.kind])
        data += ndjson_frame(dumps(request(METHOD[op.kind], op.params, op.rid)))
    b.write(bytes(data))


def collect(b, script, stats: Stats) -> None:
    by_id = {e.msg.get("id"): e.msg for e in b.log if isinstance(e.msg, dict) and "id" in e.msg}
    for m, op in script:
        r = by_id.get(op.rid)
        if r is None:
            continue
        if "result" not in r:
            op.error = r["error"]
            raise AssertionError(f"scripted request {op.kind} {json.dumps(op.params)[:200]} failed: {r['error']}")
        op.acked, op.result = True, r["result"]
        stats.acked += 1


def call_tool(b, params: dict) -> dict:
    return b.result("session/callTool", params, 20.0)


def file_lines(place: Place, m: Model) -> dict[str, int]:
    p = place.root / m.path
    counts: dict[str, int] = {}
    if p.exists():
        text = p.read_text()
        assert text == "" or text.endswith("\n"), f"{m.path} ends in a partial line: {text[-80:]!r}"
        for line in text.splitlines():
            counts[line] = counts.get(line, 0) + 1
    return counts


def prefix_len(seq: list, pred_ok) -> list[int]:
    """Every n (0..len) for which pred_ok(n) holds."""
    return [n for n in range(len(seq) + 1) if pred_ok(n)]


def verify(b, place: Place, models: list[Model], stats: Stats, where: str) -> None:
    """After a restart: check each session against the script sent before the kill, then adopt what landed."""
    gets = results(pipeline(b, [("session/get", {"id": m.sid}) for m in models], 60.0))
    msgs = results(pipeline(b, [("session/messages", {"id": m.sid, "limit": 10000,
                                                      **({"after": m.messages[-1]} if m.messages else {})})
                                for m in models], 60.0))
    for m, s, got in zip(models, gets, msgs):
        ctx = f"{where}, session {m.sid}"
        ops = m.ops
        lines = file_lines(place, m)
        pending = {p["toolCallId"]: p for p in s["pendingToolCalls"]}
        assert all(p["status"] == "interrupted" for p in pending.values()), f"{ctx}: {s['pendingToolCalls']}"
        landed: dict[int, bool] = {}

        # Messages: what is new is exactly the messages of a prefix of the appends, acked ones included.
        appends = [op for op in ops if op.kind == "msg"]
        new_ids = [x["id"] for x in got["messages"]]
        ok = prefix_len(appends, lambda n: [i for op in appends[:n] for i in op.ids] == new_ids)
        assert ok, f"{ctx}: new messages {new_ids} are not a prefix of the appends {[op.ids for op in appends]}"
        n_msg = ok[0]
        for i, op in enumerate(appends):
            landed[op.pos] = i < n_msg
            assert not (op.acked and i >= n_msg), f"{ctx}: acknowledged messages {op.ids} are lost"
        m.messages += new_ids

        # Usage: the known usage plus a prefix of the recordUsage calls.
        usages = [op for op in ops if op.kind == "usage"]
        u = s["usage"]
        now = (u["inputTokens"], u["outputTokens"], u["turns"])
        def usage_after(n):
            return add(m.usage, (sum(op.tokens[0] for op in usages[:n]), sum(op.tokens[1] for op in usages[:n]), n))
        ok = prefix_len(usages, lambda n: usage_after(n) == now)
        assert ok, f"{ctx}: usage {now} is not the known {m.usage} plus a prefix of {[op.tokens for op in usages]}"
        for i, op in enumerate(usages):
            landed[op.pos] = i < ok[0]
            assert not (op.acked and i >= ok[0]), f"{ctx}: an acknowledged recordUsage {op.tokens} is lost"
            if op.acked:
                m.acked_usage = add(m.acked_usage, (*op.tokens, 1))
        m.usage = now

        # Tool calls: the effect is on disk once, and the call is recorded or reported interrupted.
        for op in [op for op in ops if op.kind == "tool"]:
            n = lines.get(op.line, 0)
            assert n <= 1, f"{ctx}: tool call {op.call} ran {n} times"
            if op.call in pending:
                assert not op.acked, f"{ctx}: acknowledged tool call {op.call} is reported interrupted"
                landed[op.pos] = True
                stats.interrupted += 1
            elif op.acked:
                assert n == 1, f"{ctx}: the effect of acknowledged tool call {op.call} is missing"
                landed[op.pos] = True
                m.calls[op.call] = op.result
                m.lines_max[op.line] = 1
            elif n == 1:  # ran without an answer: it must be recorded, so asking again does not run it
                again = call_tool(b, op.params)
                assert again["isError"] is False, f"{ctx}: {again}"
                assert file_lines(place, m).get(op.line, 0) == 1, \
                    f"{ctx}: tool call {op.call} ran before the kill, was not recorded, and ran again"
                landed[op.pos] = True
                m.calls[op.call] = again
                m.lines_max[op.line] = 1
                stats.recorded_unacked_calls += 1
            else:
                landed[op.pos] = False
        for call, p in pending.items():
            mine = [op for op in ops if op.kind == "tool" and op.call == call]
            assert mine, f"{ctx}: interrupted call {call} is not one of the last script's calls: {p}"
        for op in ops:
            if op.kind == "state" and op.acked:
                landed[op.pos] = True

        # One prefix for everything: nothing landed after something that did not, nor after a cut-off call.
        last_landed = max((p for p, v in landed.items() if v), default=-1)
        first_missing = min((p for p, v in landed.items() if not v), default=len(m.ops))
        assert last_landed < first_missing, \
            f"{ctx}: request {last_landed} landed but request {first_missing} before it did not ({landed})"
        assert len(pending) <= 1, f"{ctx}: {len(pending)} calls cut off at once on one session"
        for call in pending:
            pos = next(op.pos for op in ops if op.call == call)
            assert pos == last_landed, f"{ctx}: requests after interrupted call {call} landed"
            first_missing = min(first_missing, pos + 1)  # the session was held by the call

        # State: legal, and the state after a prefix of the transitions consistent with the one above.
        moves = [op for op in ops if op.kind == "state"]
        after = [m.state]
        for op in moves:
            after.append(op.to)
        lo = max([i + 1 for i, op in enumerate(moves) if op.acked or op.pos < last_landed], default=0)
        hi = len([op for op in moves if op.pos < first_missing])
        assert s["state"] in after[lo:hi + 1], \
            f"{ctx}: state {s['state']} is not the state after {lo}..{hi} of the transitions {after}"
        assert s["state"] in NEXT, f"{ctx}: state {s['state']}"
        m.state = s["state"]

        stats.landed_unacked += sum(1 for op in ops if landed.get(op.pos, False) and not op.acked
                                    and op.kind != "state")
        m.ops = []

    # The front end runs interrupted calls again with the same toolCallId; then they have results.
    for m, s in zip(models, gets):
        for p in s["pendingToolCalls"]:
            params = {"id": m.sid, "toolCallId": p["toolCallId"], "name": p["name"], "arguments": p["arguments"]}
            r = call_tool(b, params)
            assert r["isError"] is False, r
            m.calls[p["toolCallId"]] = r
            m.lines_max[p["arguments"]["content"].strip()] = 2  # it may have appended before the kill
        if s["pendingToolCalls"]:
            assert b.result("session/get", {"id": m.sid})["pendingToolCalls"] == []


def new_sessions(b, generation: int) -> list[Model]:
    # One at a time: parallel first calls on a fresh config folder are another test's subject
    # (test_sessions.py::test_sessions_created_in_parallel_on_a_first_start_are_owned_by_that_server).
    made = [b.result("session/create", {"title": f"kill {generation}.{k}"}, 10.0) for k in range(SESSIONS)]
    return [Model(s["id"], f"kill/g{generation}-s{k}.log") for k, s in enumerate(made)]


def test_500_sigkills_during_scripted_sessions_lose_no_acknowledged_record(spawn, tmp_path):
    rng = random.Random(SEED)
    place = Place(tmp_path)
    stats = Stats()
    b = place.start(spawn)
    all_models: list[Model] = []
    t_start = time.monotonic()

    for cycle in range(KILLS):
        t0 = time.monotonic()
        if cycle % ROTATE_EVERY == 0:
            models = new_sessions(b, cycle // ROTATE_EVERY)
            all_models += models
        script = make_script(rng, models, cycle)
        for m, op in script:
            if op.kind == "usage":
                m.sent_usage = add(m.sent_usage, (*op.tokens, 1))
        send_script(b, script)
        stats.sent += len(script)
        b.settle(rng.random() * MAX_DELAY_S)
        b.proc.kill()
        stats.kills += 1
        b.read_to_eof(10.0)
        collect(b, script, stats)
        b.kill()

        b = place.start(spawn)
        verify(b, place, models, stats, f"after kill {cycle + 1}")
        stats.cycle_s.append(time.monotonic() - t0)

    # Everything acknowledged over all the kills is there, once, in order.
    elapsed = time.monotonic() - t_start
    for m in all_models:
        got = [x["id"] for x in all_messages(b, m.sid)]
        assert got == m.messages, f"session {m.sid}: {len(got)} messages, expected {len(m.messages)}"
        s = b.result("session/get", {"id": m.sid})
        u = (s["usage"]["inputTokens"], s["usage"]["outputTokens"], s["usage"]["turns"])
        assert u == m.usage
        assert all(a <= x <= c for a, x, c in zip(m.acked_usage, u, m.sent_usage)), (m.acked_usage, u, m.sent_usage)
        assert s["pendingToolCalls"] == [] and s["state"] in NEXT
        # One at a time: many pipelined requests on one session can crash the server (see
        # test_sessions.py::test_thousands_of_pipelined_calls_on_one_session_are_all_answered).
        for call, recorded in m.calls.items():
            again = call_tool(b, {"id": m.sid, "toolCallId": call, "name": "append_file",
                                  "arguments": {"path": m.path, "content": "changed\n"}})
            assert again == recorded, f"session {m.sid}: the recorded result of {call} changed"
        lines = file_lines(place, m)
        assert "changed" not in lines, "a recorded tool call ran again"
        for line, most in m.lines_max.items():
            assert 1 <= lines.get(line, 0) <= most, (line, lines.get(line, 0))
        folder = place.sessions_dir / m.sid
        assert not [p.name for p in folder.iterdir() if ".damaged" in p.name], os.listdir(folder)

    cycles = sorted(stats.cycle_s)
    first, last = sorted(stats.cycle_s[:50]), sorted(stats.cycle_s[-50:])
    print(f"\n{stats.kills} SIGKILLs in {elapsed:.1f}s (cycle p50 {cycles[len(cycles) // 2] * 1000:.0f} ms, "
          f"first 50 p50 {first[len(first) // 2] * 1000:.0f} ms, last 50 p50 {last[len(last) // 2] * 1000:.0f} ms, "
          f"max {cycles[-1] * 1000:.0f} ms); {stats.sent} requests sent, {stats.acked} acknowledged, "
          f"{stats.landed_unacked} landed without an answer, {stats.interrupted} tool calls interrupted, "
          f"{stats.recorded_unacked_calls} recorded without an answer; "
          f"{len(all_models)} sessions, {sum(len(m.messages) for m in all_models)} messages, "
          f"{sum(len(m.calls) for m in all_models)} recorded tool calls")
    assert stats.kills >= 500 or KILLS < 500
