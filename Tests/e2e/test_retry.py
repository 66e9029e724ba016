"""Retries (docs/protocol.md, "Retries"; the schema's `x-retry` on every method a client sends).

One case per method, driven by the schema: a method without `x-retry`, or without a case here,
fails. Each case prepares a server (local and cloud roots, a config folder, debug methods), sends
the request, then sends exactly the same message again (same id, once the first is answered:
what a client does after losing the answer), and the generic check compares the two answers as
the method's `x-retry` says:

- safe: the same answer (results equal but for `differs`, or the same error);
- idempotent: the repeat answers the `repeatError` code or a result containing `repeatResult`;
- keyed: the same answer (but for `differs`) and the work done once (the case checks the effect);
- unsafe: the case checks the documented effect of doing it twice.

Each case then checks the state a user would look at, and the server answers a `ping`.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from bridge import dumps, ndjson_frame
from contract import Contract
from retry_cases import CASES, Env, noop, result

SERVER_SIDE = "server"
DOC = Contract().doc
METHODS = {m["name"]: m for m in DOC["methods"]}
CLIENT_SENT = [n for n, m in METHODS.items() if m.get("x-notification") != SERVER_SIDE]
KINDS = {"safe", "idempotent", "keyed", "unsafe"}


# -- the checks ------------------------------------------------------------------------------

def without(value: Any, fields: list[str]) -> Any:
    return {k: v for k, v in value.items() if k not in fields} if isinstance(value, dict) else value


def same_answer(first: dict, repeat: dict, differs: list[str]) -> None:
    if "error" in first:
        assert "error" in repeat, f"the first failed, the repeat did not: {first} / {repeat}"
        assert (first["error"]["code"], first["error"].get("data", {}).get("code")) == \
               (repeat["error"]["code"], repeat["error"].get("data", {}).get("code")), (first, repeat)
        return
    assert without(result(first), differs) == without(result(repeat), differs), \
        f"the repeat answered differently (beyond {differs}):\n{json.dumps(first)}\n{json.dumps(repeat)}"


def test_every_method_a_client_sends_has_a_retry_note_and_a_repeat_case():
    missing = [n for n in CLIENT_SENT if "x-retry" not in METHODS[n]]
    assert not missing, f"methods without x-retry in schema/openrpc.json: {missing}"
    assert not [n for n, m in METHODS.items() if m.get("x-notification") == SERVER_SIDE and "x-retry" in m], \
        "server notifications are not sent by clients: no x-retry"
    for n in CLIENT_SENT:
        r = METHODS[n]["x-retry"]
        assert r["kind"] in KINDS and r["note"].strip(), (n, r)
        assert set(r) <= {"kind", "note", "key", "differs", "repeatError", "repeatResult"}, (n, r)
        assert (r["kind"] == "keyed") == ("key" in r), f"{n}: keyed methods name their key, others none"
        if r["kind"] == "idempotent":
            assert ("repeatError" in r) != ("repeatResult" in r), f"{n}: say what the repeat answers"
        if "repeatError" in r:
            assert r["repeatError"] in DOC["components"]["schemas"]["ErrorData"]["x-error-codes"], (n, r)
    assert set(CASES) == set(CLIENT_SENT), (f"methods without a repeat case: {sorted(set(CLIENT_SENT) - set(CASES))}; "
                                           f"cases for no method: {sorted(set(CASES) - set(CLIENT_SENT))}")


def test_agent_tools_are_marked_idempotent_exactly_when_their_method_is_not_unsafe_to_repeat(spawn, tmp_path):
    # MCP's idempotentHint ("calling repeatedly with the same arguments has no additional effect")
    # and the method's x-retry must agree, through both faces (they share one tool table).
    mirrors = {m["x-agent-tool"]["name"]: m for m in DOC["methods"] if "x-agent-tool" in m}
    b = spawn("--local-root", str(tmp_path / "ws"), framing="ndjson", init=True)
    tools = {t["name"]: t for t in b.result("agent/listTools")}
    assert set(mirrors) <= set(tools)
    for name, m in mirrors.items():
        hint = tools[name]["annotations"]["idempotentHint"]
        assert hint == (m["x-retry"]["kind"] != "unsafe"), f"{name}: idempotentHint {hint}, {m['name']} x-retry {m['x-retry']}"


@pytest.mark.parametrize("method", CLIENT_SENT)
def test_a_repeated_request_has_the_documented_outcome(spawn, tmp_path, method):
    case = CASES.get(method)
    retry = METHODS[method].get("x-retry")
    if case is None or retry is None:
        pytest.fail(f"{method}: no repeat case in Tests/e2e/test_retry.py or no x-retry in the schema")
    if retry["kind"] == "unsafe":
        assert case.check is not None, f"{method} is unsafe to repeat: its case must check what a repeat does"
    local, cloud, config = tmp_path / "local", tmp_path / "cloud", tmp_path / "config"
    cloud.mkdir(parents=True)
    b = spawn("--local-root", str(local), "--cloud-root", str(cloud), "--config-dir", str(config),
              framing="ndjson", init=case.init)
    env = Env(b, tmp_path, local, cloud, config, spawn)
    params = case.params(env)

    if case.notification:
        msg = ndjson_frame(dumps({"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})}))
        b.write(msg + msg)  # both in one write: after `exit` there is no one left to write to
        (case.check or noop)(env, {}, {})
        if method != "exit":
            assert b.result("ping") == {}
        else:
            assert b.wait_exit(10) == 0
        return

    rid = 7000
    first = b.call(method, params, 20.0, id=rid)
    repeat = b.call(method, params, 20.0, id=rid)  # the same message again, once the first is answered
    kind = retry["kind"]
    always_fails = METHODS[method]["result"]["schema"] == {"not": {}}
    assert ("error" in first) == always_fails, f"{method}: the first request should {'fail' if always_fails else 'succeed'}: {first}"
    if kind in ("safe", "keyed"):
        same_answer(first, repeat, retry.get("differs", []))
    elif kind == "idempotent":
        assert "result" in first, f"{method}: the first request failed: {first}"
        if "repeatError" in retry:
            assert "error" in repeat and repeat["error"].get("data", {}).get("code") == retry["repeatError"], \
                f"{method}: the repeat should answer {retry['repeatError']}: {repeat}"
        else:
            got = result(repeat)
            assert {k: got.get(k) for k in retry["repeatResult"]} == retry["repeatResult"], (method, got)
    (case.check or noop)(env, first, repeat)
    if method != "shutdown":
        assert b.result("ping") == {}
