"""The sync half of a LangGraph checkpoint saver built on the asyncio client (see ``langgraph.py``)."""
from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from typing import Any, Optional, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple

from .background import run_on
from .client import Client

T = TypeVar("T")


class SyncOverAsyncSaver(BaseCheckpointSaver[str]):
    """``BaseCheckpointSaver``'s sync methods, each running its async twin (``aput`` for
    ``put``…) on the event loop of ``self.client`` and waiting for it. Called from that loop's own
    thread they raise ``RuntimeError`` at once (waiting there would deadlock): sync callers run on
    another thread (see :class:`workspace_bridge.background.BackgroundLoop`)."""

    client: Client

    def _sync(self, coro: Coroutine[Any, Any, T]) -> T:
        return run_on(self.client.loop, coro)

    async def _collect(self, source: AsyncIterator[T]) -> list[T]:
        return [item async for item in source]

    def get_tuple(self, config: RunnableConfig) -> Optional[CheckpointTuple]:
        return self._sync(self.aget_tuple(config))

    def list(self, config: Optional[RunnableConfig], *, filter: Optional[dict[str, Any]] = None,
             before: Optional[RunnableConfig] = None, limit: Optional[int] = None) -> Iterator[CheckpointTuple]:
        return iter(self._sync(self._collect(self.alist(config, filter=filter, before=before, limit=limit))))

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions) -> RunnableConfig:
        return self._sync(self.aput(config, checkpoint, metadata, new_versions))

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        self._sync(self.aput_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self._sync(self.adelete_thread(thread_id))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._sync(self.acopy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._sync(self.aprune(thread_ids, strategy=strategy))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._sync(self.adelete_for_runs(run_ids))
