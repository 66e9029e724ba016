"""The ACP face's sessions are our sessions: journaled before the editor sees anything, and
served from the store (list, load, resume, close, delete) whatever the agent supports, across
restarts of the proxy and a kill -9 mid-stream. The PyPI ACP SDK plays both ends; every message
is validated against the ACP v1 schema (acp_helpers)."""
import asyncio
import json
import os
import signal

import acp
import pytest

from acp_helpers import Proxy, check_agent_logs, journal, root, run  # noqa: F401 (root: the fixture)



def stored(spawn, root, tmp_path, sid):
    """The session and its messages, as the JSON-RPC face shows them."""
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "config"), init=True)
    session = b.result("session/get", {"id": sid})
    # Front ends see ACP sessions as any other (point 6 of issue 24, list side).
    assert sid in [x["id"] for x in b.result("session/list", {"limit": 100})["sessions"]]
    messages = b.result("session/messages", {"id": sid, "limit": 1000})["messages"]

    return session, [m["content"] for m in messages]


def test_every_prompt_update_permission_and_stop_is_journaled(binary, root, tmp_path, spawn):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "stream 3")
            await p.prompt(sid, "permission")
        return p, sid
    p, sid = run(go())
    session, contents = stored(spawn, root, tmp_path, sid)
    assert session["title"] == "stream 3" and session["agentType"] == "TestAgent"
    assert session["metadata"]["acp"]["cwdInRoot"] == ""  # relative: the root has another path on another device
    kinds = [c["acp"] for c in contents]
    assert kinds == ["prompt"] + ["update"] * 8 + ["stop", "prompt", "update", "permission", "permissionOutcome", "update", "stop"]
    # Updates verbatim, in the order the editor saw them.
    assert [c["update"] for c in contents if c["acp"] == "update"] == [u for s, u in p.editor.updates if s == sid]
    assert contents[0]["prompt"] == [{"type": "text", "text": "stream 3"}]
    assert contents[9] == {"acp": "stop", "stopReason": "end_turn"}
    assert contents[12]["request"]["options"][0]["optionId"] == "allow"
    assert contents[13]["outcome"] == {"outcome": "selected", "optionId": "allow"}
    check_agent_logs(p)


def test_list_load_resume_close_delete_across_a_restart(binary, root, tmp_path):
    sub = root / "sub"
    sub.mkdir()

    async def first():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            a, b, c = await p.new(), await p.new(), await p.new(str(sub))
            await p.prompt(a, "stream 4")
            await p.prompt(a, "second prompt")
            await p.prompt(b, "for b")
            await p.prompt(c, "in sub")
        return p, (a, b, c)
    p1, (a, b, c) = run(first())
    seen_a = [u for s, u in p1.editor.updates if s == a]

    async def second():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            listed = await p.call(p.conn.list_sessions())
            assert [(s.session_id, s.title, s.cwd) for s in listed.sessions] == [
                (a, "stream 4", str(root)), (b, "for b", str(root)), (c, "in sub", str(sub))]
            only = await p.call(p.conn.list_sessions(cwd=str(sub)))
            assert [s.session_id for s in only.sessions] == [c]
            # load: the whole conversation, prompts as user chunks, then the answer; the agent
            # loaded its own session (its context is back) and its own replay is not shown twice.
            await p.call(p.conn.load_session(cwd=str(root), session_id=a, mcp_servers=[]))
            replayed = [u for s, u in p.editor.updates if s == a]
            user = lambda t: {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": t}}
            assert replayed[0] == user("stream 4") and user("second prompt") in replayed
            assert [u for u in replayed if u["sessionUpdate"] != "user_message_chunk"] == seen_a
            assert len(replayed) == len(seen_a) + 2
            await p.prompt(a, "remember")
            assert p.editor.texts(a).endswith("context: stream 4 | second prompt")
            # resume: no replay, and the session goes on.
            n = len(p.editor.updates)
            await p.call(p.conn.resume_session(cwd=str(root), session_id=b, mcp_servers=[]))
            assert len(p.editor.updates) == n
            await p.prompt(b, "remember")
            assert p.editor.texts(b).endswith("context: for b")
            # close, then a prompt attaches it again; delete: gone from list and load.
            assert await p.call(p.conn.close_session(session_id=a)) is not None
            await p.prompt(a, "after close")
            await p.call(p.conn._conn.send_request("session/delete", {"sessionId": b}))
            listed = await p.call(p.conn.list_sessions())
            assert [s.session_id for s in listed.sessions] == [a, c]
            with pytest.raises(acp.RequestError) as e:
                await p.call(p.conn.load_session(cwd=str(root), session_id=b, mcp_servers=[]))
            assert e.value.code == -32002 and e.value.data["code"] == "NotFound"
        return p
    p2 = run(second())
    check_agent_logs(p2)


def test_an_agent_without_load_gets_the_history_with_the_next_prompt(binary, root, tmp_path):
    async def first():
        p = Proxy(binary, root, "noload_agent", tmp_path)
        async with p.run():
            r = await p.start()
            assert r.agent_capabilities.load_session is True  # served by the proxy
            sid = await p.new()
            await p.prompt(sid, "hello there")
        return sid
    sid = run(first())

    async def second():
        p = Proxy(binary, root, "noload_agent", tmp_path)
        async with p.run():
            await p.start()
            await p.call(p.conn.load_session(cwd=str(root), session_id=sid, mcp_servers=[]))
            assert p.editor.texts(sid) == "echo: hello there"  # the replay
            await p.prompt(sid, "remember")
            text = p.editor.texts(sid)
            assert "context: \nhistory: [workspace-bridge] This session continues an earlier conversation." in text
            assert "User: hello there\n\nAgent: echo: hello there" in text
            # Once: the prompt after carries no history.
            await p.prompt(sid, "remember")
            assert p.editor.texts(sid).endswith("context: remember")
        return p
    check_agent_logs(run(second()))


def test_kill_9_mid_stream_loses_nothing_the_editor_saw(binary, root, tmp_path):
    async def first():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            turn = asyncio.ensure_future(p.prompt(sid, "stream 5000"))
            for _ in range(600):
                if len(p.editor.updates) >= 300:
                    break
                await asyncio.sleep(0.01)
            os.kill(p.process.pid, signal.SIGKILL)
            seen = [u for s, u in p.editor.updates if s == sid]
            assert 300 <= len(seen) < 5000
            turn.cancel()
            try:
                await turn
            except BaseException:
                pass
        return sid, seen
    sid, seen = run(first())

    async def second():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            await p.call(p.conn.load_session(cwd=str(root), session_id=sid, mcp_servers=[]))
            replayed = [u for s, u in p.editor.updates if s == sid]
            assert replayed[0]["sessionUpdate"] == "user_message_chunk"
            assert replayed[1:1 + len(seen)] == seen
        return p
    run(second())


def test_fork_is_ours_and_goes_on_apart_from_its_parent(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            r = await p.start()
            assert r.agent_capabilities.session_capabilities.fork is not None
            parent = await p.new()
            await p.prompt(parent, "first")
            fork = (await p.call(p.conn._conn.send_request(
                "session/fork", {"sessionId": parent, "cwd": str(root), "mcpServers": []})))["sessionId"]
            assert fork.startswith("sess_") and fork != parent
            # The fork's agent session is a fresh one, handed the history once.
            await p.prompt(fork, "remember")
            assert "context: \nhistory: [workspace-bridge]" in p.editor.texts(fork) and "User: first" in p.editor.texts(fork)
            await p.prompt(parent, "remember")
            assert p.editor.texts(parent).endswith("context: first")
            # Loading the fork replays the parent's history, then its own.
            n = len(p.editor.updates)
            await p.call(p.conn.load_session(cwd=str(root), session_id=fork, mcp_servers=[]))
            replayed = [u for s, u in p.editor.updates[n:] if s == fork]
            assert [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"] == ["first", "remember"]
            with pytest.raises(acp.RequestError) as e:
                await p.call(p.conn._conn.send_request("session/fork", {"sessionId": parent, "cwd": "/elsewhere", "mcpServers": []}))
            assert e.value.data["code"] == "InvalidParams"
        return p
    check_agent_logs(run(go()))


def test_a_session_travels_with_the_root_to_another_device(binary, root, tmp_path):
    """What a sync engine does, done by hand: the root copied to another path, opened by another
    device (its own config folder, so its own device id)."""
    import shutil
    (root / "proj").mkdir()

    async def device_a():
        p = Proxy(binary, root, "noload_agent", tmp_path / "a")
        async with p.run():
            await p.start()
            sid = await p.new(str(root / "proj"))
            await p.prompt(sid, "started on A")
        return sid
    (tmp_path / "a").mkdir()
    sid = run(device_a())
    other = tmp_path / "device-b-root"
    shutil.copytree(root, other, symlinks=True)

    async def device_b():
        (tmp_path / "b").mkdir()
        p = Proxy(binary, other, "noload_agent", tmp_path / "b")
        async with p.run():
            await p.start()
            listed = await p.call(p.conn.list_sessions())
            assert [(s.session_id, s.cwd, s.title) for s in listed.sessions] == [(sid, str(other / "proj"), "started on A")]
            await p.call(p.conn.load_session(cwd=str(other / "proj"), session_id=sid, mcp_servers=[]))
            assert p.editor.texts(sid) == "echo: started on A"
            await p.prompt(sid, "remember")
            assert "User: started on A" in p.editor.texts(sid)
        return p
    check_agent_logs(run(device_b()))


def test_a_prompt_that_cannot_be_journaled_is_refused_not_sent(binary, root, tmp_path):
    """Device A's proxy holds the session's lease; device B (another config folder) may list and
    load it, but its prompt is refused with the store's error and never reaches B's agent."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    async def go():
        a = Proxy(binary, root, "stream_agent", tmp_path / "a")
        b = Proxy(binary, root, "stream_agent", tmp_path / "b")
        async with a.run(), b.run():
            await a.start()
            await b.start()
            sid = await a.new()
            await a.prompt(sid, "on A")
            assert [s.session_id for s in (await b.call(b.conn.list_sessions())).sessions] == [sid]
            with pytest.raises(acp.RequestError) as e:
                await b.prompt(sid, "from B")
            assert e.value.data["code"] == "SessionLocked"
            r = await a.prompt(sid, "still A's")
            assert r.stop_reason == "end_turn"
        return b
    b = run(go())
    check_agent_logs(b)
    prompts = [json.loads(l)["message"] for log in b.agent_logs.glob("*.jsonl") for l in log.read_text().splitlines()]
    assert not any(m.get("method") == "session/prompt" and "from B" in json.dumps(m) for m in prompts)


def test_a_fork_made_by_a_front_end_is_loadable_from_the_editor(binary, root, tmp_path, spawn):
    async def first():
        p = Proxy(binary, root, "noload_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "one")
            await p.prompt(sid, "two")
        return sid
    sid = run(first())
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "config"), init=True)
    first_id = b.result("session/messages", {"id": sid, "limit": 1000})["messages"]
    cut = next(m["id"] for m in first_id if m["content"].get("acp") == "stop")  # after the first turn
    fork = b.result("session/fork", {"id": sid, "atMessageId": cut, "title": "forked there"})["id"]

    async def second():
        p = Proxy(binary, root, "noload_agent", tmp_path)
        async with p.run():
            await p.start()
            listed = {s.session_id: s.title for s in (await p.call(p.conn.list_sessions())).sessions}
            assert listed == {sid: "one", fork: "forked there"}
            await p.call(p.conn.load_session(cwd=str(root), session_id=fork, mcp_servers=[]))
            assert [u["content"]["text"] for s, u in p.editor.updates if s == fork] == ["one", "echo: one"]
            await p.prompt(fork, "remember")
            assert "User: one" in p.editor.texts(fork) and "User: two" not in p.editor.texts(fork)
        return p
    check_agent_logs(run(second()))


def test_a_session_compacted_by_a_front_end_replays_its_summary(binary, root, tmp_path, spawn):
    async def first():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "one")
            await p.prompt(sid, "two")
        return sid
    sid = run(first())
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "config"), init=True)
    ms = b.result("session/messages", {"id": sid, "limit": 1000})["messages"]
    through = [m["id"] for m in ms if m["content"].get("acp") == "stop"][0]
    b.result("session/compact", {"id": sid, "fromMessageId": ms[0]["id"], "throughMessageId": through,
                                 "summary": "the user said one"})

    async def second():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            await p.call(p.conn.load_session(cwd=str(root), session_id=sid, mcp_servers=[]))
            shown = [u["content"]["text"] for s, u in p.editor.updates if s == sid]
            assert shown == ["[summary of the earlier conversation] the user said one", "two", "echo: two"]
        return p
    check_agent_logs(run(second()))


def test_the_editor_forks_at_a_message(binary, root, tmp_path):
    """`_meta.workspaceBridge.atMessageId`: an ACP messageId the chunks carried (the cut after its
    last chunk), or one of our message ids (session/messages on the JSON-RPC face)."""
    def fork_at(p, sid, at):
        return p.call(p.conn._conn.send_request("session/fork", {"sessionId": sid, "cwd": str(root), "mcpServers": [],
                                                                 "_meta": {"workspaceBridge": {"atMessageId": at}}}))

    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            for text in ("first", "ids", "third"):
                await p.prompt(sid, text)
            fork = (await fork_at(p, sid, "m-a"))["sessionId"]
            n = len(p.editor.updates)
            await p.call(p.conn.load_session(cwd=str(root), session_id=fork, mcp_servers=[]))
            shown = [u["content"]["text"] for s, u in p.editor.updates[n:] if s == fork]
            assert shown == ["first", "echo: first", "ids", "a1 ", "a2 "]
            # One of our message ids: the cut is right after the first turn's stop.
            messages = [m for r in journal(root, sid) if r["t"] == "msg" for m in r["m"]]
            stop = next(m["id"] for m in messages if m["content"].get("acp") == "stop")
            early = (await fork_at(p, sid, stop))["sessionId"]
            n = len(p.editor.updates)
            await p.call(p.conn.load_session(cwd=str(root), session_id=early, mcp_servers=[]))
            assert [u["content"]["text"] for s, u in p.editor.updates[n:] if s == early] == ["first", "echo: first"]
            with pytest.raises(acp.RequestError) as e:
                await fork_at(p, sid, "no-such-message")
            assert e.value.data["code"] == "InvalidParams" and e.value.data["field"] == "_meta.workspaceBridge.atMessageId"
        return p
    check_agent_logs(run(go()))
