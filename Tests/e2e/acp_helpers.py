"""Helpers for the ACP face's e2e tests: the PyPI SDK (agent-client-protocol) as the editor,
driving `workspace-bridge acp -- python3 Tests/e2e/acp_agents/<agent>.py`, with every message
of both streams (editor <-> proxy, proxy <-> agent) validated against the ACP v1 schema."""
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path

import acp
import pytest
from acp import schema as S

from acp_schema import Conformance

AGENTS = Path(__file__).resolve().parent / "acp_agents"
CALL_TIMEOUT = 30


class Editor:
    """The editor: keeps every session/update it is shown (raw params, in order), picks the
    permission option `choose` (else the first), answers the extension method `_wb_test/ping` with n + 1."""

    def __init__(self):
        self.choose = None       # the optionId to pick (None: the first option)
        self.updates = []        # (sessionId, update dict), as received
        self.permissions = []    # raw params of session/request_permission
        self.ext_calls = []      # (method, params)
        self.ext_notes = []

    def on_connect(self, conn):
        self.conn = conn

    async def request_permission(self, session_id, tool_call, options, **kw):
        return S.RequestPermissionResponse(outcome=S.AllowedOutcome(outcome="selected", option_id=self.choose or options[0].option_id))

    async def session_update(self, session_id, update, **kw):
        pass

    async def ext_method(self, method, params):
        self.ext_calls.append((method, params))
        return {"n": params.get("n", 0) + 1}

    async def ext_notification(self, method, params):
        self.ext_notes.append((method, params))

    def texts(self, sid):
        """The agent's message text shown for session `sid`, concatenated."""
        return "".join(u["content"].get("text", "") for s, u in self.updates
                       if s == sid and u.get("sessionUpdate") == "agent_message_chunk")


class Proxy:
    """One run of `workspace-bridge acp` with an agent; `conn` is the SDK's client connection."""

    def __init__(self, binary, root, agent, tmp, *options, storage=None):
        """`storage`: the storage options (default: `root` as the local root, a config folder in `tmp`)."""
        self.binary, self.root, self.agent, self.tmp, self.options = binary, root, agent, Path(tmp), list(options)
        self.storage = storage or ["--local-root", str(root), "--config-dir", str(self.tmp / "config")]
        self.editor = Editor()
        self.conformance = Conformance()
        self.agent_logs = self.tmp / "agent-logs"
        self.agent_logs.mkdir(exist_ok=True)
        self.state = self.tmp / "agent-state"
        self.state.mkdir(exist_ok=True)

    def _observe(self, event):
        sender = "client" if event.direction.value == "outgoing" else "agent"
        self.conformance.check(sender, event.message)
        m = event.message
        if sender == "agent" and m.get("method") == "session/update":
            self.editor.updates.append((m["params"]["sessionId"], m["params"]["update"]))
        if sender == "agent" and m.get("method") == "session/request_permission":
            self.editor.permissions.append(m["params"])

    @contextlib.asynccontextmanager
    async def run(self):
        env = dict(os.environ, ACP_AGENT_LOG=str(self.agent_logs), ACP_AGENT_STATE=str(self.state))
        args = ["acp", *self.storage, *self.options, "--",
                sys.executable, str(AGENTS / f"{self.agent}.py")]
        async with acp.spawn_agent_process(self.editor, str(self.binary), *args, env=env,
                                           observers=[self._observe]) as (conn, process):
            self.conn, self.process = conn, process
            yield self

    async def call(self, coro):
        return await asyncio.wait_for(coro, CALL_TIMEOUT)

    async def start(self):
        r = await self.call(self.conn.initialize(protocol_version=1, client_capabilities=S.ClientCapabilities(),
                                                 client_info=S.Implementation(name="test-editor", version="1")))
        return r

    async def new(self, cwd=None):
        r = await self.call(self.conn.new_session(cwd=cwd or str(self.root), mcp_servers=[]))
        return r.session_id

    async def prompt(self, sid, text, *more):
        blocks = [acp.text_block(t) for t in (text, *more)]
        return await self.call(self.conn.prompt(session_id=sid, prompt=blocks))


def check_agent_logs(proxy):
    """Validates every message each agent run read or wrote (its own log), both ways."""
    n = 0
    for log in sorted(proxy.agent_logs.glob("agent-*.jsonl")):
        c = Conformance()
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            c.check("client" if entry["dir"] == "in" else "agent", entry["message"])
            n += 1
    return n


@pytest.fixture
def root(tmp_path):
    """The workspace root of a test (the agents' sessions live in it)."""
    r = tmp_path / "root"
    r.mkdir()
    return r


def run(coro):
    return asyncio.run(coro)


def journal(root, sid):
    """The records of session `sid`'s journal under `root`, in order."""
    path = Path(root) / ".workspace" / "sessions" / sid / "journal.jsonl"
    return [json.loads(line.partition(" ")[2]) for line in path.read_text().splitlines()]


def agent_requests(proxy, method):
    """The params of every `method` request the agent runs of `proxy` received, in order."""
    out = []
    for log in sorted(proxy.agent_logs.glob("agent-*.jsonl")):
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            if entry["dir"] == "in" and entry["message"].get("method") == method:
                out.append(entry["message"]["params"])
    return out
