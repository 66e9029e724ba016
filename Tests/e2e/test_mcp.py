"""The MCP face (docs/protocol.md, "MCP face"), driven by the official `mcp` Python client over
stdio: the handshake and version negotiation, the tool table, the file tools, errors, ping,
logging, and the session that journals an MCP agent's tool calls.

The server is started as `workspace-bridge mcp --local-root … --config-dir …`, and as the plain
server whose MCP `initialize` switches the connection.
"""
from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.filterwarnings("ignore:.*as of 2026-07-28")  # logging, subscribe: 2025 features

from bridge import jansson_compact  # noqa: E402
from mcp_helpers import (  # noqa: E402
    LOG_LEVELS, READ_ONLY_TOOLS, SUPPORTED_VERSIONS, TOOL_NAMES, MCPError, aio, connect, place, raw,  # noqa: F401 (fixtures)
    session_id_of, tool_error, tool_ok,
)


# -- handshake ------------------------------------------------------------------------------------

@pytest.mark.parametrize("subcommand", [True, False], ids=["mcp-subcommand", "switched-by-initialize"])
@aio
async def test_official_client_initializes(binary, place, subcommand):
    async with connect(binary, place.root, place.cfg, place.tmp, subcommand=subcommand) as c:
        init = c.init
        assert init.protocol_version == "2025-11-25"          # the official client's own latest
        assert c.session.protocol_version == init.protocol_version
        assert init.server_info.name == "workspace-bridge" and init.server_info.version
        caps = init.capabilities
        assert caps.tools is not None
        assert caps.resources is not None and caps.resources.subscribe is True
        assert caps.logging is not None
        session_id_of(init)
        assert str(place.root) in init.instructions
        # the switched connection really speaks MCP: tools and ping work
        assert [t.name for t in (await c.session.list_tools()).tools] == TOOL_NAMES
        await c.session.send_ping()
    assert (place.root / "context.md").is_file(), "the workspace template was not laid out"


@pytest.mark.parametrize("subcommand", [True, False], ids=["mcp-subcommand", "switched-by-initialize"])
@pytest.mark.parametrize("asked, expected", [
    ("2025-06-18", "2025-06-18"),
    ("2025-11-25", "2025-11-25"),
    ("2024-11-05", "2025-11-25"),      # not supported: the latest supported
    ("2099-01-01", "2025-11-25"),
])
def test_protocol_version_is_negotiated(raw, subcommand, asked, expected):
    r = raw(subcommand=subcommand)
    res = r.initialize(asked)
    assert res["protocolVersion"] == expected and expected in SUPPORTED_VERSIONS
    assert res["serverInfo"]["name"] == "workspace-bridge"
    assert {"tools", "resources", "logging"} <= set(res["capabilities"])
    assert r.result("ping") == {}
    assert [t["name"] for t in r.result("tools/list")["tools"]] == TOOL_NAMES


def test_only_mcp_messages_on_an_mcp_connection(raw):
    """Everything the server writes is an answer to the client or an MCP notification; the
    initialize answer is the first thing it says."""
    r = raw()
    r.initialize("2025-06-18")
    r.result("tools/list")
    r.result("tools/call", {"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}})
    r.result("ping")
    r.drain(0.3)
    first = r.log[0][1]
    assert first.get("id") == 1 and "result" in first, f"the first message is not the initialize answer: {first}"
    foreign = [m for _, m in r.log if "id" not in m and not str(m.get("method", "")).startswith("notifications/")]
    assert not foreign, f"non-MCP messages on an MCP connection: {foreign}"


# -- tools/list -----------------------------------------------------------------------------------

@aio
async def test_tools_list_is_the_one_tool_table(binary, place):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        first = await c.session.list_tools()
        second = await c.session.list_tools()
    assert first.next_cursor is None
    dump = lambda r: [t.model_dump(by_alias=True, exclude_none=True) for t in r.tools]  # noqa: E731
    assert dump(first) == dump(second), "tools/list is not stable"
    assert [t.name for t in first.tools] == TOOL_NAMES
    for t in first.tools:
        assert t.description and t.title, t.name
        assert t.input_schema["type"] == "object" and isinstance(t.input_schema.get("properties", {}), dict), t.name
        assert t.output_schema and t.output_schema["type"] == "object", t.name
        a = t.annotations
        assert a is not None, t.name
        for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
            assert isinstance(getattr(a, hint), bool), (t.name, hint)
        assert a.read_only_hint == (t.name in READ_ONLY_TOOLS), t.name
        if a.read_only_hint:
            assert a.destructive_hint is False, t.name
    tools = {t.name: t for t in first.tools}
    assert tools["delete_file"].annotations.destructive_hint is True
    assert tools["write_file"].input_schema["required"] == ["path", "content"]
    assert tools["read_file"].input_schema["required"] == ["path"]
    assert set(tools["move_file"].input_schema["required"]) == {"from", "to"}


def test_tools_list_equals_agent_list_tools(raw, place):
    """MCP's tools/list and the session API's agent/listTools are the same table."""
    m = raw()
    m.initialize()
    mcp_tools = m.result("tools/list")["tools"]
    m.close()
    plain = raw(args=["--local-root", str(place.root), "--config-dir", str(place.cfg)])
    plain.result("initialize", {})
    agent_tools = plain.result("agent/listTools", {})
    assert [t["name"] for t in agent_tools] == [t["name"] for t in mcp_tools]
    for a, t in zip(agent_tools, mcp_tools):
        for key in ("title", "description", "inputSchema", "outputSchema"):
            assert a[key] == t[key], (t["name"], key)
        for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
            assert a["annotations"][hint] == t["annotations"][hint], (t["name"], hint)


# -- the file tools -------------------------------------------------------------------------------

@aio
async def test_write_read_list_search_move_files(binary, place):
    root = place.root
    async with connect(binary, root, place.cfg, place.tmp) as c:
        s = c.session
        w = tool_ok(await s.call_tool("write_file", {"path": "notes/today.md", "content": "alpha\nbeta zeta\n"}), "write_file")
        assert w["path"] == "notes/today.md" and w["size"] == 16 and len(w["etag"]) == 16
        assert (root / "notes/today.md").read_text() == "alpha\nbeta zeta\n"

        r = tool_ok(await s.call_tool("read_file", {"path": "notes/today.md"}), "read_file")
        assert r["data"] == "alpha\nbeta zeta\n" and r["etag"] == w["etag"] and r["eof"] is True
        rr = await s.call_tool("read_file", {"path": "notes/today.md", "offset": 6, "length": 4})
        assert tool_ok(rr)["data"] == "beta"
        # a window that is not the end says where the next starts (issue 27)
        assert rr.content[0].text == "beta\n[notes/today.md goes on (16 bytes): read from offset 10 for more]"

        tool_ok(await s.call_tool("write_file", {"path": "notes/bin.dat", "content": "AAEC/w==", "encoding": "base64"}))
        assert (root / "notes/bin.dat").read_bytes() == b"\x00\x01\x02\xff"
        assert tool_ok(await s.call_tool("read_file", {"path": "notes/bin.dat", "encoding": "base64"}))["data"] == "AAEC/w=="

        a = tool_ok(await s.call_tool("append_file", {"path": "notes/today.md", "content": "gamma\n"}))
        assert a["size"] == 22

        entries = tool_ok(await s.call_tool("list_files", {"path": "notes"}))["entries"]
        assert [e["name"] for e in entries] == ["bin.dat", "today.md"]
        assert all(e["type"] == "file" for e in entries)
        rec = tool_ok(await s.call_tool("list_files", {"path": "", "recursive": True}))["entries"]
        assert "notes/today.md" in {e["path"] for e in rec}

        found = tool_ok(await s.call_tool("search_files", {"query": "ZETA", "path": "notes"}), "search_files")
        assert [(m["path"], m["line"], m["column"]) for m in found["matches"]] == [("notes/today.md", 2, 6)]
        assert found["truncated"] is False and found["filesSearched"] >= 1
        none = tool_ok(await s.call_tool("search_files", {"query": "ZETA", "path": "notes", "caseSensitive": True}))
        assert none["matches"] == []

        mv = tool_ok(await s.call_tool("move_file", {"from": "notes/today.md", "to": "archive/2025/today.md"}), "move_file")
        assert mv["to"] == "archive/2025/today.md" and mv["type"] == "file"
        assert not (root / "notes/today.md").exists()
        assert (root / "archive/2025/today.md").read_text() == "alpha\nbeta zeta\ngamma\n"
        tool_error(await s.call_tool("move_file", {"from": "notes/bin.dat", "to": "archive/2025/today.md"}), "AlreadyExists")

        cp = tool_ok(await s.call_tool("copy_file", {"from": "archive/2025/today.md", "to": "copy.md"}))
        assert cp["size"] == 22 and (root / "copy.md").read_text() == "alpha\nbeta zeta\ngamma\n"
        info = tool_ok(await s.call_tool("get_file_info", {"path": "copy.md", "hash": "sha256"}))
        assert info["type"] == "file" and info["size"] == 22 and len(info["sha256"]) == 64
        tool_ok(await s.call_tool("create_folder", {"path": "empty/inner"}))
        assert (root / "empty/inner").is_dir()
        tool_ok(await s.call_tool("delete_file", {"path": "copy.md"}))
        assert not (root / "copy.md").exists()
        tool_error(await s.call_tool("delete_file", {"path": "archive"}), "DirectoryNotEmpty")

        ctx = tool_ok(await s.call_tool("read_context", {}))
        assert ctx["content"] == (root / "context.md").read_text()
        tool_ok(await s.call_tool("update_context", {"content": "The user likes tea.\n"}))
        assert "The user likes tea." in (root / "context.md").read_text()
        j = tool_ok(await s.call_tool("append_journal", {"entry": "checked the notes", "date": "2025-11-22"}))
        assert j["path"] == "Journal/agent/2025-11-22.md"
        assert "checked the notes" in (root / "Journal/agent/2025-11-22.md").read_text()
        st = tool_ok(await s.call_tool("get_storage_info", {}))
        assert st["storageType"] == "local"


@aio
async def test_domain_failures_and_bad_arguments_are_tool_errors(binary, place):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        s = c.session
        tool_error(await s.call_tool("read_file", {"path": "missing.txt"}), "NotFound")
        tool_error(await s.call_tool("read_file", {"path": "../etc/passwd"}), "OutsideWorkspace")
        tool_error(await s.call_tool("read_file", {}))                               # path missing
        tool_error(await s.call_tool("read_file", {"path": 7}))                      # wrong type
        tool_error(await s.call_tool("read_file", {"path": "x", "bogus": True}))    # unknown argument
        tool_error(await s.call_tool("write_file", {"path": "x.txt", "content": "%%%", "encoding": "base64"}))
        tool_ok(await s.call_tool("write_file", {"path": "bin.dat", "content": "/w==", "encoding": "base64"}))
        tool_error(await s.call_tool("read_file", {"path": "bin.dat"}), "NotText")
        # the connection is unharmed
        await s.send_ping()
        assert not (place.root / "x.txt").exists()


@aio
async def test_unknown_tool_is_invalid_params(binary, place):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        with pytest.raises(MCPError) as e:
            await c.session.call_tool("no_such_tool", {})
        assert e.value.code == -32602
        await c.session.send_ping()


def test_read_file_answers_are_exactly_jansson_compact_json(raw, place):
    # The text is carried twice (content and structured content); long text is escaped by
    # jansson in parts on every core. The answer is one compact dump: the same bytes as before
    # the JSON output path became one (jansson writes every byte).
    place.root.mkdir(parents=True, exist_ok=True)
    small = "MCP \"quoted\" \\ tab\t ctl\x01\x1f caf\u00e9 \U0001F600\n" * 80
    big = "".join(f"line {i} \"q\" \\ \t \x01 \u00e9 \U0001F600\n" for i in range(9000))
    (place.root / "small.txt").write_text(small, encoding="utf-8")
    (place.root / "big.txt").write_text(big, encoding="utf-8")
    r = raw()
    r.initialize()
    for name, text in [("small.txt", small), ("big.txt", big)]:
        id = r.request("tools/call", {"name": "read_file", "arguments": {"path": name}})
        resp = r.response(id)
        assert resp["result"]["content"][0]["text"] == text
        assert resp["result"]["structuredContent"]["data"] == text
        line = next(l for l in r.lines if l.startswith(b'{"jsonrpc":"2.0","id":%d,' % id))
        assert line == jansson_compact(resp)


def test_unknown_tool_raw_error_shape(raw):
    r = raw()
    r.initialize()
    resp = r.call("tools/call", {"name": "rm_rf", "arguments": {}})
    assert "result" not in resp and resp["error"]["code"] == -32602, resp


@aio
async def test_ping(binary, place):
    async with connect(binary, place.root, place.cfg, place.tmp) as c:
        for _ in range(3):
            res = await c.session.send_ping()
            assert res is not None


def test_requests_before_initialize_and_unknown_methods(raw):
    r = raw()
    early = r.call("tools/list")
    assert "error" in early, f"tools/list before initialize was served: {early}"
    r.initialize()
    assert r.call("no/such/method")["error"]["code"] == -32601


# -- logging --------------------------------------------------------------------------------------

@aio
async def test_logging_set_level_and_messages(binary, place):
    async with connect(binary, place.root, place.cfg, place.tmp, extra=("--log-level", "debug")) as c:
        s = c.session
        await s.set_logging_level("debug")
        t0 = time.monotonic()
        tool_error(await s.call_tool("read_file", {"path": "../outside.txt"}), "OutsideWorkspace")
        tool_error(await s.call_tool("read_file", {"path": "missing.txt"}), "NotFound")
        await s.send_ping()
        await anyio_sleep(0.3)
        for _, p in c.events.logs:
            assert p.level in LOG_LEVELS, p
            assert p.data is not None, p
        # a higher level filters: nothing below "error" after it is set
        await s.set_logging_level("error")
        t1 = time.monotonic()
        tool_error(await s.call_tool("read_file", {"path": "missing.txt"}), "NotFound")
        await anyio_sleep(0.3)
        late = [p for t, p in c.events.logs if t > t1]
        assert all(LOG_LEVELS.index(p.level) >= LOG_LEVELS.index("error") for p in late), late
        print(f"notifications/message received after setLevel debug: {len([1 for t, _ in c.events.logs if t >= t0])}")


def test_logging_set_level_refuses_an_unknown_level(raw):
    r = raw()
    r.initialize()
    assert r.result("logging/setLevel", {"level": "warning"}) == {}
    assert r.call("logging/setLevel", {"level": "loud"})["error"]["code"] == -32602


async def anyio_sleep(seconds: float) -> None:
    import anyio
    await anyio.sleep(seconds)


# -- the session that journals the calls -------------------------------------------------------------

def _journal(root, session_id) -> list[dict]:
    path = root / ".workspace" / "sessions" / session_id / "journal.jsonl"
    records = []
    for line in path.read_text().splitlines():
        crc, _, body = line.partition(" ")
        records.append(json.loads(body))
    return records


@aio
async def test_tool_calls_are_journaled_in_a_session(binary, place, raw):
    root = place.root
    async with connect(binary, root, place.cfg, place.tmp) as c:
        sid = session_id_of(c.init)
        tool_ok(await c.session.call_tool("write_file", {"path": "j/a.txt", "content": "one"}))
        tool_ok(await c.session.call_tool("read_file", {"path": "j/a.txt"}))
        tool_error(await c.session.call_tool("read_file", {"path": "../x"}), "OutsideWorkspace")
    # the client disconnected; a normal server on the same root finds the session
    plain = raw(args=["--local-root", str(root), "--config-dir", str(place.cfg)])
    plain.result("initialize", {})
    sessions = plain.result("session/list", {})["sessions"]
    mine = [x for x in sessions if x["id"] == sid]
    assert mine, f"session {sid} not listed: {sessions}"
    assert mine[0]["agentType"] == "mcp"
    got = plain.result("session/get", {"id": sid})
    assert got["pendingToolCalls"] == [], got
    plain.close()

    # A change is journaled as intent then result; a read as one record with both.
    journal = _journal(root, sid)
    calls = [(r["t"], r.get("name"), r.get("isError")) for r in journal if r["t"] in ("begin", "end", "read")]
    assert calls == [("begin", "write_file", None), ("end", "write_file", False),
                     ("read", "read_file", False), ("read", "read_file", True)], calls
    begins = [r for r in journal if r["t"] == "begin"]
    assert begins[0]["args"] == {"path": "j/a.txt", "content": "one"}
    reads = [r for r in journal if r["t"] == "read"]
    assert reads[0]["args"] == {"path": "j/a.txt"}
    assert reads[0]["result"]["structuredContent"]["size"] == 3
    assert reads[1]["result"]["structuredContent"]["code"] == "OutsideWorkspace"


@aio
async def test_session_option_journals_into_an_existing_session(binary, place, raw):
    root = place.root
    plain = raw(args=["--local-root", str(root), "--config-dir", str(place.cfg)])
    plain.result("initialize", {})
    sid = plain.result("session/create", {"title": "shared", "agentType": "mcp"})["id"]
    plain.close()
    async with connect(binary, root, place.cfg, place.tmp, extra=("--session", sid)) as c:
        assert session_id_of(c.init) == sid
        tool_ok(await c.session.call_tool("write_file", {"path": "s.txt", "content": "x"}))
    names = [r.get("name") for r in _journal(root, sid) if r["t"] == "end"]
    assert names == ["write_file"]
    plain = raw(args=["--local-root", str(root), "--config-dir", str(place.cfg)])
    plain.result("initialize", {})
    ids = [x["id"] for x in plain.result("session/list", {})["sessions"]]
    assert ids == [sid], f"an extra session was created: {ids}"
