"""Helpers for the MCP 2026-07-28 (modern, per-request `_meta`) tests: the `_meta` envelope, a raw
NDJSON client that stamps it, the official `mcp.Client` in each of its three modes, and a client
side of the tasks extension (the SDK ships none). See docs/mcp-2026.md for what is asserted.

Import this only after `pytest.importorskip("mcp")`.
"""
from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, AsyncIterator, Literal

import anyio
import mcp_types
import pytest
from mcp import Client, MCPError, StdioServerParameters, stdio_client  # noqa: F401  (re-exported)
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Implementation
from mcp_types.methods import validate_server_result
from pydantic import ConfigDict, Field

from mcp_helpers import RawMCP, server_args, server_env

MODERN = "2026-07-28"
LEGACY = ["2025-06-18", "2025-11-25"]
ALL_VERSIONS = {MODERN, *LEGACY}           # what the binary names in discover and in -32022
MODES = ["2026-07-28", "auto", "legacy"]   # mcp.Client(mode=...)

PV = "io.modelcontextprotocol/protocolVersion"
CI = "io.modelcontextprotocol/clientInfo"
CC = "io.modelcontextprotocol/clientCapabilities"
LL = "io.modelcontextprotocol/logLevel"
SI = "io.modelcontextprotocol/serverInfo"
SUB = "io.modelcontextprotocol/subscriptionId"
TASKS = "io.modelcontextprotocol/tasks"

UNSUPPORTED_PROTOCOL_VERSION = -32022
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601

# The tests of features the server does not have yet; the implementer removes the marks.
NOT_YET = pytest.mark.xfail(strict=True, reason="issue 16: not implemented yet")

# Cacheable results (caching.mdx) and what this server may truthfully say (docs/mcp-2026.md §6).
CACHEABLE = {"server/discover", "tools/list", "resources/list", "resources/templates/list", "resources/read"}
MAX_WORKSPACE_TTL_MS = 1000     # lists and reads of the workspace: changes can arrive at any moment


def meta(version: str = MODERN, caps: dict | None = None, *, client: str = "raw-modern",
         log_level: str | None = None, **extra: Any) -> dict:
    """A request's `_meta`: protocol version, client info and capabilities (+ logLevel, traceparent…)."""
    m = {PV: version, CI: {"name": client, "version": "1.0"}, CC: caps if caps is not None else {}}
    if log_level is not None:
        m[LL] = log_level
    m.update(extra)
    return m


def tasks_caps() -> dict:
    return {"extensions": {TASKS: {}}}


def validate(method: str, result: dict) -> None:
    """The result against the revision's own typed surface (mcp_types, the SDK's validator)."""
    try:
        validate_server_result(method, MODERN, result)
    except KeyError:        # not a core method (tasks/*): asserted field by field by the caller
        pass


def assert_cache_hints(method: str, result: dict) -> None:
    assert isinstance(result.get("ttlMs"), int) and not isinstance(result["ttlMs"], bool) and result["ttlMs"] >= 0, \
        f"{method}: ttlMs {result.get('ttlMs')!r}"
    assert result.get("cacheScope") in ("public", "private"), f"{method}: cacheScope {result.get('cacheScope')!r}"


class RawModern(RawMCP):
    """RawMCP plus the modern envelope: `m*` methods put `_meta` into every request's params."""

    def mreq(self, method: str, params: dict | None = None, *, version: str = MODERN, caps: dict | None = None,
             log_level: str | None = None, id: Any = None, **meta_extra: Any) -> Any:
        p = dict(params or {})
        p["_meta"] = {**meta(version, caps, log_level=log_level, **meta_extra), **(p.get("_meta") or {})}
        return self.request(method, p, id=id)

    def mcall(self, method: str, params: dict | None = None, *, timeout: float = 10.0, **kw: Any) -> dict:
        return self.response(self.mreq(method, params, **kw), timeout)

    def mresult(self, method: str, params: dict | None = None, *, timeout: float = 10.0, **kw: Any) -> dict:
        """A modern request's result, checked: `resultType`, the revision's surface, cache hints
        where the revision requires them, and the server's identity stamp."""
        r = self.mcall(method, params, timeout=timeout, **kw)
        assert "result" in r, f"{method} failed: {r}"
        res = r["result"]
        assert isinstance(res.get("resultType"), str), f"{method}: no resultType in {res}"
        validate(method, res)
        if method in CACHEABLE and res["resultType"] == "complete":
            assert_cache_hints(method, res)
        info = (res.get("_meta") or {}).get(SI)
        assert info and info.get("name") == "workspace-bridge" and info.get("version"), f"{method}: serverInfo {res.get('_meta')}"
        return res

    def merror(self, method: str, params: dict | None = None, *, timeout: float = 10.0, **kw: Any) -> dict:
        r = self.mcall(method, params, timeout=timeout, **kw)
        assert "error" in r, f"{method} did not fail: {r}"
        return r["error"]

    def tool(self, name: str, arguments: dict, **kw: Any) -> dict:
        return self.mresult("tools/call", {"name": name, "arguments": arguments}, **kw)


@pytest.fixture
def rawm(binary, place):
    """rawm(subcommand=True, extra=()) -> RawModern; every process is killed at teardown."""
    procs: list[RawModern] = []

    def _rawm(subcommand: bool = True, extra: tuple[str, ...] = (), root: Path | None = None) -> RawModern:
        argv = server_args(root or place.root, place.cfg, subcommand=subcommand, extra=extra)
        r = RawModern(binary, argv, server_env(place.tmp), place.tmp / f"rawm-stderr-{len(procs)}.log")
        procs.append(r)
        return r

    yield _rawm
    for r in procs:
        r.kill()


# -- the official client, in each mode --------------------------------------------------------------

@contextlib.asynccontextmanager
async def open_client(binary: Path, root: Path, cfg: Path, tmp: Path, mode: str, *, extensions=None,
                      log_level=None, message_handler=None, read_timeout: float = 30.0,
                      stderr_name: str = "mcp-stderr.log", subcommand: bool = True, extra: tuple[str, ...] = (),
                      list_roots=None) -> AsyncIterator[Client]:
    """`mcp.Client` over stdio in `mode` ("2026-07-28", "auto" or "legacy"), spawned exactly as the
    SDK spawns a stdio server in every mode (stdio_client), stderr to a file. `extra`: more server
    arguments; `list_roots`: the client's roots callback (only the legacy era asks it)."""
    params = StdioServerParameters(command=str(binary), args=server_args(root, cfg, subcommand=subcommand, extra=extra),
                                   env=server_env(tmp))
    with open(tmp / stderr_name, "a") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=read_timeout,
                          client_info=Implementation(name="e2e-modern", version="1"), extensions=extensions,
                          log_level=log_level, message_handler=message_handler, list_roots_callback=list_roots) as c:
            yield c


# -- the tasks extension, client side ---------------------------------------------------------------

class CreateTaskResult(mcp_types.Result):
    """`resultType: "task"` (ext-tasks, CreateTaskResult = Result & Task)."""
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    created_at: str = Field(alias="createdAt")
    last_updated_at: str = Field(alias="lastUpdatedAt")
    ttl_ms: int | None = Field(alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class TaskIdParams(mcp_types.RequestParams):
    task_id: str = Field(alias="taskId")


class GetTask(mcp_types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(mcp_types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class AnyResult(mcp_types.Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


async def get_task(session, task_id: str) -> dict:
    r = await session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), AnyResult)
    return r.model_dump(by_alias=True, exclude_none=True)


async def cancel_task(session, task_id: str) -> dict:
    r = await session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), AnyResult)
    return r.model_dump(by_alias=True, exclude_none=True)


class TasksExtension(ClientExtension):
    """Declares `io.modelcontextprotocol/tasks` and finishes a `resultType: "task"` tools/call by
    polling `tasks/get` (each poll a new request) until the task is terminal. Records what it saw."""
    identifier = TASKS

    def __init__(self) -> None:
        self.created: list[CreateTaskResult] = []
        self.polls: list[dict] = []

    def claims(self):
        return (ResultClaim(result_type="task", model=CreateTaskResult, resolve=self._resolve),)

    async def _resolve(self, task: CreateTaskResult, ctx: ClaimContext) -> CallToolResult:
        self.created.append(task)
        interval = max(0.02, min(1.0, (task.poll_interval_ms or 100) / 1000))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = await get_task(ctx.session, task.task_id)
            self.polls.append(state)
            if state["status"] == "completed":
                return CallToolResult.model_validate(state["result"])
            if state["status"] in ("failed", "cancelled"):
                raise MCPError(-32603, f"task {task.task_id} ended {state['status']}: {state}")
            await anyio.sleep(interval)
        raise TimeoutError(f"task {task.task_id} still not terminal: {self.polls[-1:]}")


