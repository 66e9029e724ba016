"""An editor in a process of its own, for killing: drives `workspace-bridge acp -- <agent>` with
the PyPI SDK, prints one JSON line {"proxy": pid, "session": id} once its session exists, then
{"updates": n} as the prompt's updates arrive. Usage: acp_editor.py BINARY ROOT CONFIG AGENT PROMPT [SESSION]"""
import asyncio
import json
import os
import sys
from pathlib import Path

import acp
from acp import schema as S


class Editor:
    def __init__(self):
        self.n = 0

    def on_connect(self, conn):
        pass

    async def session_update(self, session_id, update, **kw):
        self.n += 1
        if self.n % 50 == 0:
            print(json.dumps({"updates": self.n}), flush=True)

    async def request_permission(self, session_id, tool_call, options, **kw):
        return S.RequestPermissionResponse(outcome=S.AllowedOutcome(outcome="selected", option_id=options[0].option_id))


async def main(binary, root, config, agent, prompt, session=None):
    e = Editor()
    agent_path = Path(__file__).resolve().parent / "acp_agents" / f"{agent}.py"
    async with acp.spawn_agent_process(e, binary, "acp", "--local-root", root, "--config-dir", config, "--",
                                       sys.executable, str(agent_path), env=dict(os.environ)) as (conn, process):
        await conn.initialize(protocol_version=1, client_capabilities=S.ClientCapabilities())
        if session:
            await conn.load_session(cwd=root, session_id=session, mcp_servers=[])
        else:
            session = (await conn.new_session(cwd=root, mcp_servers=[])).session_id
        print(json.dumps({"proxy": process.pid, "session": session}), flush=True)
        await conn.prompt(session_id=session, prompt=[acp.text_block(prompt)])
        print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
