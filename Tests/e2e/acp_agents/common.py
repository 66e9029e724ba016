"""A small ACP agent on the PyPI SDK (agent-client-protocol), shared by the test agents.

Each prompt is a command (its first text block):
  stream N     N agent_message_chunk updates "c0 " … plus a thought, a plan, a tool call with
               its update and a usage_update; answers end_turn
  permission [KIND]  asks the client's permission for a tool call of that kind (edit by
               default; options allow, always, reject); says which option came back
  cost X       reports a cumulative session cost of X USD (usage_update with cost) and answers
               with usage: 100 input and 10 output tokens for the turn
  fs read PATH [LINE LIMIT]  the client's fs/read_text_file; says "read: <content>" or
               "fs error: <code> <data.code>"
  fs write PATH TEXT  the client's fs/write_text_file; says "written" or the error as above
  ids          two messages, with ACP messageIds: "a1 " "a2 " (m-a), then "b1" (m-b)
  remember     says which earlier prompts of this session it has in context ("context: a | b"),
               and, when the prompt has more than one text block, the first ("history: …")
  anything     echoes it ("echo: <all text blocks joined>")
With ACP_AGENT_STATE set to a folder, sessions are kept there, so a new process can load them
(session/load replays them as session/update, as an agent that supports loadSession does).
"""
import asyncio
import json
import os
import sys
import uuid

import acp
from acp import schema as S
from acp.helpers import (plan_entry, start_tool_call, text_block, update_agent_message_text,
                         update_agent_thought_text, update_plan, update_tool_call, update_user_message_text)


class TestAgent:
    can_load = True

    def __init__(self):
        self.conn = None
        self.sessions = {}  # id -> list of prompt texts
        self.state = os.environ.get("ACP_AGENT_STATE")

    def on_connect(self, conn):
        self.conn = conn

    def _save(self, sid):
        if self.state:
            with open(os.path.join(self.state, sid + ".json"), "w") as f:
                json.dump(self.sessions[sid], f)

    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **kw):
        caps = S.AgentCapabilities(load_session=self.can_load)
        return S.InitializeResponse(protocol_version=1, agent_capabilities=caps,
                                    agent_info=S.Implementation(name=type(self).__name__, version="1.0"))

    async def new_session(self, cwd, additional_directories=None, mcp_servers=None, **kw):
        sid = "agent-" + uuid.uuid4().hex[:8]
        self.sessions[sid] = []
        self._save(sid)
        return S.NewSessionResponse(session_id=sid)

    async def load_session(self, cwd, session_id, mcp_servers=None, additional_directories=None, **kw):
        if not self.can_load:
            raise acp.RequestError.method_not_found("session/load")
        path = os.path.join(self.state or "/nonexistent", session_id + ".json")
        if session_id not in self.sessions:
            if not os.path.exists(path):
                raise acp.RequestError.resource_not_found(session_id)
            with open(path) as f:
                self.sessions[session_id] = json.load(f)
        for text in self.sessions[session_id]:
            await self.conn.session_update(session_id, update_user_message_text(text))
        return S.LoadSessionResponse()

    async def say(self, sid, text):
        await self.conn.session_update(sid, update_agent_message_text(text))

    async def prompt(self, session_id, prompt, **kw):
        texts = [b.text for b in prompt if getattr(b, "type", None) == "text"]
        command = texts[-1] if texts else ""
        earlier = list(self.sessions.setdefault(session_id, []))
        self.sessions[session_id].append(command)
        self._save(session_id)
        return await self.turn(session_id, command, texts, earlier)

    async def turn(self, sid, command, texts, earlier):
        if command.startswith("stream"):
            n = int(command.split()[1]) if len(command.split()) > 1 else 3
            await self.conn.session_update(sid, update_agent_thought_text("thinking"))
            await self.conn.session_update(sid, update_plan([plan_entry("do it", priority="high", status="in_progress")]))
            await self.conn.session_update(sid, start_tool_call("t1", "Read notes.md", kind="read", status="pending"))
            for i in range(n):
                await self.say(sid, f"c{i} ")
            await self.conn.session_update(sid, update_tool_call("t1", status="completed"))
            await self.conn.session_update(sid, S.UsageUpdate(session_update="usage_update", used=120, size=1000))
        elif command.startswith("permission"):
            kind = command.split()[1] if len(command.split()) > 1 else "edit"
            call_id = f"t{len(earlier)}"
            options = [S.PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                       S.PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
                       S.PermissionOption(option_id="reject", name="Reject", kind="reject_once")]
            await self.conn.session_update(sid, start_tool_call(call_id, "Write file", kind=kind, status="pending"))
            answer = await self.conn.request_permission(
                session_id=sid, options=options,
                tool_call=S.ToolCallUpdate(tool_call_id=call_id, title="Write file", kind=kind, raw_input={"path": "a.md"}))
            chosen = getattr(answer.outcome, "option_id", "cancelled")
            await self.say(sid, f"permission: {chosen}")
        elif command.startswith("cost "):
            amount = float(command.split()[1])
            await self.conn.session_update(sid, S.UsageUpdate(session_update="usage_update", used=500, size=1000,
                                                                cost=S.Cost(amount=amount, currency="USD")))
            await self.say(sid, f"spent: {amount}")
            return S.PromptResponse(stop_reason="end_turn",
                                    usage=S.Usage(input_tokens=100, output_tokens=10, total_tokens=110))
        elif command.startswith("fs "):
            words = command.split(" ", 3)
            try:
                if words[1] == "read":
                    line, limit = (int(words[3].split()[0]), int(words[3].split()[1])) if len(words) > 3 else (None, None)
                    r = await self.conn.read_text_file(session_id=sid, path=words[2], line=line, limit=limit)
                    await self.say(sid, "read: " + r.content)
                else:
                    await self.conn.write_text_file(session_id=sid, path=words[2], content=words[3])
                    await self.say(sid, "written")
            except acp.RequestError as e:
                await self.say(sid, f"fs error: {e.code} {(e.data or {}).get('code')}")
        elif command == "ids":
            for text, mid in [("a1 ", "m-a"), ("a2 ", "m-a"), ("b1", "m-b")]:
                await self.conn.session_update(sid, S.AgentMessageChunk(session_update="agent_message_chunk",
                                                                          content=text_block(text), message_id=mid))
        elif command == "remember":
            await self.say(sid, "context: " + " | ".join(earlier))
            if len(texts) > 1:
                await self.say(sid, "\nhistory: " + texts[0])
        else:
            await self.say(sid, "echo: " + "\n".join(texts))
        return S.PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id, **kw):
        pass


def main(agent):
    """Serves on stdio; with ACP_AGENT_LOG set (a folder), appends every message it reads and
    writes to agent-<pid>.jsonl there ({"dir": "in"|"out", "message": …} per line), so the tests
    can validate the agent's side too."""
    log = os.environ.get("ACP_AGENT_LOG")
    observers = []
    if log:
        path = os.path.join(log, f"agent-{os.getpid()}.jsonl")

        def observe(event):
            with open(path, "a") as f:
                f.write(json.dumps({"dir": "in" if event.direction.value == "incoming" else "out",
                                    "message": event.message}) + "\n")
        observers.append(observe)
    asyncio.run(acp.run_agent(agent, observers=observers))
