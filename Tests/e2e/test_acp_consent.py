"""The agent's permission requests under `acp --approval-policy`: the session's policy weighs
each call by its effect (from the ACP tool kind), remembered decisions answer later calls, and
the editor is asked only when the policy leaves it to the user; every request and outcome is
journaled. The PyPI ACP SDK plays both ends; every message is validated (acp_helpers)."""
import pytest

from acp_helpers import Proxy, check_agent_logs, root, run  # noqa: F401 (root: the fixture)



def test_destructive_asks_the_editor_only_for_replacing_calls_and_remembers(binary, root, tmp_path, spawn):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path, "--approval-policy", "destructive")
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, "permission read")     # reads: the policy asks nothing
            assert p.editor.permissions == [] and p.editor.texts(sid) == "permission: allow"
            p.editor.choose = "always"
            await p.prompt(sid, "permission edit")     # replaces: the editor is asked
            assert len(p.editor.permissions) == 1 and p.editor.permissions[0]["sessionId"] == sid
            assert p.editor.texts(sid).endswith("permission: always")
            p.editor.choose = "reject"
            await p.prompt(sid, "permission edit")     # remembered: not asked again
            assert len(p.editor.permissions) == 1 and p.editor.texts(sid).endswith("permission: allow")
            await p.prompt(sid, "permission delete")   # another kind: asked
            assert len(p.editor.permissions) == 2 and p.editor.texts(sid).endswith("permission: reject")
        return p, sid
    p, sid = run(go())
    check_agent_logs(p)
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "config"), init=True)
    session = b.result("session/get", {"id": sid})
    assert session["approvalPolicy"] == "destructive"
    contents = [m["content"] for m in b.result("session/messages", {"id": sid, "limit": 1000})["messages"]]
    outcomes = [(c["by"], c["outcome"].get("optionId")) for c in contents if c["acp"] == "permissionOutcome"]
    assert outcomes == [("policy", "allow"), ("editor", "always"), ("policy", "allow"), ("editor", "reject")]
    assert len([c for c in contents if c["acp"] == "permission"]) == 4


def test_none_allows_without_asking_and_no_flag_always_asks(binary, root, tmp_path):
    async def go(*options):
        p = Proxy(binary, root, "stream_agent", tmp_path, *options)
        async with p.run():
            await p.start()
            sid = await p.new()
            p.editor.choose = "reject"
            await p.prompt(sid, "permission delete")
            return p, sid
    p, sid = run(go("--approval-policy", "none"))
    assert p.editor.permissions == [] and p.editor.texts(sid) == "permission: allow"
    p, sid = run(go())
    assert len(p.editor.permissions) == 1 and p.editor.texts(sid) == "permission: reject"
