"""The client: a connection with the typed methods, the LSP lifecycle, and a spawned server."""
from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import IO, Any, Generator, Mapping, Optional, Sequence, Union

from . import __version__
from .connection import ByteWriter, MessageHook, build_params
from .errors import BridgeError, ConnectionClosed
from .framing import Framing
from .methods import Methods
from .types import ClientCapabilities, ClientInfo, InitializeResult, ServerCapabilities, ServerInfo, TraceValue

StrPath = Union[str, "os.PathLike[str]"]
STDOUT_LIMIT = 1 << 24


def find_binary(binary: Optional[StrPath] = None) -> str:
    """The server executable: ``binary``, else ``$WB_BIN``, else ``workspace-bridge`` on PATH."""
    if binary is not None:
        return os.fspath(binary)
    env = os.environ.get("WB_BIN")
    if env:
        return env
    found = shutil.which("workspace-bridge")
    if found is None:
        raise FileNotFoundError("workspace-bridge not found: pass binary=, set WB_BIN, or put it on PATH")
    return found


class Client(Methods):
    """A WorkspaceBridge client over asyncio streams.

    Attach to streams you already have with ``Client(reader, writer)`` then ``await
    client.initialize()``, or let :func:`spawn` start the server and initialize it. Every method
    of the schema is a typed method returning a :class:`Call`; ``request``/``notify`` send any
    method by name. ``async with client`` closes it at the end (:meth:`close`).
    """

    def __init__(self, reader: asyncio.StreamReader, writer: ByteWriter, *, framing: Framing = "lsp",
                 on_message: Optional[MessageHook] = None, on_send: Optional[MessageHook] = None,
                 process: Optional[asyncio.subprocess.Process] = None):
        super().__init__(reader, writer, framing=framing, on_message=on_message, on_send=on_send)
        self.process = process
        self.initialize_result: Optional[InitializeResult] = None
        self._shut_down = False

    @property
    def server_info(self) -> ServerInfo:
        """``serverInfo`` of the initialize result (after :meth:`initialize`)."""
        return self._initialized()["serverInfo"]

    @property
    def capabilities(self) -> ServerCapabilities:
        """``capabilities`` of the initialize result (after :meth:`initialize`)."""
        return self._initialized()["capabilities"]

    @property
    def returncode(self) -> Optional[int]:
        """The spawned server's exit status, once it exited (None otherwise or when attached)."""
        return self.process.returncode if self.process is not None else None

    def _initialized(self) -> InitializeResult:
        if self.initialize_result is None:
            raise RuntimeError("the client is not initialized")
        return self.initialize_result

    # -- lifecycle -------------------------------------------------------------------------------
    async def initialize(self, *, process_id: Optional[int] = None, client_info: Optional[ClientInfo] = None,
                         capabilities: Optional[ClientCapabilities] = None, trace: Optional[TraceValue] = None,
                         initialization_options: Any = None, initialized: bool = True) -> InitializeResult:
        """Send ``initialize`` (then the ``initialized`` notification unless ``initialized=False``).

        ``process_id``: the server exits when that process dies. ``capabilities``: e.g.
        ``{"workspace": {"didChangeFiles": True}}``. ``trace``: ``"messages"`` forwards the
        server's log as ``window/logMessage``. ``initialization_options``: e.g. ``{"localRoot": ...}``.
        """
        info: ClientInfo = client_info or {"name": "workspace-bridge-python", "version": __version__}
        params = build_params({"clientInfo": info}, {
            "processId": process_id, "capabilities": capabilities, "trace": trace,
            "initializationOptions": initialization_options})
        result: InitializeResult = await self.request("initialize", params)
        self.initialize_result = result
        if initialized:
            await self.notify("initialized", {})
        return result

    async def shutdown(self) -> None:
        """Send ``shutdown``: answered once every earlier request is; later requests are refused."""
        await self.request("shutdown")
        self._shut_down = True

    async def exit(self) -> None:
        """Send ``exit``: the server exits (status 0 after shutdown, 1 otherwise)."""
        await self.notify("exit")

    async def close(self, timeout: float = 10.0) -> Optional[int]:
        """End the session and return the server's exit status (None when attached).

        An initialized connection gets ``shutdown`` then ``exit``; otherwise the client's output is
        simply closed (the server finishes what it received and exits 0). A spawned server still
        running ``timeout`` seconds later is killed. Safe to call more than once.
        """
        if not self.closed and self.initialize_result is not None:
            try:
                if not self._shut_down:
                    await asyncio.wait_for(self.shutdown(), timeout)
                await self.exit()
            except (BridgeError, ConnectionClosed, asyncio.TimeoutError):
                pass
        try:
            self._writer.close()
        except (ConnectionError, RuntimeError):
            pass
        if self.process is not None:
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()
        try:
            await asyncio.wait_for(self.wait_closed(), timeout)
        except asyncio.TimeoutError:
            self._reader_task.cancel()
            try:
                await self._reader_task
            except asyncio.CancelledError:
                pass
        return self.returncode

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


async def start(*args: StrPath, binary: Optional[StrPath] = None, local_root: Optional[StrPath] = None,
                cloud_root: Optional[StrPath] = None, config_dir: Optional[StrPath] = None,
                debug_methods: bool = False, framing: Framing = "lsp",
                on_message: Optional[MessageHook] = None, on_send: Optional[MessageHook] = None,
                stderr: Union[int, IO[Any], None] = None, env: Optional[Mapping[str, str]] = None,
                initialize: bool = True, capabilities: Optional[ClientCapabilities] = None,
                trace: Optional[TraceValue] = None, initialization_options: Any = None,
                client_info: Optional[ClientInfo] = None) -> Client:
    """Start ``workspace-bridge serve`` and return a client on its stdio (see :func:`spawn`)."""
    argv = [find_binary(binary), "serve"]
    for flag, value in (("--local-root", local_root), ("--cloud-root", cloud_root), ("--config-dir", config_dir)):
        if value is not None:
            argv += [flag, os.fspath(Path(value))]
    if debug_methods:
        argv.append("--enable-debug-methods")
    argv += [os.fspath(a) for a in args]
    process = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr,
        env=dict(env) if env is not None else None, limit=STDOUT_LIMIT)
    assert process.stdin is not None and process.stdout is not None
    client = Client(process.stdout, process.stdin, framing=framing, on_message=on_message,
                    on_send=on_send, process=process)
    if initialize:
        try:
            await client.initialize(process_id=os.getpid(), client_info=client_info, capabilities=capabilities,
                                    trace=trace, initialization_options=initialization_options)
        except BaseException:
            await client.close()
            raise
    return client


class spawn:
    """Start a server and connect to it: ``async with spawn(local_root=...) as client:`` (closed at
    the end) or ``client = await spawn(...)``.

    Runs ``<binary> serve [--local-root DIR] [--cloud-root DIR] [--config-dir DIR]
    [--enable-debug-methods] *args`` with stdio piped (``binary``: see :func:`find_binary`),
    speaks ``framing`` (LSP ``Content-Length`` by default), and unless ``initialize=False`` sends
    ``initialize`` (with this process's id, so the server exits if this process dies) and
    ``initialized``. ``stderr`` is where the server's log goes (inherited by default).
    """

    def __init__(self, *args: StrPath, **options: Any):
        self._args: Sequence[StrPath] = args
        self._options = options
        self._client: Optional[Client] = None

    def __await__(self) -> Generator[Any, None, Client]:
        return start(*self._args, **self._options).__await__()

    async def __aenter__(self) -> Client:
        self._client = await start(*self._args, **self._options)
        return self._client

    async def __aexit__(self, *exc: Any) -> None:
        if self._client is not None:
            await self._client.close()
