"""Async iterators over what the server pushes: notifications and progress."""
from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Callable, Generic, Optional, TypeVar

T = TypeVar("T")


class Stream(Generic[T]):
    """An ordered, unbounded buffer of items pushed by the connection, read as an async iterator.

    Guarantees: every item pushed between the stream's creation and :meth:`close` is delivered
    once, in arrival order. Iteration ends (``StopAsyncIteration``) after the last buffered item
    once the stream is finished: closed by the caller, ended by its source (a request's progress
    ends with its response), or the connection closed cleanly. When the connection failed (the
    server sent undecodable bytes, or an ``on_message`` hook raised), that exception is raised
    instead, after the buffered items.
    """

    def __init__(self, name: str, on_close: Optional[Callable[["Stream[T]"], None]] = None):
        self.name = name
        self._items: deque[T] = deque()
        self._waiters: list[asyncio.Future[None]] = []
        self._finished = False
        self._error: Optional[BaseException] = None
        self._on_close = on_close

    # -- fed by the connection ------------------------------------------------------------
    def _push(self, item: T) -> None:
        if self._finished:
            return
        self._items.append(item)
        self._wake()

    def _finish(self, error: Optional[BaseException] = None) -> None:
        if self._finished:
            return
        self._finished = True
        self._error = error
        self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    # -- read by the caller ---------------------------------------------------------------
    @property
    def finished(self) -> bool:
        """No item will be added any more (buffered ones may still be read)."""
        return self._finished

    def __aiter__(self) -> "Stream[T]":
        return self

    async def __anext__(self) -> T:
        while not self._items:
            if self._finished:
                if self._error is not None:
                    raise self._error
                raise StopAsyncIteration
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        return self._items.popleft()

    async def next(self, timeout: Optional[float] = None) -> T:
        """The next item; ``TimeoutError`` after ``timeout`` seconds, ``EOFError`` when the stream
        ended without one."""
        try:
            return await asyncio.wait_for(self.__anext__(), timeout)
        except StopAsyncIteration:
            raise EOFError(f"{self.name}: the stream ended") from None
        except asyncio.TimeoutError:
            raise TimeoutError(f"{self.name}: nothing arrived within {timeout}s") from None

    def drain(self) -> list[T]:
        """Every item buffered now, without waiting (they are removed from the stream)."""
        items = list(self._items)
        self._items.clear()
        return items

    def close(self) -> None:
        """Stop receiving (an unsubscribe); buffered items can still be read."""
        if self._on_close is not None:
            self._on_close(self)
            self._on_close = None
        self._finish()

    async def __aenter__(self) -> "Stream[T]":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()
