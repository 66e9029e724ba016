"""Kill loops on the ACP face: the proxy killed (-9) mid-stream again and again, each time
restarted and the session loaded and continued: every update the editor was shown in every round
is replayed, in order. An editor killed mid-turn leaves the proxy and the agent to end by
themselves and the session loadable and going on."""
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acp_helpers import Proxy, check_agent_logs, root, run  # noqa: F401 (root: the fixture)

ROUNDS = 3


def is_subsequence(part, whole):
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


def test_the_proxy_killed_mid_stream_again_and_again_loses_nothing_shown(binary, root, tmp_path):
    shown = []  # every update the editor was shown, all rounds, in order
    sid = None

    async def round_(i):
        nonlocal sid
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            if sid is None:
                sid = await p.new()
            else:
                await p.call(p.conn.load_session(cwd=str(root), session_id=sid, mcp_servers=[]))
                replayed = [u for s, u in p.editor.updates if s == sid]
                assert is_subsequence(shown, replayed), f"round {i}: something shown was not replayed"
                p.editor.updates.clear()
            turn = asyncio.ensure_future(p.prompt(sid, "stream 800"))
            want = 60 + 30 * i
            for _ in range(1000):
                if len(p.editor.updates) >= want:
                    break
                await asyncio.sleep(0.01)
            os.kill(p.process.pid, signal.SIGKILL)
            shown.extend(u for s, u in p.editor.updates if s == sid)
            assert len(p.editor.updates) >= want
            turn.cancel()
            try:
                await turn
            except BaseException:
                pass

    for i in range(ROUNDS):
        run(round_(i))

    async def last():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            await p.call(p.conn.load_session(cwd=str(root), session_id=sid, mcp_servers=[]))
            replayed = [u for s, u in p.editor.updates if s == sid]
            prompts = [u for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
            assert len(prompts) == ROUNDS
            assert is_subsequence(shown, replayed)
            # The session goes on.
            assert (await p.prompt(sid, "hello")).stop_reason == "end_turn"
    run(last())


def test_an_editor_killed_mid_turn_leaves_the_agent_and_the_session_sane(binary, root, tmp_path):
    editor = Path(__file__).resolve().parent / "acp_editor.py"
    logs = tmp_path / "agent-logs"
    logs.mkdir()
    env = dict(os.environ, ACP_AGENT_LOG=str(logs))
    e = subprocess.Popen([sys.executable, str(editor), str(binary), str(root), str(tmp_path / "config"), "stream_agent",
                          "stream 2000"], stdout=subprocess.PIPE, env=env, text=True)
    first = json.loads(e.stdout.readline())
    proxy, sid = first["proxy"], first["session"]
    for line in e.stdout:
        if json.loads(line).get("updates", 0) >= 200:
            break
    e.kill()
    e.wait()
    # The proxy sees the end of its input: it lets the agent answer within --exit-grace, then
    # ends it; both exit by themselves.
    agents = [int(f.stem.split("-")[1]) for f in logs.glob("agent-*.jsonl")]
    assert len(agents) == 1
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() and
                                              "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
                                              for pid in [proxy, *agents]):
        time.sleep(0.1)
    for pid in [proxy, *agents]:
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().split()[2] == "Z", f"process {pid} still running"

    async def after():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            await p.call(p.conn.load_session(cwd=str(root), session_id=sid, mcp_servers=[]))
            kinds = [u["sessionUpdate"] for s, u in p.editor.updates if s == sid]
            # The turn the editor left went on within --exit-grace and is whole in the journal.
            assert kinds[0] == "user_message_chunk" and kinds.count("agent_message_chunk") == 2000
            assert (await p.prompt(sid, "hello")).stop_reason == "end_turn"
            # (that agent kept no state: this one starts the session afresh, with the history)
            assert "[workspace-bridge] This session continues" in p.editor.texts(sid)
            assert p.editor.texts(sid).endswith("\nhello")
        return p
    check_agent_logs(run(after()))


def running(pid):
    """Whether `pid` is a process that has not exited (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def children(pid):
    """The pids of the processes whose parent is `pid`, with their command lines."""
    out = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append((int(d.name), (d / "cmdline").read_bytes().split(b"\0")))
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return out


def wait_gone(pids, seconds):
    """Waits (a hang guard) until none of `pids` runs; returns those still running."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(running(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if running(p)]


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the kernel's parent-death signal ties the agent to the proxy on Linux only")


@linux_only
def test_a_proxy_killed_takes_its_agent_and_the_agents_mcp_server_with_it(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "mcp_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            # Each chunk of this turn follows an append through the agent's `mcp --session` server.
            turn = asyncio.ensure_future(p.prompt(sid, "mcp stream notes.md 100000"))
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and len(p.editor.updates) < 20:
                await asyncio.sleep(0.05)
            assert len(p.editor.updates) >= 20
            agents = [pid for pid, _ in children(p.process.pid)]
            servers = [pid for a in agents for pid, argv in children(a) if b"mcp" in argv and b"--session" in argv]
            assert len(agents) == 1 and len(servers) == 1
            os.kill(p.process.pid, signal.SIGKILL)
            left = wait_gone(agents + servers, 10)
            turn.cancel()
            try:
                await turn
            except BaseException:
                pass
        return agents, servers, left
    agents, servers, left = run(go())
    assert left == [], f"still running after the proxy's kill -9: {left} (agent {agents}, its MCP server {servers})"


@linux_only
def test_a_clean_exit_leaves_no_agent_running_even_one_that_ignores_its_end(binary, root, tmp_path):
    """End of our input: the agent's input is closed, then its group gets SIGTERM, then SIGKILL."""
    pids = tmp_path / "pids.json"
    env = dict(os.environ, STUBBORN_PIDS=str(pids))
    proxy = subprocess.Popen([str(binary), "acp", "--local-root", str(root), "--config-dir", str(tmp_path / "config"),
                              "--exit-grace", "1", "--", sys.executable, str(Path(__file__).resolve().parent / "acp_agents" / "stubborn_agent.py")],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    proxy.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                  "params": {"protocolVersion": 1, "clientCapabilities": {}}}).encode() + b"\n")
    proxy.stdin.flush()
    assert json.loads(proxy.stdout.readline())["result"]["agentInfo"]["name"] == "Stubborn"
    started = json.loads(pids.read_text())
    assert running(started["agent"]) and running(started["child"])
    proxy.stdin.close()
    assert proxy.wait(timeout=60) == 0
    assert wait_gone([started["agent"], started["child"]], 10) == []
