"""The agent's fs/read_text_file and fs/write_text_file: the editor's when it advertised them,
else served by the proxy from the workspace (inside the root, journaled, under the session's
approval policy by effect: replacing a file asks the editor under `destructive`)."""
from acp import schema as S

from acp_helpers import Proxy, check_agent_logs, journal, root, run  # noqa: F401 (root: the fixture)


def test_served_from_the_sandbox_when_the_editor_cannot(binary, root, tmp_path):
    (tmp_path / "outside.txt").write_text("secret")

    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, f"fs write {root}/notes/b.md one\ntwo\nthree")
            await p.prompt(sid, f"fs read {root}/notes/b.md")
            await p.prompt(sid, f"fs read {root}/notes/b.md 2 1")
            await p.prompt(sid, f"fs read {tmp_path}/outside.txt")
            await p.prompt(sid, f"fs read {root}/notes/../../outside.txt")
            await p.prompt(sid, f"fs read {root}/missing.md")
            return p, sid
    p, sid = run(go())
    assert p.editor.texts(sid) == ("written" "read: one\ntwo\nthree" "read: two"
                                   "fs error: -32803 OutsideWorkspace" "fs error: -32803 OutsideWorkspace"
                                   "fs error: -32002 NotFound")
    assert (root / "notes" / "b.md").read_text() == "one\ntwo\nthree"
    calls = [(r["t"], r.get("name"), r.get("isError")) for r in journal(root, sid) if r["t"] in ("begin", "end", "read")]
    assert calls == [("begin", "fs/write_text_file", None), ("end", "fs/write_text_file", False),
                     ("read", "fs/read_text_file", False), ("read", "fs/read_text_file", False),
                     ("read", "fs/read_text_file", True)]
    check_agent_logs(p)


def test_a_write_that_replaces_asks_the_editor_under_destructive(binary, root, tmp_path):
    (root / "keep.md").write_text("keep")

    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path, "--approval-policy", "destructive")
        async with p.run():
            await p.start()
            sid = await p.new()
            await p.prompt(sid, f"fs write {root}/new.md fresh")      # adds: not asked
            assert p.editor.permissions == []
            p.editor.choose = "reject"
            await p.prompt(sid, f"fs write {root}/keep.md replaced")  # replaces: asked, refused
            assert len(p.editor.permissions) == 1
            assert p.editor.permissions[0]["toolCall"]["title"] == "Overwrite keep.md"
            p.editor.choose = "always"
            await p.prompt(sid, f"fs write {root}/keep.md replaced")  # asked, allowed and remembered
            await p.prompt(sid, f"fs write {root}/new.md again")      # remembered: not asked
            assert len(p.editor.permissions) == 2
            return p, sid
    p, sid = run(go())
    assert p.editor.texts(sid) == "written" "fs error: -32803 ApprovalDenied" "written" "written"
    assert (root / "keep.md").read_text() == "replaced" and (root / "new.md").read_text() == "again"
    kinds = [r["m"][0]["content"].get("acp") for r in journal(root, sid) if r["t"] == "msg"]
    assert kinds.count("permission") == 2 and kinds.count("permissionOutcome") == 2
    check_agent_logs(p)


def test_the_editors_own_fs_when_it_advertised_it(binary, root, tmp_path):
    async def go():
        p = Proxy(binary, root, "stream_agent", tmp_path)
        written = []

        async def read_text_file(session_id, path, line=None, limit=None, **kw):
            return S.ReadTextFileResponse(content=f"editor buffer of {path}")

        async def write_text_file(session_id, path, content, **kw):
            written.append((session_id, path, content))
            return S.WriteTextFileResponse()
        p.editor.read_text_file, p.editor.write_text_file = read_text_file, write_text_file
        async with p.run():
            caps = S.ClientCapabilities(fs=S.FileSystemCapabilities(read_text_file=True, write_text_file=True))
            await p.call(p.conn.initialize(protocol_version=1, client_capabilities=caps))
            sid = await p.new()
            await p.prompt(sid, f"fs read {root}/x.md")
            await p.prompt(sid, f"fs write {root}/x.md unsaved")
            return p, sid, written
    p, sid, written = run(go())
    assert p.editor.texts(sid) == f"read: editor buffer of {root}/x.md" "written"
    assert written == [(sid, f"{root}/x.md", "unsaved")] and not (root / "x.md").exists()
    check_agent_logs(p)
