"""A JSON-RPC 2.0 client connection over a pair of asyncio streams."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Mapping, Optional, Protocol, cast

from .call import Call
from .errors import ConnectionClosed, ProtocolError
from .framing import Decoder, Framing, FramingError, encode, parse_body
from .streams import Stream
from .types import ProgressValue

MessageHook = Callable[[Any], None]
READ_CHUNK = 1 << 16


class ByteWriter(Protocol):
    """What the connection needs of its output (an ``asyncio.StreamWriter`` has it)."""

    def write(self, data: bytes) -> None: ...
    async def drain(self) -> None: ...
    def close(self) -> None: ...
    def is_closing(self) -> bool: ...


def build_params(required: Mapping[str, Any], optional: Mapping[str, Any]) -> dict[str, Any]:
    """By-name params: every required member, and the optional ones that are not None."""
    params = dict(required)
    params.update((k, v) for k, v in optional.items() if v is not None)
    return params


def _token_key(token: Any) -> str:
    return json.dumps(token, sort_keys=True)


class Connection:
    """Requests, notifications and their answers over ``reader``/``writer``.

    One reader task decodes every message the server sends, in order, and dispatches it:
    responses to their :class:`Call`, ``$/progress`` to the stream of the call owning the token,
    notifications to every :class:`Stream` subscribed to their method. ``on_message`` sees each
    decoded message first (responses, notifications, batches alike) and ``on_send`` each message
    before it is written; an exception raised by either hook fails the connection, and is raised
    to every pending call and open stream. Must be created inside a running event loop.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: ByteWriter, *, framing: Framing = "lsp",
                 on_message: Optional[MessageHook] = None, on_send: Optional[MessageHook] = None):
        self.framing: Framing = framing
        self.on_message = on_message
        self.on_send = on_send
        self._reader = reader
        self._writer = writer
        self._decoder = Decoder(framing)
        self._last_id = 0
        self._pending: dict[int, Call[Any]] = {}
        self._progress: dict[str, Call[Any]] = {}
        self._subscribers: dict[str, list[Stream[Any]]] = {}
        self._failure: Optional[BaseException] = None
        self._ended = False
        self._loop = asyncio.get_running_loop()
        self._reader_task = self._loop.create_task(self._read_loop())

    # -- state ------------------------------------------------------------------------------
    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the connection runs on (calls must be made and awaited there)."""
        return self._loop

    @property
    def closed(self) -> bool:
        """The connection ended: the server's output closed, it failed, or it was closed."""
        return self._ended

    @property
    def failure(self) -> Optional[BaseException]:
        """Why the connection failed (None while open or after a clean end)."""
        return self._failure

    # -- sending ----------------------------------------------------------------------------
    def _write(self, message: dict[str, Any]) -> None:
        if self._ended:
            raise self._failure or ConnectionClosed("the connection is closed")
        if self.on_send is not None:
            self.on_send(message)
        try:
            self._writer.write(encode(message, self.framing))
        except (ConnectionError, RuntimeError) as exc:
            raise ConnectionClosed(f"cannot write to the server: {exc}") from exc

    async def drain(self) -> None:
        """Wait until the written bytes were handed to the OS (flow control)."""
        try:
            await self._writer.drain()
        except ConnectionError as exc:
            raise ConnectionClosed(f"the server's input is closed: {exc}") from exc

    def request(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
                progress: bool = False) -> Call[Any]:
        """Write a request and return its :class:`Call` (await it for the result).

        ``progress=True`` adds a ``workDoneToken`` chosen by the client (unless ``params`` has
        one) so that ``call.progress()`` yields the request's ``$/progress`` values; a token
        given in ``params`` is followed as well.
        """
        if self._ended:
            raise self._failure or ConnectionClosed("the connection is closed")
        self._last_id += 1
        request_id = self._last_id
        body = dict(params) if params is not None else None
        token = body.get("workDoneToken") if body is not None else None
        if progress and token is None:
            token = f"py-progress-{request_id}"
            body = {**(body or {}), "workDoneToken": token}
        call: Call[Any] = Call(self, request_id, method, token)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if body is not None:
            message["params"] = body
        self._pending[request_id] = call
        if token is not None:
            self._progress[_token_key(token)] = call
        try:
            self._write(message)
        except BaseException:
            self._forget(call)
            raise
        return call

    def send_notification(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """Write a notification now, without waiting for flow control."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self._write(message)

    async def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """Send a notification (no answer ever comes)."""
        self.send_notification(method, params)
        await self.drain()

    # -- subscribing -------------------------------------------------------------------------
    def _subscribe(self, method: str) -> Stream[Any]:
        stream: Stream[Any] = Stream(method, self._unsubscribe)
        if self._ended:
            stream._finish(self._failure)
        else:
            self._subscribers.setdefault(method, []).append(stream)
        return stream

    def _unsubscribe(self, stream: Stream[Any]) -> None:
        streams = self._subscribers.get(stream.name, [])
        if stream in streams:
            streams.remove(stream)

    # -- reading -----------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        try:
            while True:
                chunk = await self._reader.read(READ_CHUNK)
                if not chunk:
                    break
                for body in self._decoder.feed(chunk):
                    message = parse_body(body)
                    if self.on_message is not None:
                        self.on_message(message)
                    self._dispatch(message)
        except FramingError as exc:
            self._end(ProtocolError(str(exc)))
        except ConnectionError as exc:
            self._end(ConnectionClosed(f"the connection was lost: {exc!r}"))
        except asyncio.CancelledError:
            self._end(None)
            raise
        except Exception as exc:  # an on_message hook failed, or the stream broke
            self._end(exc)
        else:
            if self._decoder.pending:
                self._end(ProtocolError(f"the server's output ended inside a message "
                                        f"({self._decoder.pending} bytes)"))
            else:
                self._end(None)

    def _end(self, failure: Optional[BaseException]) -> None:
        if self._ended:
            return
        self._ended = True
        self._failure = failure
        closed = failure or ConnectionClosed("the server closed the connection")
        pending, self._pending = self._pending, {}
        self._progress.clear()
        for call in pending.values():
            call._fail(closed)
        subscribers, self._subscribers = self._subscribers, {}
        for streams in subscribers.values():
            for stream in streams:
                stream._finish(failure)

    def _forget(self, call: Call[Any]) -> None:
        self._pending.pop(call.id, None)
        if call.token is not None:
            self._progress.pop(_token_key(call.token), None)

    def _dispatch(self, message: Any) -> None:
        if isinstance(message, list):
            for member in message:
                self._dispatch(member)
            return
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self._refuse_server_request(message["id"], method)
            else:
                self._notification(method, message.get("params"))
            return
        request_id = message.get("id")
        call = self._pending.get(request_id) if isinstance(request_id, int) else None
        if call is not None:
            self._forget(call)
            call._resolve(message)

    def _notification(self, method: str, params: Any) -> None:
        if method == "$/progress" and isinstance(params, dict):
            owner = self._progress.get(_token_key(params.get("token")))
            if owner is not None and owner._progress is not None:
                value = params.get("value")
                owner._progress._push(cast(ProgressValue, value))
                if isinstance(value, dict) and value.get("kind") == "end":
                    owner._progress._finish()
        for stream in list(self._subscribers.get(method, ())):
            stream._push(params)

    def _refuse_server_request(self, request_id: Any, method: str) -> None:
        """The protocol has no server-to-client requests; answer one as JSON-RPC requires."""
        self._write({"jsonrpc": "2.0", "id": request_id,
                     "error": {"code": -32601, "message": f"the client has no method {method}",
                               "data": {"code": "MethodNotFound", "method": method}}})

    async def wait_closed(self) -> None:
        """Wait until the server's output ended and every waiter was told."""
        await asyncio.shield(self._reader_task)
