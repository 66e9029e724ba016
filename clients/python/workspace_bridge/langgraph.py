"""A LangGraph checkpoint saver that stores into WorkspaceBridge sessions through the protocol.

``pip install "workspace-bridge-client[langgraph]"``::

    from workspace_bridge import spawn
    from workspace_bridge.langgraph import WorkspaceBridgeSaver

    client = await spawn(local_root="/tmp/ws")
    graph = builder.compile(checkpointer=WorkspaceBridgeSaver(client))

Each LangGraph thread is one session (metadata ``langgraph:thread_id``), found with
``session/list`` by metadata and remembered; its checkpoints and writes are messages (see
``langgraph_records.py``), so they are durable when ``put`` returns, synced, retained, exported
and forked like any session. Sync methods (``put``, ``get_tuple``…) run on the client's loop and
must be called from another thread (see :class:`workspace_bridge.background.BackgroundLoop`).
"""
from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, Optional, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP, ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple,
    get_checkpoint_id, get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from .client import Client
from .errors import BridgeError
from .langgraph_records import (
    CID, KIND, NS, SAVER, SAVER_VERSION, THREAD, checkpoint_message, record, to_tuple, write_message,
)
from .langgraph_sync import SyncOverAsyncSaver

T = TypeVar("T")
TAIL = (1, 15)  # the last message get_tuple reads first (then 15 before it), where the checkpoint usually is
CONCURRENT = 32  # sessions cleaned at once by delete_for_runs


def _is_write_of(message: dict[str, Any], ns: str, checkpoint_id: str) -> bool:
    meta = message.get("metadata") or {}
    return meta.get(KIND) == "write" and meta.get(NS) == ns and meta.get(CID) == checkpoint_id


class WorkspaceBridgeSaver(SyncOverAsyncSaver):
    """LangGraph's ``BaseCheckpointSaver`` (sync and async) over a connected WorkspaceBridge client.

    Guarantees: ``put``/``put_writes`` return once the server has the records durably; ``list``
    answers newest first; ``delete_thread`` removes the thread's session; ``copy_thread`` forks it
    (``session/fork``); ``prune`` and ``delete_for_runs`` delete messages (``session/deleteMessages``),
    durably and visibly to every client of the store.
    """

    def __init__(self, client: Client, *, serde: Optional[SerializerProtocol] = None,
                 agent_type: str = "langgraph", page_size: int = 1000):
        """``agent_type``: of the sessions it creates. ``page_size``: messages (and sessions) per
        request when reading many (1 to 1,000)."""
        super().__init__(serde=serde)
        if not 1 <= page_size <= 1000:
            raise ValueError("page_size must be between 1 and 1000")
        self.client = client
        self.agent_type = agent_type
        self.page = page_size
        self._sessions: dict[str, str] = {}
        self._resolving = asyncio.Lock()

    # -- sessions ---------------------------------------------------------------------------------
    async def _sessions_where(self, metadata: dict[str, Any]) -> list[dict[str, Any]]:
        """Every session whose metadata has these exact keys, oldest first."""
        found: list[dict[str, Any]] = []
        cursor: Optional[str] = None
        while True:
            params: dict[str, Any] = {"metadata": metadata, "limit": self.page}
            if cursor is not None:
                params["cursor"] = cursor
            page = await self.client.request("session/list", params)
            found += [s for s in page["sessions"]
                      if all((s.get("metadata") or {}).get(k) == v for k, v in metadata.items())]
            cursor = page.get("nextCursor")
            if cursor is None:
                return sorted(found, key=lambda s: (s["createdAt"], s["id"]))

    async def _session(self, thread_id: str, create: bool = False) -> Optional[str]:
        """The session holding ``thread_id`` (created when ``create``), or None."""
        sid = self._sessions.get(thread_id)
        if sid is not None:
            return sid
        async with self._resolving:
            sid = self._sessions.get(thread_id)
            if sid is None:
                found = await self._sessions_where({THREAD: thread_id})
                if found:
                    sid = found[0]["id"]
                elif create:
                    session = await self.client.request("session/create", {
                        "title": f"LangGraph thread {thread_id}", "agentType": self.agent_type,
                        "metadata": {SAVER: SAVER_VERSION, THREAD: thread_id}})
                    sid = session["id"]
                else:
                    return None
                self._sessions[thread_id] = sid
            return sid

    async def _on_thread(self, thread_id: str, op: Callable[[str], Awaitable[T]], *, create: bool = False,
                         missing: Any = None) -> Any:
        """``op(session id)`` on the thread's session; ``missing`` when there is none. A session
        another client deleted since it was remembered is looked up again, once."""
        for attempt in (0, 1):
            sid = await self._session(thread_id, create)
            if sid is None:
                return missing
            try:
                return await op(sid)
            except BridgeError as e:
                if e.data_code != "NotFound" or attempt or self._sessions.get(thread_id) != sid:
                    raise
                del self._sessions[thread_id]
        return missing

    # -- messages ---------------------------------------------------------------------------------
    async def _pages(self, sid: str, where: dict[str, Any], after: Optional[str] = None
                     ) -> AsyncGenerator[list[dict[str, Any]], None]:
        """The messages of the session matching ``where`` metadata (after message ``after``, if
        given), in journal order, a page per request."""
        while True:
            params: dict[str, Any] = {"id": sid, "limit": self.page, "where": {"metadata": where}}
            if after is not None:
                params["after"] = after
            page = await self.client.request("session/messages", params)
            yield page["messages"]
            if not page.get("hasMore") or not page["messages"]:
                return
            after = page["messages"][-1]["id"]

    async def _messages(self, sid: str, where: dict[str, Any], after: Optional[str] = None) -> list[dict[str, Any]]:
        """Every message :meth:`_pages` gives, in one list."""
        return [m async for page in self._pages(sid, where, after) for m in page]

    async def _newest(self, sid: str, where: dict[str, Any], count: int) -> AsyncGenerator[dict[str, Any], None]:
        """The messages matching ``where`` metadata, newest first, ``count`` per request."""
        before: Optional[str] = None
        while True:
            params: dict[str, Any] = {"id": sid, "last": count, "where": {"metadata": where}}
            if before is not None:
                params["before"] = before
            page = await self.client.request("session/messages", params)
            for message in reversed(page["messages"]):
                yield message
            if not page.get("hasMore") or not page["messages"]:
                return
            before = page["messages"][0]["id"]

    async def _last(self, sid: str, where: dict[str, Any]) -> Optional[dict[str, Any]]:
        """The last message matching ``where`` metadata (the server reads backwards from the end)."""
        page = await self.client.request("session/messages", {"id": sid, "last": 1, "where": {"metadata": where}})
        return page["messages"][-1] if page["messages"] else None

    async def _append(self, sid: str, messages: list[dict[str, Any]]) -> int:
        result: dict[str, int] = await self.client.request("session/appendMessages", {"id": sid, "messages": messages})
        return result["count"]

    async def _delete(self, sid: str, selector: dict[str, Any]) -> None:
        await self.client.request("session/deleteMessages", {"id": sid, **selector})

    async def _writes_of(self, sid: str, checkpoint_msg: dict[str, Any]) -> list[dict[str, Any]]:
        """The writes of a checkpoint: they follow its message in the journal (LangGraph puts a
        checkpoint before its writes, and a replaced checkpoint is appended again with them)."""
        meta = checkpoint_msg["metadata"]
        return await self._messages(sid, {KIND: "write", NS: meta[NS], CID: meta[CID]}, after=checkpoint_msg["id"])

    # -- the saver, async -------------------------------------------------------------------------
    async def aget_tuple(self, config: RunnableConfig) -> Optional[CheckpointTuple]:
        conf = config["configurable"]
        thread_id, ns, cid = conf["thread_id"], conf.get("checkpoint_ns", ""), get_checkpoint_id(config)

        where = {KIND: "checkpoint", NS: ns} if cid is None else {KIND: "checkpoint", NS: ns, CID: cid}

        async def op(sid: str) -> Optional[CheckpointTuple]:
            # Usually the checkpoint is the last message or close to it, its writes after it: read
            # the last message, then 15 more, and only then filter the journal on the server.
            tail: list[dict[str, Any]] = []
            before: Optional[str] = None
            for count in TAIL:
                params: dict[str, Any] = {"id": sid, "last": count}
                if before is not None:
                    params["before"] = before
                page = await self.client.request("session/messages", params)
                tail = page["messages"] + tail
                for i in range(len(tail) - 1, -1, -1):
                    meta = tail[i].get("metadata") or {}
                    if all(meta.get(k) == v for k, v in where.items()):
                        writes = [m for m in tail[i + 1:] if _is_write_of(m, meta[NS], meta[CID])]
                        return to_tuple(self.serde, thread_id, tail[i], writes)
                if not page.get("hasMore") or not page["messages"]:
                    return None  # the whole session was read
                before = page["messages"][0]["id"]
            cp = await self._last(sid, where)
            return None if cp is None else to_tuple(self.serde, thread_id, cp, await self._writes_of(sid, cp))
        found: Optional[CheckpointTuple] = await self._on_thread(thread_id, op)
        return found

    async def alist(self, config: Optional[RunnableConfig], *, filter: Optional[dict[str, Any]] = None,
                    before: Optional[RunnableConfig] = None, limit: Optional[int] = None) -> AsyncIterator[CheckpointTuple]:
        where: dict[str, Any] = dict(filter or {})
        where[KIND] = "checkpoint"
        if config is not None:
            conf = config["configurable"]
            threads = [conf["thread_id"]]
            if "checkpoint_ns" in conf:
                where[NS] = conf["checkpoint_ns"]
            if get_checkpoint_id(config) is not None:
                where[CID] = get_checkpoint_id(config)
        else:
            threads = [s["metadata"][THREAD] for s in await self._sessions_where({SAVER: SAVER_VERSION})]
        before_id = get_checkpoint_id(before) if before is not None else None
        remaining = limit if limit is not None else -1
        for thread_id in threads:
            sid = await self._session(thread_id)
            if sid is None or remaining == 0:
                continue
            batch: list[dict[str, Any]] = []
            newest = self._newest(sid, where, self.page if remaining < 0 else max(1, min(self.page, remaining)))
            async with aclosing(newest):
                async for msg in newest:
                    if before_id is not None and msg["metadata"][CID] >= before_id:
                        continue
                    batch.append(msg)
                    if len(batch) == remaining or len(batch) == self.page:
                        for tup in await self._with_writes(sid, thread_id, batch, where.get(NS)):
                            yield tup
                        remaining -= len(batch) if remaining >= 0 else 0
                        batch = []
                        if remaining == 0:
                            return
            for tup in await self._with_writes(sid, thread_id, batch, where.get(NS)):
                yield tup
            remaining -= len(batch) if remaining >= 0 else 0

    async def _with_writes(self, sid: str, thread_id: str, batch: list[dict[str, Any]],
                           ns: Optional[str]) -> list[CheckpointTuple]:
        """The tuples of these checkpoint messages (newest first), their writes read in one pass
        from the oldest of them on."""
        if not batch:
            return []
        where = {KIND: "write"} if ns is None else {KIND: "write", NS: ns}
        found: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for w in await self._messages(sid, where, after=batch[-1]["id"]):
            found.setdefault((w["metadata"][NS], w["metadata"][CID]), []).append(w)
        return [to_tuple(self.serde, thread_id, m, found.get((m["metadata"][NS], m["metadata"][CID]), []))
                for m in batch]

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        conf = config["configurable"]
        thread_id, ns = conf["thread_id"], conf.get("checkpoint_ns", "")
        message = checkpoint_message(self.serde, ns, checkpoint, get_serializable_checkpoint_metadata(config, metadata),
                                     conf.get("checkpoint_id"))

        async def op(sid: str) -> None:
            if await self._append(sid, [message]) == 0:  # the same checkpoint id again: replace it
                old = await self._last(sid, {KIND: "checkpoint", NS: ns, CID: checkpoint["id"]})
                writes = await self._writes_of(sid, old) if old is not None else []
                await self._delete(sid, {"messageIds": [message["id"], *(w["id"] for w in writes)]})
                await self._append(sid, [message, *(record(w) for w in writes)])  # its writes after it again
        await self._on_thread(thread_id, op, create=True)
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"]}}

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        conf = config["configurable"]
        thread_id, ns, cid = conf["thread_id"], conf.get("checkpoint_ns", ""), conf["checkpoint_id"]
        messages = [write_message(self.serde, ns, cid, task_id, task_path, WRITES_IDX_MAP.get(ch, idx), ch, value)
                    for idx, (ch, value) in enumerate(writes)]
        # a regular write (task, index) already stored is kept; a special one (error, interrupt…) replaced
        special = [m["id"] for m, (ch, _) in zip(messages, writes) if ch in WRITES_IDX_MAP]
        if not messages:
            return

        async def op(sid: str) -> None:
            if special:
                await self._delete(sid, {"messageIds": special})
            await self._append(sid, messages)
        await self._on_thread(thread_id, op, create=True)

    async def adelete_thread(self, thread_id: str) -> None:
        async with self._resolving:
            self._sessions.pop(thread_id, None)
            for session in await self._sessions_where({THREAD: thread_id}):
                try:
                    await self.client.request("session/delete", {"id": session["id"]})
                except BridgeError as e:
                    if e.data_code != "NotFound":
                        raise

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        source = await self._session(source_thread_id)
        if source is None:
            return
        async with self._resolving:
            target = self._sessions.get(target_thread_id)
            if target is None:
                found = await self._sessions_where({THREAD: target_thread_id})
                target = found[0]["id"] if found else None
            if target is None:  # the usual case: the copy is a fork of the whole session
                fork = await self.client.request("session/fork", {
                    "id": source, "title": f"LangGraph thread {target_thread_id}",
                    "metadata": {THREAD: target_thread_id}})
                self._sessions[target_thread_id] = fork["id"]
                return
            self._sessions[target_thread_id] = target
        # into a thread that exists: append the source's records (ids already there are kept)
        async for page in self._pages(source, {}):
            records = [record(m) for m in page if KIND in (m.get("metadata") or {})]
            if records:
                await self._append(target, records)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        if strategy == "delete":
            for thread_id in thread_ids:
                await self.adelete_thread(thread_id)
            return
        if strategy != "keep_latest":
            raise ValueError(f"unknown prune strategy {strategy!r} (keep_latest or delete)")
        for thread_id in thread_ids:
            async def op(sid: str) -> None:
                latest: dict[str, str] = {}  # namespace -> its newest checkpoint id
                for m in await self._messages(sid, {KIND: "checkpoint"}):
                    ns, cid = m["metadata"][NS], m["metadata"][CID]
                    latest[ns] = max(latest.get(ns, cid), cid)
                doomed = [m["id"] for kind in ("checkpoint", "write") for m in await self._messages(sid, {KIND: kind})
                          if latest.get(m["metadata"][NS]) != m["metadata"][CID]]
                for i in range(0, len(doomed), self.page):
                    await self._delete(sid, {"messageIds": doomed[i:i + self.page]})
            await self._on_thread(thread_id, op)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        if not run_ids:
            return
        gate = asyncio.Semaphore(CONCURRENT)

        async def clean(sid: str) -> None:
            async with gate:
                for run_id in run_ids:
                    for m in await self._messages(sid, {KIND: "checkpoint", "run_id": run_id}):
                        # the checkpoint and its writes share these keys: one deletion
                        await self._delete(sid, {"where": {"metadata": {NS: m["metadata"][NS], CID: m["metadata"][CID]}}})
        await asyncio.gather(*(clean(s["id"]) for s in await self._sessions_where({SAVER: SAVER_VERSION})))

    def get_next_version(self, current: Optional[str], channel: None = None) -> str:
        """Zero-padded increasing versions with a random fraction (as LangGraph's own savers)."""
        if current is None:
            number = 0
        elif isinstance(current, int):
            number = current
        else:
            number = int(str(current).split(".")[0])
        return f"{number + 1:032}.{random.random():016}"
