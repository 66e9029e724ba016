"""Our MCP face offered to the agent in session/new's mcpServers (`workspace-bridge mcp --session
<our id>` on the same storage): the agent's file tools, through the official `mcp` SDK, act on the
workspace, are journaled in the same session as the ACP traffic, and pass its approval policy."""
from acp_helpers import Proxy, agent_requests, check_agent_logs, journal, root, run  # noqa: F401 (root: the fixture)
from test_acp_sessions import stored


def offered(p):
    """The mcpServers each session/new the agent got carried."""
    return [params["mcpServers"] for params in agent_requests(p, "session/new")]


def test_the_agent_uses_our_mcp_face_on_the_same_session(binary, root, tmp_path, spawn):
    async def go():
        p = Proxy(binary, root, "mcp_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "mcp write notes/a.md hello from the agent")
            assert "| read: hello from the agent" in p.editor.texts(sid)
            # The agent's tool calls and the proxy's journaling share the journal, interleaved.
            await p.prompt(sid, "mcp stream notes/log.txt 30")
            assert p.editor.texts(sid).endswith("".join(f"m{i} " for i in range(30)))
        return p, sid
    p, sid = run(go())
    assert (root / "notes" / "a.md").read_text() == "hello from the agent"
    assert (root / "notes" / "log.txt").read_text() == "".join(f"{i}\n" for i in range(30))
    [servers] = offered(p)
    ours = [s for s in servers if s["name"] == "workspace-bridge"]
    assert len(ours) == 1 and ours[0]["args"][0] == "mcp" and ours[0]["args"][-2:] == ["--session", sid]
    records = journal(root, sid)
    calls = [(r["t"], r.get("name")) for r in records if r["t"] in ("begin", "end", "read")]
    assert calls[:3] == [("begin", "write_file"), ("end", "write_file"), ("read", "read_file")]
    assert calls.count(("end", "append_file")) == 30
    # Every ACP update the editor saw is in the same journal, in order.
    session, contents = stored(spawn, root, tmp_path, sid)
    assert [c["update"] for c in contents if c.get("acp") == "update"] == [u for s, u in p.editor.updates if s == sid]
    assert session["pendingToolCalls"] == []
    check_agent_logs(p)


def test_the_session_policy_weighs_the_agents_mcp_calls(binary, root, tmp_path):
    (root / "keep.md").write_text("keep")

    async def go():
        p = Proxy(binary, root, "mcp_agent", tmp_path, "--approval-policy", "destructive")
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "mcp delete keep.md")
            # The agent's MCP client cannot be asked (no elicitation): the delete is refused.
            assert p.editor.texts(sid).startswith("refused: Approval")
        return p
    p = run(go())
    assert (root / "keep.md").read_text() == "keep"
    check_agent_logs(p)


def test_no_mcp_offers_nothing(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "mcp_agent", tmp_path, "--no-mcp")
        async with p.run():
            await p.start()
            await p.new()
        return p
    assert offered(run(go())) == [[]]
