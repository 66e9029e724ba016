"""Helpers for the agent-session tests (docs/protocol.md, "Agent sessions").

Every server here runs with --local-root <base>/ws and --config-dir <base>/config under pytest's
tmp_path (the config folder holds the machine id that owns the sessions' leases, so a restarted
server on the same folders is the same device). `Place.start` spawns and initializes one through
the `spawn` fixture, so the harness checks every message against schema/openrpc.json; `restart`
SIGKILLs a server and starts another on the same folders.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bridge import Bridge, dumps, ndjson_frame, request

STATES = ["idle", "running", "waitingForUser", "backgrounded", "completed", "failed"]
# docs/protocol.md, "States": exactly the seeds' table, in the documented order.
ALLOWED = {
    "idle": ["running"],
    "running": ["waitingForUser", "backgrounded", "completed", "failed"],
    "waitingForUser": ["running", "backgrounded"],
    "backgrounded": ["running", "completed"],
    "completed": [],
    "failed": [],
}
# A way to reach each state from idle through allowed moves.
PATH_TO = {
    "idle": [],
    "running": ["running"],
    "waitingForUser": ["running", "waitingForUser"],
    "backgrounded": ["running", "backgrounded"],
    "completed": ["running", "completed"],
    "failed": ["running", "failed"],
}
TOOLS = ["read_file", "read_multiple_files", "write_file", "append_file", "list_files", "delete_file", "move_file", "copy_file",
         "create_folder", "get_file_info", "search_files", "get_storage_info", "read_context", "update_context",
         "append_journal"]
# Defaults per million tokens (docs/protocol.md, "Usage and budgets").
DEFAULT_PRICES = {"fast": (0.25, 1.25), "balanced": (3.0, 15.0), "powerful": (15.0, 75.0)}


@dataclass
class Place:
    """The folders one device's servers use: a workspace root and a configuration folder."""
    base: Path

    @property
    def root(self) -> Path:
        return self.base / "ws"

    @property
    def config(self) -> Path:
        return self.base / "config"

    @property
    def sessions_dir(self) -> Path:
        return self.root / ".workspace" / "sessions"

    def argv(self) -> list[str]:
        return ["--local-root", str(self.root), "--config-dir", str(self.config)]

    def start(self, spawn, init: Any = True) -> Bridge:
        b = spawn(*self.argv(), framing="ndjson", debug=False, init=init)
        b.place = self
        return b

    def restart(self, spawn, b: Bridge) -> Bridge:
        """SIGKILL `b` (after the calls it acknowledged) and start a new server on the same folders."""
        b.kill()
        return self.start(spawn)


# -- fixtures (a test module imports them by name) -------------------------------

@pytest.fixture
def place(tmp_path) -> Place:
    """The test's folders."""
    return Place(tmp_path)


@pytest.fixture
def b(spawn, place) -> Bridge:
    """A server on `place`, initialized."""
    return place.start(spawn)


# -- calls ----------------------------------------------------------------------

def domain_error(b: Bridge, method: str, params: dict, code: str, timeout: float = 10.0) -> dict:
    err = b.error(method, params, timeout)
    assert err["code"] == -32803 and err["data"]["code"] == code, f"{method} {params}: expected {code}, got {err}"
    return err


def invalid_params(b: Bridge, method: str, params: dict, timeout: float = 10.0) -> dict:
    err = b.error(method, params, timeout)
    assert err["code"] == -32602 and err["data"]["code"] == "InvalidParams", f"{method} {params}: got {err}"
    return err


def create(b: Bridge, **params) -> dict:
    return b.result("session/create", params, 10.0)


def get(b: Bridge, sid: str) -> dict:
    return b.result("session/get", {"id": sid}, 10.0)


def transition(b: Bridge, sid: str, to: str, **kw) -> dict:
    return b.result("session/transition", {"id": sid, "to": to, **kw}, 10.0)


def drive(b: Bridge, sid: str, state: str) -> dict:
    """Moves a new session from idle to `state` along PATH_TO; returns the session (as session/transition
    shows it: without session/get's bytesOnDisk)."""
    s = get(b, sid)
    s.pop("bytesOnDisk", None)
    for to in PATH_TO[state]:
        s = transition(b, sid, to)
    assert s["state"] == state
    return s


def append(b: Bridge, sid: str, messages: list[dict]) -> int:
    return b.result("session/appendMessages", {"id": sid, "messages": messages}, 10.0)["count"]


def all_messages(b: Bridge, sid: str, page: int = 1000) -> list[dict]:
    out, after = [], None
    while True:
        p = {"id": sid, "limit": page}
        if after is not None:
            p["after"] = after
        got = b.result("session/messages", p, 20.0)["messages"]
        out += got
        if len(got) < page:
            return out
        after = got[-1]["id"]


def usage(b: Bridge, sid: str, inp: int, out: int, **kw) -> dict:
    return b.result("session/recordUsage", {"id": sid, "inputTokens": inp, "outputTokens": out, **kw}, 10.0)


def call_tool(b: Bridge, sid: str, call_id: str, name: str, arguments: dict, timeout: float = 20.0) -> dict:
    return b.result("session/callTool", {"id": sid, "toolCallId": call_id, "name": name, "arguments": arguments},
                    timeout)


def state_changes(b: Bridge, count: int, timeout: float = 5.0) -> list[dict]:
    """The next `count` session/didChangeState notifications' params (in arrival order)."""
    out = []
    for _ in range(count):
        out.append(b.take(lambda m: isinstance(m, dict) and m.get("method") == "session/didChangeState",
                          timeout, "a session/didChangeState notification")["params"])
    return out


def no_state_changes(b: Bridge, wait: float = 0.2) -> None:
    b.settle(wait)
    left = b.notifications("session/didChangeState")
    assert not left, f"unexpected session/didChangeState: {left}"


def pipeline(b: Bridge, calls: list[tuple[str, dict]], timeout: float = 30.0) -> list[dict]:
    """Sends every call in one write (pipelined), then returns the responses in call order."""
    ids, data = [], bytearray()
    for method, params in calls:
        i = b.new_id()
        ids.append(i)
        b.track(i, method)
        data += ndjson_frame(dumps(request(method, params, i)))
    b.write(bytes(data))
    return [b.response(i, timeout) for i in ids]


def results(responses: list[dict]) -> list[Any]:
    bad = [r for r in responses if "error" in r]
    assert not bad, f"{len(bad)} calls failed, first: {json.dumps(bad[0])[:500]}"
    return [r["result"] for r in responses]


def price(tier: str, inp: int, out: int) -> float:
    pi, po = DEFAULT_PRICES[tier]
    return (inp * pi + out * po) / 1_000_000


def wait_for(pred, timeout: float, what: str, interval: float = 0.001):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)
