"""One request in flight."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Generator, Generic, Optional, TypeVar

from .errors import BridgeError, ConnectionClosed
from .streams import Stream
from .types import ProgressToken, ProgressValue

if TYPE_CHECKING:
    from .connection import Connection

T = TypeVar("T")


def _retrieve(future: "asyncio.Future[Any]") -> None:
    if not future.cancelled():
        future.exception()


class Call(Generic[T]):
    """A request already written to the server, awaitable for its result.

    The request is written when the ``Call`` is created, so requests reach the server in the
    order they were made (which is the order the server's scheduling respects for requests that
    touch the same things). ``await call`` returns the result, or raises :class:`BridgeError`
    for an error response and :class:`ConnectionClosed` when the connection ends first.

    Cancelling the task that awaits a call (``task.cancel()``, ``asyncio.wait_for`` timing
    out) sends ``$/cancelRequest`` for it; so does :meth:`cancel`, after which ``await`` gives
    the server's answer (normally a ``BridgeError`` with ``data_code == "RequestCancelled"``,
    or the result when the request had already finished).
    """

    def __init__(self, connection: "Connection", request_id: int, method: str,
                 token: Optional[ProgressToken]):
        self.id = request_id
        self.method = method
        self.token = token
        self._connection = connection
        self._future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._progress: Optional[Stream[ProgressValue]] = (
            Stream(f"progress of {method} (token {token!r})") if token is not None else None)
        self._cancel_sent = False

    def __repr__(self) -> str:
        state = "done" if self._future.done() else "pending"
        return f"<Call {self.method} id={self.id} {state}>"

    def __await__(self) -> Generator[Any, None, T]:
        return self._wait().__await__()

    async def _wait(self) -> T:
        try:
            if not self._future.done():
                try:
                    await self._connection.drain()
                except ConnectionClosed:
                    pass  # the reader ends the connection and fails the future with the reason
            result: T = await asyncio.shield(self._future)
            return result
        except asyncio.CancelledError:
            self.cancel()
            raise

    def done(self) -> bool:
        """The answer arrived (or the connection ended)."""
        return self._future.done()

    def cancel(self) -> bool:
        """Send ``$/cancelRequest`` for this request unless it is answered or already cancelled.

        Returns whether a cancel was sent. The answer that follows is not lost: ``await`` the
        call to see it; if nobody does, it is discarded without a warning.
        """
        if self._future.done() or self._cancel_sent:
            return False
        self._cancel_sent = True
        self._future.add_done_callback(_retrieve)
        self._connection.send_notification("$/cancelRequest", {"id": self.id})
        return True

    def progress(self) -> Stream[ProgressValue]:
        """The ``$/progress`` values of this request (``begin``, ``report``..., ``end``).

        Only for calls made with a work-done token (``progress=True``); the stream exists from
        the moment the request is written, so nothing is missed, and it ends with the response.
        """
        if self._progress is None:
            raise ValueError(f"{self.method} was called without progress=True (no workDoneToken)")
        return self._progress

    # -- fed by the connection ----------------------------------------------------------
    def _resolve(self, response: dict[str, Any]) -> None:
        if self._progress is not None:
            self._progress._finish()
        if self._future.done():
            return
        if "error" in response:
            self._future.set_exception(
                BridgeError.from_response(response["error"], self.method, self.id))
        else:
            self._future.set_result(response.get("result"))

    def _fail(self, error: BaseException) -> None:
        if self._progress is not None:
            self._progress._finish(error)
        if not self._future.done():
            self._future.add_done_callback(_retrieve)  # raised to whoever awaits; no GC warning
            self._future.set_exception(error)
