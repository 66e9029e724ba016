"""Driving the asyncio client from synchronous code: an event loop on its own thread."""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Coroutine, Optional, TypeVar

from .client import Client, StrPath, start

T = TypeVar("T")


def run_on(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T], timeout: Optional[float] = None) -> T:
    """Run ``coro`` on ``loop`` (running in another thread) and wait for its result here.

    Refuses, with a ``RuntimeError``, to be called from ``loop``'s own thread: waiting there would
    block the very loop that must answer (use the ``async`` methods there instead).
    """
    try:
        running: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coro.close()
        raise RuntimeError("a synchronous call on the client's own event loop would block it: "
                           "await the async method instead, or call from another thread")
    return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)


class BackgroundLoop:
    """An event loop running on a daemon thread, so synchronous code can use the client.

    ``with BackgroundLoop() as bg: client = bg.spawn(local_root=...)`` starts a server whose
    client lives on that loop; ``bg.run(coro)`` runs any coroutine there and returns its result.
    Leaving the block closes every client spawned through it, then stops the loop.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._clients: list[Client] = []
        self._thread = threading.Thread(target=self.loop.run_forever, name="workspace-bridge-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: Optional[float] = None) -> T:
        """Run ``coro`` on the background loop and return its result (see :func:`run_on`)."""
        return run_on(self.loop, coro, timeout)

    def spawn(self, *args: StrPath, **options: Any) -> Client:
        """Start a server as :func:`workspace_bridge.spawn` does, its client bound to this loop."""
        client = self.run(start(*args, **options))
        self._clients.append(client)
        return client

    def close(self) -> None:
        """Close the clients spawned here (shutdown, exit), stop the loop and join its thread."""
        if self.loop.is_closed():
            return
        for client in self._clients:
            self.run(client.close())
        self._clients.clear()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()

    def __enter__(self) -> "BackgroundLoop":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
