"""Helpers for the MCP face's tests (test_mcp*.py): the official `mcp` client over stdio, and a
raw newline-delimited JSON client for what the official one hides (exact versions, ids, what
arrives after a cancel).

Import this only after `pytest.importorskip("mcp")`.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client  # noqa: F401  (re-exported)

# The one tool table, in its stable order (docs/protocol.md, "Agent sessions" / "MCP face").
TOOL_NAMES = [
    "read_file", "read_multiple_files", "write_file", "append_file", "list_files", "delete_file", "move_file", "copy_file",
    "create_folder", "get_file_info", "search_files", "get_storage_info", "read_context", "update_context",
    "append_journal",
]
READ_ONLY_TOOLS = {"read_file", "read_multiple_files", "list_files", "get_file_info", "search_files", "get_storage_info", "read_context"}
SUPPORTED_VERSIONS = ["2025-06-18", "2025-11-25"]
LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
SESSION_ID = re.compile(r"\bsess_[0-9a-f]{16}\b")
TEST_TIMEOUT = 45.0


def aio(fn: Callable) -> Callable:
    """Runs an async test function under anyio (asyncio), with an overall deadline."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        async def main():
            with anyio.fail_after(TEST_TIMEOUT):
                return await fn(*args, **kwargs)
        return anyio.run(main)
    return wrapper


def server_args(root: Path, cfg: Path, *, subcommand: bool = True, extra: tuple[str, ...] = ()) -> list[str]:
    """`mcp --local-root ROOT --config-dir CFG` (or without `mcp`: the plain server, switched by initialize)."""
    return (["mcp"] if subcommand else []) + ["--local-root", str(root), "--config-dir", str(cfg), *extra]


def server_env(tmp: Path) -> dict[str, str]:
    """Keeps the server's default data and config folders inside the test's tmp folder."""
    return {"XDG_DATA_HOME": str(tmp / "xdg-data"), "XDG_CONFIG_HOME": str(tmp / "xdg-config")}


def session_id_of(init) -> str:
    """The session named in the instructions of an initialize result (typed or raw dict)."""
    text = init.get("instructions") if isinstance(init, dict) else init.instructions
    m = SESSION_ID.search(text or "")
    assert m, f"no session id in the instructions: {text!r}"
    return m.group(0)


def file_uri(root: Path, rel: str = "") -> str:
    """The server's file:// URI of a workspace path (percent-encoded like RFC 3986 paths)."""
    from urllib.parse import quote
    path = str(root) + ("/" + rel if rel else "")
    return "file://" + quote(path, safe="/-._~!$&'()*+,;=:@")


# -- the official client ------------------------------------------------------------------------

@dataclass
class Events:
    """Every notification the official client delivered, with its arrival time."""
    items: list[tuple[float, Any]] = field(default_factory=list)
    logs: list[tuple[float, Any]] = field(default_factory=list)

    async def on_message(self, message: Any) -> None:
        self.items.append((time.monotonic(), message))

    async def on_log(self, params: Any) -> None:
        self.logs.append((time.monotonic(), params))

    def of_type(self, name: str, since: float = 0.0) -> list[tuple[float, Any]]:
        return [(t, m) for t, m in self.items if type(m).__name__ == name and t >= since]

    async def wait_for(self, pred: Callable[[float, Any], bool], timeout: float) -> tuple[float, Any] | None:
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for t, m in self.items[seen:]:
                if pred(t, m):
                    return t, m
            seen = len(self.items)
            if time.monotonic() >= deadline:
                return None
            await anyio.sleep(0.005)


@dataclass
class Conn:
    session: ClientSession
    init: Any
    events: Events
    root: Path
    stderr_path: Path

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""


def roots_answer(uris: list[str]):
    """A client's `list_roots` callback answering these root URIs."""
    import mcp.types as types

    async def list_roots(_context):
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in uris])
    return list_roots


@contextlib.asynccontextmanager
async def connect(binary: Path, root: Path, cfg: Path, tmp: Path, *, subcommand: bool = True,
                  extra: tuple[str, ...] = (), stderr_name: str = "mcp-stderr.log",
                  read_timeout: float = 30.0, list_roots: Callable | None = None) -> AsyncIterator[Conn]:
    """Starts the server with the official stdio_client and initializes a ClientSession
    (declaring the roots capability when `list_roots` answers `roots/list`)."""
    params = StdioServerParameters(command=str(binary), args=server_args(root, cfg, subcommand=subcommand, extra=extra),
                                   env=server_env(tmp))
    events = Events()
    stderr_path = tmp / stderr_name
    with open(stderr_path, "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=read_timeout, message_handler=events.on_message,
                                     logging_callback=events.on_log, list_roots_callback=list_roots) as session:
                init = await session.initialize()
                yield Conn(session, init, events, root, stderr_path)


def tool_ok(result, name: str = "") -> dict:
    """The structured content of a successful tools/call result."""
    assert not result.is_error, f"{name} failed: {result.content} {result.structured_content}"
    assert result.structured_content is not None, f"{name}: no structuredContent"
    assert result.content and result.content[0].type == "text", f"{name}: no text content: {result.content}"
    return result.structured_content


def tool_error(result, code: str | None = None, name: str = "") -> dict:
    """The structured content of an isError result, checking its code when given."""
    assert result.is_error is True, f"{name} did not fail: {result.structured_content}"
    assert result.content and result.content[0].type == "text" and result.content[0].text, result.content
    sc = result.structured_content or {}
    if code is not None:
        assert sc.get("code") == code, f"{name}: expected {code}, got {sc} / {result.content[0].text!r}"
    return sc


def result_text(result) -> str:
    parts = [getattr(c, "text", "") or "" for c in result.content or []]
    return "\n".join(parts) + json.dumps(result.structured_content or {})


# -- a raw client over pipes ---------------------------------------------------------------------

class RawMCP:
    """The server over plain pipes, newline-delimited JSON; every read has a deadline."""

    def __init__(self, binary: Path, args: list[str], env: dict[str, str] | None, stderr_path: Path):
        self._err = open(stderr_path, "ab")
        self.proc = subprocess.Popen([str(binary), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._err, bufsize=0, env={**os.environ, **(env or {})})
        self.stderr_path = stderr_path
        self.buf = b""
        self.log: list[tuple[float, dict]] = []      # every message received, in order
        self.pending: list[tuple[float, dict]] = []  # not yet consumed by wait_for
        self.lines: list[bytes] = []                 # every line received, as the server wrote it
        self.next_id = 1

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def request(self, method: str, params: dict | None = None, id: Any = None) -> Any:
        if id is None:
            id, self.next_id = self.next_id, self.next_id + 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def notify(self, method: str, params: dict | None = None) -> None:
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def _read(self, timeout: float) -> bool:
        """Reads what is available within timeout; False at end of output."""
        r, _, _ = select.select([self.proc.stdout], [], [], max(0.0, timeout))
        if not r:
            return True
        chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
        if not chunk:
            return False
        self.buf += chunk
        now = time.monotonic()
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            if line.strip():
                self.lines.append(line)
                msg = json.loads(line)
                self.log.append((now, msg))
                self.pending.append((now, msg))
        return True

    def wait_for(self, pred: Callable[[dict], bool], timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, (_, m) in enumerate(self.pending):
                if pred(m):
                    del self.pending[i]
                    return m
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.05)) and not self.pending:
                raise AssertionError(f"timed out after {timeout}s; received:\n" + self.describe())

    def response(self, id: Any, timeout: float = 10.0) -> dict:
        return self.wait_for(lambda m: m.get("id") == id and ("result" in m or "error" in m), timeout)

    def call(self, method: str, params: dict | None = None, timeout: float = 10.0) -> dict:
        return self.response(self.request(method, params), timeout)

    def result(self, method: str, params: dict | None = None, timeout: float = 10.0) -> Any:
        r = self.call(method, params, timeout)
        assert "result" in r, f"{method} failed: {r}"
        return r["result"]

    def drain(self, seconds: float) -> None:
        """Reads everything that arrives within the next `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self._read(deadline - time.monotonic()):
                break

    def initialize(self, version: str = "2025-11-25", initialized: bool = True) -> dict:
        res = self.result("initialize", {"protocolVersion": version, "capabilities": {},
                                         "clientInfo": {"name": "raw-test", "version": "1"}})
        if initialized:
            self.notify("notifications/initialized")
        return res

    def describe(self) -> str:
        lines = [json.dumps(m)[:300] for _, m in self.log[-20:]]
        try:
            err = self.stderr_path.read_text(errors="replace")[-1500:]
        except OSError:
            err = ""
        return "\n".join(lines) + (f"\nstderr:\n{err}" if err else "")

    def close(self, timeout: float = 5.0) -> int | None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            self._err.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._err.close()


# -- fixtures (imported by the test modules) ------------------------------------------------------

import pytest  # noqa: E402


@dataclass
class Place:
    tmp: Path
    root: Path      # the workspace (--local-root)
    cfg: Path       # --config-dir


@pytest.fixture
def place(tmp_path) -> Place:
    return Place(tmp_path, tmp_path / "ws", tmp_path / "cfg")


@pytest.fixture
def raw(binary, place):
    """raw(subcommand=True, extra=(), root=None) -> RawMCP; every process is killed at teardown."""
    procs: list[RawMCP] = []

    def _raw(subcommand: bool = True, extra: tuple[str, ...] = (), root: Path | None = None, args: list[str] | None = None) -> RawMCP:
        argv = args if args is not None else server_args(root or place.root, place.cfg, subcommand=subcommand, extra=extra)
        r = RawMCP(binary, argv, server_env(place.tmp), place.tmp / f"raw-stderr-{len(procs)}.log")
        procs.append(r)
        return r

    yield _raw
    for r in procs:
        r.kill()
