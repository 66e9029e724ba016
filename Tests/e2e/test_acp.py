"""The ACP face (`workspace-bridge acp -- AGENT`), end to end: the PyPI ACP SDK plays the editor
and the downstream agents (Tests/e2e/acp_agents/), through the real binary; every message both
ways is validated against the vendored ACP v1 schema (acp_schema.py)."""
import acp
import pytest

from acp_helpers import Proxy, check_agent_logs, root, run  # noqa: F401 (root: the fixture)



def test_initialize_advertises_the_agent_plus_the_store(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            r = await p.start()
            assert r.protocol_version == 1
            caps = r.agent_capabilities
            assert caps.load_session is True
            sc = caps.session_capabilities
            assert sc.list is not None and sc.resume is not None and sc.close is not None and sc.delete is not None
            assert r.agent_info.name == "TestAgent"  # the agent's own answer, passed through
        return p
    p = run(go())
    assert p.conformance.checked >= 2 and check_agent_logs(p) >= 2


def test_streaming_permission_and_ids(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            a, b = await p.new(), await p.new()
            assert a.startswith("sess_") and b.startswith("sess_") and a != b
            r = await p.prompt(a, "stream 20")
            assert r.stop_reason == "end_turn"
            kinds = [u["sessionUpdate"] for s, u in p.editor.updates if s == a]
            assert kinds[:3] == ["agent_thought_chunk", "plan", "tool_call"]
            assert kinds[-2:] == ["tool_call_update", "usage_update"]
            assert p.editor.texts(a) == "".join(f"c{i} " for i in range(20))
            # Requests the agent makes of the editor come with our session id and go back to it.
            r = await p.prompt(b, "permission")
            assert p.editor.permissions and p.editor.permissions[0]["sessionId"] == b
            assert p.editor.texts(b) == "permission: allow"
            # Two prompts at once on two sessions: each answer reaches its own request.
            r1, r2 = await asyncio.gather(p.prompt(a, "hello a"), p.prompt(b, "hello b"))
            assert r1.stop_reason == r2.stop_reason == "end_turn"
            assert p.editor.texts(a).endswith("echo: hello a") and p.editor.texts(b).endswith("echo: hello b")
        return p
    p = run(go())
    assert check_agent_logs(p) > 40


def test_extension_methods_and_unknown_fields_pass_unchanged(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "ext_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "ext")
            # The agent's `_wb_test/ping` reached the editor with our session id and its _meta,
            # and the editor's answer came back to the agent.
            assert p.editor.ext_calls == [("wb_test/ping", {"sessionId": sid, "n": 41, "_meta": {"x": 1}})]
            assert p.editor.texts(sid) == "pong: 42"
            await asyncio.sleep(0.2)
            assert p.editor.ext_notes == [("wb_test/note", {"sessionId": sid, "hello": "editor"})]
            # The editor's extension request, with fields the schema does not know, reaches the
            # agent unchanged (no session id of ours in it) and its answer comes back unchanged.
            params = {"a": [1, {"b": None}], "_meta": {"k": "v"}, "unknownField": 1.5}
            r = await p.call(p.conn.ext_method("wb_test/echo", params))
            assert r == {"echoed": params, "method": "wb_test/echo"}
        return p
    p = run(go())
    check_agent_logs(p)


def test_agent_crash_mid_turn_is_an_error_and_the_next_prompt_restarts_it(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "crash_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "stream 2")
            with pytest.raises(acp.RequestError) as e:
                await p.prompt(sid, "crash")
            assert e.value.data["code"] == "AgentUnavailable"
            assert "exited with status 3" in e.value.data["reason"]
            assert p.editor.texts(sid).endswith("before the crash")
            # The proxy is still there; the session too: the next prompt starts the agent again,
            # which loads its session (its own context: the prompts before the crash).
            r = await p.prompt(sid, "remember")
            assert r.stop_reason == "end_turn"
            assert p.editor.texts(sid).endswith("context: stream 2 | crash")
            assert p.process.returncode is None
        return p
    p = run(go())
    assert len(list(p.agent_logs.glob("agent-*.jsonl"))) == 2
    check_agent_logs(p)


def test_cancel_notifications_reach_the_agent_with_its_own_ids(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "hello")
            await p.conn.cancel(session_id=sid)
            await p.prompt(sid, "after cancel")  # ordered after the cancel on the agent's stream
        return p, sid
    p, sid = run(go())
    check_agent_logs(p)
    seen = [json.loads(l)["message"] for log in p.agent_logs.glob("*.jsonl") for l in log.read_text().splitlines()]
    agent_sid = next(m["result"]["sessionId"] for m in seen if "result" in m and "sessionId" in (m["result"] or {}))
    cancels = [m for m in seen if m.get("method") == "session/cancel"]
    assert [c["params"] for c in cancels] == [{"sessionId": agent_sid}] and agent_sid != sid


def test_bad_input_gets_an_error_and_the_proxy_goes_on(binary, root, tmp_path):
    cmd = [str(binary), "acp", "--local-root", str(root), "--config-dir", str(tmp_path / "config"),
           "--log-file", str(tmp_path / "acp.log"), "--", sys.executable, str(AGENTS / "stream_agent.py")]
    lines = [b"{not json\n", b'{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/"}}\n',
             b'{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":1}}\n',
             b'{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"relative"}}\n',
             b'{"jsonrpc":"2.0","id":10,"method":"session/load","params":{"sessionId":"sess_0000000000000000","cwd":"%s","mcpServers":[]}}\n' % str(root).encode()]
    out = subprocess.run(cmd, input=b"".join(lines), capture_output=True, timeout=30).stdout
    answers = [json.loads(l) for l in out.splitlines()]
    c = Conformance()
    c.pending["client"].update({"7": "session/new", "8": "initialize", "9": "session/new", "10": "session/load"})
    for a in answers:
        if a.get("id") is not None:  # (the parse error's id is null: no request to match it with)
            c.check("agent", a)
    by_id = {a.get("id"): a for a in answers}
    assert by_id[None]["error"]["code"] == -32700 and by_id[None]["error"]["data"]["code"] == "ParseError"
    assert by_id[7]["error"]["code"] == -32600  # before initialize
    assert by_id[8]["result"]["protocolVersion"] == 1
    assert by_id[9]["error"]["data"] == {"code": "InvalidParams", "field": "cwd", "expected": "an absolute path"}
    assert by_id[10]["error"]["code"] == -32002 and by_id[10]["error"]["data"]["code"] == "NotFound"
    assert f"acp: sessions in {root}" in (tmp_path / "acp.log").read_text()  # --log-file, as for serve


def test_the_agents_world_is_the_workspace(binary, root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)

    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            for cwd, dirs in [(str(outside), []), (str(root / "link"), []), (str(root / ".." / "outside"), []),
                              (str(root), [str(outside)]), (str(root / "missing"), [])]:
                with pytest.raises(acp.RequestError) as e:
                    await p.call(p.conn.new_session(cwd=cwd, additional_directories=dirs, mcp_servers=[]))
                assert e.value.data["code"] == "OutsideWorkspace", cwd
            sid = await p.new(str(root))
            with pytest.raises(acp.RequestError) as e:
                await p.call(p.conn.load_session(cwd=str(outside), session_id=sid, mcp_servers=[]))
            assert e.value.data["code"] == "OutsideWorkspace"
        return p
    check_agent_logs(run(go()))


def test_an_agent_that_cannot_start_is_a_clear_error(binary, root, tmp_path):
    cmd = [str(binary), "acp", "--local-root", str(root), "--config-dir", str(tmp_path / "config"), "--",
           str(tmp_path / "no-such-agent")]
    req = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
    r = subprocess.run(cmd, input=req, capture_output=True, timeout=30)
    answer = json.loads(r.stdout)
    assert answer["error"]["data"]["code"] == "AgentUnavailable" and "no-such-agent" in answer["error"]["message"]
    assert r.returncode == 0


import asyncio  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from acp_helpers import AGENTS  # noqa: E402
from acp_schema import Conformance  # noqa: E402
