"""Workspace content for any LSP 3.18 editor (issue 27, docs/protocol.md "wsb: documents"), through
a real LSP client library from PyPI (pygls 2.x's LanguageClient, lsprotocol's typed 3.18
messages) against the real binary:

- `initialize` announces `workspace.textDocumentContent: {schemes: ["wsb"]}` and
  `executeCommandProvider.commands` (`wsb.METHOD`, derived from the method table);
- `workspace/textDocumentContent` serves a file, a file at an etag, a conflict copy beside its
  original, a session's transcript and its export;
- `workspace/textDocumentContent/refresh {uri}` is sent when a document the client read changes;
- `workspace/executeCommand` runs the custom methods for a client without custom requests.
"""
from __future__ import annotations

import asyncio
import json
import os
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

TIMEOUT = 10


def server_argv(binary: Path, root: Path) -> list[str]:
    return [str(binary), "--local-root", str(root)]


def env_for(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg-data"), "XDG_CONFIG_HOME": str(tmp_path / "xdg-config")}


@asynccontextmanager
async def editor(binary, tmp_path, *, refresh: bool = True):
    """A pygls client that declares LSP 3.18's textDocumentContent capability (or not), with the
    refresh requests it receives in `client.refreshed`."""
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    client = LanguageClient("wb-lsp-content", "1")
    client.refreshed = []

    @client.feature(t.WORKSPACE_TEXT_DOCUMENT_CONTENT_REFRESH)
    def on_refresh(params: t.TextDocumentContentRefreshParams):
        client.refreshed.append(params.uri)

    argv = server_argv(binary, root)
    await client.start_io(argv[0], *argv[1:], env=env_for(tmp_path))
    try:
        workspace = t.WorkspaceClientCapabilities(
            text_document_content=t.TextDocumentContentClientCapabilities(dynamic_registration=False) if refresh else None)
        client.init_result = await asyncio.wait_for(client.initialize_async(t.InitializeParams(
            capabilities=t.ClientCapabilities(workspace=workspace), process_id=None, root_uri=root.as_uri())), TIMEOUT)
        client.initialized(t.InitializedParams())
        client.root = root
        yield client
    finally:
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
        await client.stop()


async def content(client, uri: str) -> str:
    r = await asyncio.wait_for(client.workspace_text_document_content_async(t.TextDocumentContentParams(uri=uri)), TIMEOUT)
    return r.text


async def content_error(client, uri: str) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as e:
        await content(client, uri)
    return e.value


async def command(client, name: str, params: dict | None = None):
    args = None if params is None else [params]
    return await asyncio.wait_for(client.workspace_execute_command_async(
        t.ExecuteCommandParams(command=name, arguments=args)), TIMEOUT)


async def until(pred, what: str, timeout: float = 5.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not pred():
        assert asyncio.get_running_loop().time() < deadline, f"never: {what}"
        await asyncio.sleep(0.02)


def data_code(e: JsonRpcException) -> str:
    return (e.data or {}).get("code")


def test_initialize_announces_the_wsb_scheme_and_the_commands(binary, tmp_path):
    async def main():
        async with editor(binary, tmp_path) as c:
            caps = c.init_result.capabilities
            assert list(caps.workspace.text_document_content.schemes) == ["wsb"]
            commands = list(caps.execute_command_provider.commands)
            for name in ("wsb.loadFile", "wsb.saveFile", "wsb.listFiles", "wsb.session/list", "wsb.session/messages",
                         "wsb.listConflicts", "wsb.settings/get"):
                assert name in commands, name
            for lifecycle in ("wsb.initialize", "wsb.shutdown", "wsb.workspace/executeCommand", "wsb.debug/echo"):
                assert lifecycle not in commands, lifecycle
            assert len(commands) == len(set(commands))
    asyncio.run(main())


def test_files_at_an_etag_and_conflict_copies_beside_their_original(binary, tmp_path):
    async def main():
        async with editor(binary, tmp_path) as c:
            saved = await command(c, "wsb.saveFile", {"path": "notes/plan é.md", "data": "# Plan\n"})
            uri = "wsb:/file/notes/plan%20%C3%A9.md"
            assert await content(c, uri) == "# Plan\n"
            at = f"{uri}?etag={saved['etag']}"
            assert await content(c, at) == "# Plan\n"
            # VS Code encodes the query's `=` as well.
            assert await content(c, f"{uri}?etag%3D{saved['etag']}") == "# Plan\n"

            (c.root / "notes/plan é.md").write_text("# Plan v2\n")            # another writer
            stale = await content_error(c, at)
            assert data_code(stale) == "PreconditionFailed" and stale.data["currentEtag"] != saved["etag"]
            assert await content(c, uri) == "# Plan v2\n"

            copy = "plan é.sync-conflict-20251122-101010-ABCDEFG.md"
            (c.root / "notes" / copy).write_text("# Plan (other device)\n")
            assert await content(c, "wsb:/conflict/notes/" + copy.replace(" ", "%20").replace("é", "%C3%A9")) == \
                "# Plan (other device)\n"
            assert data_code(await content_error(c, "wsb:/conflict/notes/plan%20%C3%A9.md")) == "InvalidArgument"
            (c.root / "notes/orphan.sync-conflict-20251122-101010-ABCDEFG.md").write_text("x\n")
            assert data_code(await content_error(c, "wsb:/conflict/notes/orphan.sync-conflict-20251122-101010-ABCDEFG.md")) == "NotFound"

            (c.root / "bin.dat").write_bytes(b"\xff\xfe\x00")
            assert data_code(await content_error(c, "wsb:/file/bin.dat")) == "NotText"
            for bad in ("file:///etc/passwd", "wsb:/file/../outside.md", "wsb:/nothing/x", "wsb:/file/a%zz", "wsb:/file/a.md?v=2"):
                e = await content_error(c, bad)
                assert e.code == -32602 or data_code(e) in {"InvalidPath", "OutsideWorkspace"}, (bad, e)
            assert data_code(await content_error(c, "wsb:/file/missing.md")) == "NotFound"
            assert await command(c, "wsb.loadFile", {"path": "notes/plan é.md"}) is not None   # still serving
    asyncio.run(main())


def test_a_session_transcript_and_export_and_their_refresh(binary, tmp_path):
    async def main():
        async with editor(binary, tmp_path) as c:
            s = await command(c, "wsb.session/create", {"title": "Flights"})
            sid = s["id"]
            await command(c, "wsb.session/appendMessages", {"id": sid, "messages": [
                {"role": "user", "content": "Find flights to Lisbon."},
                {"role": "assistant", "content": [{"type": "text", "text": "Looking."}]}]})
            transcript = await content(c, f"wsb:/session/{sid}")
            assert transcript.startswith("# Flights\n") and f"`{sid}`" in transcript
            assert "## user · " in transcript and "Find flights to Lisbon." in transcript
            assert '"text":"Looking."' in transcript.replace(" ", "")
            exported = json.loads(await content(c, f"wsb:/export/{sid}"))
            assert exported["format"] == "workspace-bridge.session" and len(exported["messages"]) == 2
            assert not (c.root / "Chats").exists() or not any((c.root / "Chats").iterdir()), "reading an export writes nothing"

            c.refreshed.clear()
            await command(c, "wsb.session/appendMessages", {"id": sid, "messages": [{"role": "user", "content": "Cheaper?"}]})
            await until(lambda: {f"wsb:/session/{sid}", f"wsb:/export/{sid}"} <= set(c.refreshed), "both session documents refreshed")
            assert "Cheaper?" in await content(c, f"wsb:/session/{sid}")
            assert data_code(await content_error(c, "wsb:/session/sess_0000000000000000")) == "NotFound"
    asyncio.run(main())


def test_a_changed_file_is_refreshed_and_only_for_a_client_that_declared_it(binary, tmp_path):
    async def main():
        async with editor(binary, tmp_path) as c:
            (c.root / "a.md").write_text("a\n")
            (c.root / "b.md").write_text("b\n")
            assert await content(c, "wsb:/file/a.md") == "a\n"
            assert await content(c, "wsb:/file/b.md") == "b\n"
            await asyncio.sleep(0.2)
            c.refreshed.clear()
            (c.root / "a.md").write_text("a2\n")                      # another process writes it
            await until(lambda: "wsb:/file/a.md" in c.refreshed, "a.md refreshed")
            await command(c, "wsb.saveFile", {"path": "b.md", "data": "b2\n"})   # this server writes it
            await until(lambda: "wsb:/file/b.md" in c.refreshed, "b.md refreshed")
            assert await content(c, "wsb:/file/a.md") == "a2\n"
        async with editor(binary, tmp_path / "plain", refresh=False) as c:
            (c.root / "a.md").write_text("a\n")
            assert await content(c, "wsb:/file/a.md") == "a\n"
            (c.root / "a.md").write_text("a2\n")
            await asyncio.sleep(0.5)
            assert c.refreshed == [], "a client without the capability is never asked to refresh"
    (tmp_path / "plain").mkdir()
    asyncio.run(main())


def test_commands_run_the_methods_with_their_own_params_and_errors(binary, tmp_path):
    async def main():
        async with editor(binary, tmp_path) as c:
            saved = await command(c, "wsb.saveFile", {"path": "x/a.txt", "data": "hello"})
            loaded = await command(c, "wsb.loadFile", {"path": "x/a.txt"})
            assert loaded["data"] == "hello" and loaded["etag"] == saved["etag"]
            listed = await command(c, "wsb.listFiles", {"path": "x"})
            assert [e["name"] for e in listed["entries"]] == ["a.txt"]
            assert await command(c, "wsb.session/list") is not None        # no arguments: no params
            with pytest.raises(JsonRpcException) as e:
                await command(c, "wsb.saveFile", {"path": "x/b.txt", "data": "n", "ifMatch": "0000000000000000"})
            assert data_code(e.value) == "PreconditionFailed"
            with pytest.raises(JsonRpcException) as e:
                await command(c, "wsb.loadFile", {"path": 7})
            assert e.value.code == -32602 and "arguments[0].path" in str(e.value.data)
            with pytest.raises(JsonRpcException) as e:
                await command(c, "wsb.initialize", {})
            assert e.value.code == -32602 and e.value.data["field"] == "command"
            with pytest.raises(JsonRpcException) as e:
                await asyncio.wait_for(c.workspace_execute_command_async(
                    t.ExecuteCommandParams(command="wsb.loadFile", arguments=[{"path": "x/a.txt"}, {}])), TIMEOUT)
            assert e.value.data["field"] == "arguments"
    asyncio.run(main())
