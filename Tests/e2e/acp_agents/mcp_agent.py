"""Uses the MCP servers the client offers in session/new (the official `mcp` SDK as its client):
  mcp write PATH TEXT   lists the tools of the server named workspace-bridge, calls write_file,
                        then read_file; says "tools: <n> | read: <text>"
  mcp delete PATH       calls delete_file; says "deleted" or "refused: <code>"
  mcp stream PATH N     N agent_message_chunk updates interleaved with N append_file calls
Anything else as the stream agent."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TestAgent, main  # noqa: E402

from mcp import Client, StdioServerParameters, stdio_client  # noqa: E402


class MCPAgent(TestAgent):
    def __init__(self):
        super().__init__()
        self.servers = {}  # session id -> the mcpServers it was given

    async def new_session(self, cwd, additional_directories=None, mcp_servers=None, **kw):
        r = await super().new_session(cwd, additional_directories, mcp_servers, **kw)
        self.servers[r.session_id] = mcp_servers or []
        return r

    async def load_session(self, cwd, session_id, mcp_servers=None, additional_directories=None, **kw):
        self.servers[session_id] = mcp_servers or []
        return await super().load_session(cwd, session_id, mcp_servers, additional_directories, **kw)

    def client(self, sid):
        s = next(s for s in self.servers.get(sid, []) if s.name == "workspace-bridge")
        params = StdioServerParameters(command=s.command, args=list(s.args), env={e.name: e.value for e in s.env} or None)
        return Client(stdio_client(params, errlog=sys.stderr), read_timeout_seconds=30)

    async def turn(self, sid, command, texts, earlier):
        from acp import schema as S
        words = command.split(" ", 3)
        if words[:2] == ["mcp", "write"]:
            async with self.client(sid) as c:
                tools = (await c.list_tools()).tools
                w = await c.call_tool("write_file", {"path": words[2], "content": words[3]})
                assert not w.is_error, w.content
                r = await c.call_tool("read_file", {"path": words[2]})
            await self.say(sid, f"tools: {len(tools)} | read: {r.structured_content.get('data')}")
            return S.PromptResponse(stop_reason="end_turn")
        if words[:2] == ["mcp", "delete"]:
            async with self.client(sid) as c:
                r = await c.call_tool("delete_file", {"path": words[2]})
            await self.say(sid, f"refused: {(r.structured_content or {}).get('code')}" if r.is_error else "deleted")
            return S.PromptResponse(stop_reason="end_turn")
        if words[:2] == ["mcp", "stream"]:
            n = int(words[3])
            async with self.client(sid) as c:
                for i in range(n):
                    await self.say(sid, f"m{i} ")
                    a = await c.call_tool("append_file", {"path": words[2], "content": f"{i}\n"})
                    assert not a.is_error, a.content
            return S.PromptResponse(stop_reason="end_turn")
        return await super().turn(sid, command, texts, earlier)


if __name__ == "__main__":
    main(MCPAgent())
