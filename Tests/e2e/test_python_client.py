"""Realistic flows through the Python client package (clients/python), under the schema contract.

Every message the client sends is checked against the params schema of its method, and every
message the server sends (responses, errors, notifications, progress) against schema/openrpc.json
by contract.Contract, through the client's on_send/on_message hooks. A violation raised inside the
client's reader fails the connection, so it surfaces as the exception of the awaited call.
"""
from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

from contract import Contract, ContractViolation

CLIENT_PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT_PACKAGE) not in sys.path:  # the checkout's client, whether or not it is pip-installed
    sys.path.insert(0, str(CLIENT_PACKAGE))

from workspace_bridge import BridgeError, Client, spawn  # noqa: E402


class Checked:
    """on_send/on_message hooks that hold the client's traffic to the contract and count it."""

    def __init__(self, contract: Contract):
        self.contract = contract
        self.methods_by_id: dict[str, list[str]] = {}
        self.sent: list[dict] = []
        self.received: list[Any] = []

    def on_send(self, msg: dict) -> None:
        method = msg.get("method")
        if method is not None:
            if method not in self.contract.methods:
                raise ContractViolation(f"the client sent {method}, which the schema does not have")
            problems = self.contract.validate_params(method, msg.get("params", {}))
            if problems:
                raise ContractViolation(f"the client sent params of {method} the schema refuses: {problems}")
            if "id" in msg:
                self.methods_by_id.setdefault(json.dumps(msg["id"]), []).append(method)
        self.sent.append(msg)

    def on_message(self, msg: Any) -> None:
        self.contract.check_server_message(msg, lambda i: self.methods_by_id.get(json.dumps(i), []))
        self.received.append(msg)

    def notifications(self, method: str) -> list[dict]:
        return [m for m in self.received if isinstance(m, dict) and m.get("method") == method]


@pytest.fixture
def checked(contract) -> Checked:
    return Checked(contract)


@pytest.fixture
def open_client(binary, tmp_path, checked):
    """open_client(**spawn options) -> a coroutine giving an initialized, contract-checked Client."""
    logs: list[IO[bytes]] = []

    def _open(**options: Any):
        options.setdefault("local_root", tmp_path / "ws")
        options.setdefault("config_dir", tmp_path / "config")
        logs.append(open(tmp_path / "stderr.log", "ab"))
        return spawn(binary=binary, on_send=checked.on_send, on_message=checked.on_message,
                     stderr=logs[-1], **options)
    yield _open
    for log in logs:
        log.close()


@pytest.mark.parametrize("framing", ["lsp", "ndjson"])
def test_a_file_workflow_through_the_client_keeps_to_the_contract(open_client, checked, framing, tmp_path):
    async def scenario():
        async with open_client(framing=framing) as c:
            await c.create_folder(path="Research")
            saved = await c.save_file(path="Research/plan.md", data="# Plan\n- read\n")
            await c.append_file(path="Research/plan.md", data="- write\n")
            with pytest.raises(BridgeError) as stale:
                await c.save_file(path="Research/plan.md", data="x", if_match=saved["etag"])
            copied = await c.copy_file(from_="Research/plan.md", to="Research/copy.md")
            moved = await c.move_file(from_="Research/copy.md", to="Archive/plan.md")
            listing = await c.list_files(recursive=True, glob="*.md", limit=2)
            rest = await c.list_files(recursive=True, glob="*.md", limit=2, cursor=listing["nextCursor"])
            info = await c.get_file_info(path="Research/plan.md", hash="sha256")
            found = await c.search_files(query="write")
            loaded = await c.load_file(path="Research/plan.md", encoding="base64", offset=2, length=4)
            with pytest.raises(BridgeError) as outside:
                await c.load_file(path="../etc/passwd")
            await c.delete_file(path="Archive", recursive=True)
            return stale.value, copied, moved, info, found, loaded, outside.value, listing, rest

    stale, copied, moved, info, found, loaded, outside, listing, rest = asyncio.run(scenario())

    assert stale.data_code == "PreconditionFailed"
    assert copied["size"] == moved["size"] == info["size"] == 22
    assert {m["path"] for m in found["matches"]} >= {"Research/plan.md"}
    assert loaded["data"] == "UGxhbg==" and loaded["length"] == 4
    assert outside.data_code == "OutsideWorkspace"
    assert len(listing["entries"]) == 2 and rest["entries"]
    assert not (tmp_path / "ws" / "Archive").exists()
    responses = [m for m in checked.received if isinstance(m, dict) and "id" in m]
    assert len(responses) >= 15, "every response went through the contract check"


def test_storage_info_and_the_first_run_choice_through_the_client(open_client, checked, tmp_path):
    async def scenario():
        async with open_client() as c:
            before = await c.get_storage_info()
            after = await c.choose_storage(location="local")
            conflicts = await c.list_conflicts()
            return before, after, conflicts

    before, after, conflicts = asyncio.run(scenario())

    assert before["needsChoice"] is True and before["storageType"] == "local"
    assert before["roots"]["local"] == str(tmp_path / "ws") and before["cloudProvider"] is None
    assert after["isInitialized"] is True and after["needsChoice"] is False
    assert conflicts == {"conflicts": []}


def test_search_over_sessions_pages_through_the_client_as_its_readme_shows(open_client, checked):
    async def scenario():
        async with open_client() as client:
            sid = (await client.session_create(title="Trip"))["id"]
            await client.session_append_messages(id=sid, messages=[
                {"id": f"m{i}", "role": "user" if i % 2 else "assistant", "content": f"to Lisbon, day {i}"} for i in range(25)])
            seen = []
            page = await client.session_search(query="lisbon", roles=["user", "assistant"], limit=20)
            seen += [hit["messageId"] for hit in page["hits"]]
            while "nextCursor" in page:
                page = await client.session_search(query="lisbon", roles=["user", "assistant"], cursor=page["nextCursor"])
                seen += [hit["messageId"] for hit in page["hits"]]
            hit = page["hits"][0]
            return seen, page["totalHits"], hit

    seen, total, hit = asyncio.run(scenario())
    assert total == 25 and sorted(seen) == sorted(f"m{i}" for i in range(25))
    m = hit["matches"][0]
    assert m == {"start": 3, "length": 6}  # UTF-16 code units into "to Lisbon, day N"


def test_an_agent_session_through_the_client_with_state_notifications(open_client, checked):
    async def scenario():
        async with open_client() as c:
            states = c.notifications("session/didChangeState")
            tools = await c.agent_list_tools()
            session = await c.session_create(title="Research", agent_type="researcher",
                                             config={"modelTier": "fast", "maxTurns": 10})
            sid = session["id"]
            await c.session_transition(id=sid, to="running")
            appended = await c.session_append_messages(id=sid, messages=[
                {"id": "m1", "role": "user", "content": "Summarise context.md"},
                {"id": "m1", "role": "user", "content": "Summarise context.md"}])
            tool = await c.session_call_tool(id=sid, tool_call_id="t1", name="read_context", arguments={})
            usage = await c.session_record_usage(id=sid, input_tokens=1000, output_tokens=200)
            checkpoint = await c.session_checkpoint(id=sid, partial_results={"draft": "..."})
            backgrounded = await c.host_did_enter_background()
            resumed = await c.session_resume(id=sid)
            listed = await c.session_list(state="running")
            moves = [await states.next(3) for _ in range(3)]
            return tools, appended, tool, usage, checkpoint, backgrounded, resumed, listed, moves, sid

    tools, appended, tool, usage, checkpoint, backgrounded, resumed, listed, moves, sid = asyncio.run(scenario())

    assert "read_file" in [t["name"] for t in tools]
    assert appended == {"count": 1}
    assert tool["isError"] is False
    assert usage["usage"]["turns"] == 1 and usage["exceeded"] == []
    assert checkpoint["checkpointId"]
    assert [s["id"] for s in backgrounded["sessions"]] == [sid]
    assert resumed["session"]["state"] == "running" and resumed["partialResults"] == {"draft": "..."}
    assert [s["id"] for s in listed["sessions"]] == [sid]
    assert [(m["from"], m["to"]) for m in moves] == \
        [("idle", "running"), ("running", "backgrounded"), ("backgrounded", "running")]


def test_watch_notifications_through_the_client(open_client, checked, tmp_path):
    async def scenario():
        async with open_client() as c:
            changes = c.notifications("workspace/didChangeFiles")
            await c.watch_files()
            await c.save_file(path="w/a.txt", data="a")
            (tmp_path / "ws" / "w" / "b.txt").write_text("b")
            seen: set[tuple[str, str]] = set()
            deadline = time.monotonic() + 3
            while not {"w/a.txt", "w/b.txt"} <= {p for p, _ in seen}:
                params = await changes.next(max(0.01, deadline - time.monotonic()))
                seen |= {(ch["path"], ch["type"]) for ch in params["changes"]}
            stopped = await c.unwatch_files()
            return seen, stopped

    seen, stopped = asyncio.run(scenario())

    assert ("w/a.txt", "created") in seen or ("w/a.txt", "changed") in seen
    assert stopped == {"watching": False}
    assert checked.notifications("workspace/didChangeFiles"), "the notifications were contract-checked"


def test_progress_and_cancellation_through_the_client(open_client, checked, tmp_path):
    async def scenario():
        async with open_client(debug_methods=True) as c:
            for i in range(30):
                await c.save_file(path=f"corpus/{i:02}.txt", data=f"line {i}\nneedle {i}\n")
            search = c.search_files(query="needle", path="corpus", progress=True)
            values = [v async for v in search.progress()]
            result = await search
            slow = c.debug_sleep(ms=10_000, label="to cancel", progress=True)
            begin = await slow.progress().next(3)
            task = asyncio.ensure_future(slow)
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            rest = [v async for v in slow.progress()]
            await c.ping()
            return values, result, begin, rest, slow.id

    values, result, begin, rest, slow_id = asyncio.run(scenario())

    assert values[0]["kind"] == "begin" and values[-1]["kind"] == "end"
    assert len(result["matches"]) == 30 and result["filesSearched"] == 30
    assert begin["kind"] == "begin" and begin["cancellable"] is True
    assert rest and rest[-1]["kind"] == "end"
    cancelled = [m for m in checked.received if isinstance(m, dict) and m.get("id") == slow_id]
    assert cancelled and cancelled[0]["error"]["data"]["code"] == "RequestCancelled"
    assert {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": slow_id}} in checked.sent


def test_a_contract_violation_fails_the_awaited_call(binary, tmp_path):
    class Strict(Checked):
        def on_message(self, msg):
            if isinstance(msg, dict) and msg.get("result") == {}:
                raise ContractViolation("pretend {} broke the contract")
            super().on_message(msg)

    hooks = Strict(Contract())

    async def scenario():
        client: Client = await spawn(binary=binary, local_root=tmp_path / "ws", config_dir=tmp_path / "config",
                                     on_send=hooks.on_send, on_message=hooks.on_message)
        try:
            with pytest.raises(ContractViolation, match="pretend"):
                await client.ping()
            return client.failure
        finally:
            await client.close()

    assert isinstance(asyncio.run(scenario()), ContractViolation)


def test_wsb_documents_and_commands_through_the_client(open_client, checked):
    """The README's snippet (issue 27): a file at its etag, a transcript, a command, contract-checked."""
    async def scenario():
        async with open_client() as c:
            saved = await c.save_file(path="notes/plan.md", data="# Plan\n")
            doc = await c.workspace_text_document_content(uri=f"wsb:/file/notes/plan.md?etag={saved['etag']}")
            session = await c.session_create(title="Plan")
            await c.session_append_messages(id=session["id"], messages=[{"role": "user", "content": "Go."}])
            transcript = await c.workspace_text_document_content(uri=f"wsb:/session/{session['id']}")
            loaded = await c.workspace_execute_command(command="wsb.loadFile", arguments=[{"path": "notes/plan.md"}])
            with pytest.raises(BridgeError) as unknown:
                await c.workspace_execute_command(command="wsb.nothing")
            return doc, transcript, loaded, unknown.value

    doc, transcript, loaded, unknown = asyncio.run(scenario())

    assert doc["text"] == "# Plan\n"
    assert transcript["text"].startswith("# Plan\n") and "Go." in transcript["text"]
    assert loaded["data"] == "# Plan\n" and loaded["path"] == "notes/plan.md"
    assert unknown.code == -32602 and unknown.data["field"] == "command"
