"""A Claude Agent SDK ``SessionStore`` that keeps transcripts in WorkspaceBridge sessions.

``pip install workspace-bridge-client[claude]``::

    client = await spawn(local_root="~/Notes")
    store = WorkspaceSessionStore(client)
    options = ClaudeAgentOptions(session_store=store)

Each transcript is one session of the workspace (agent type ``claude-agent-sdk``): every entry
one message (its ``uuid`` the message id, so a retried batch stores nothing twice; its content
the entry, returned deep-equal), a subagent transcript (``subpath``) a child session of its main
transcript's session. The session's metadata names the transcript (``claude.project``,
``claude.session``, ``claude.kind``: ``main`` or ``sub``, ``claude.subpath``) and holds the SDK's
running summary (``claude.summary``), so listing reads no transcript: ``session/list`` filters
by metadata and answers from the server's index. So the transcripts are durable before
``append`` returns, follow the workspace through its sync engine, and are visible (and
forkable, exportable, searchable) to every other front end of the same server.
"""
from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple

from claude_agent_sdk import fold_session_summary
from claude_agent_sdk.types import (SessionKey, SessionListSubkeysKey, SessionStore, SessionStoreEntry,
                                    SessionStoreListEntry, SessionSummaryEntry)

from .client import Client
from .errors import BridgeError
from .types import MessageInput, MessageRole, Session

__all__ = ["WorkspaceSessionStore"]

_ROLES: Dict[str, MessageRole] = {"user": "user", "assistant": "assistant", "system": "system"}
_PAGE = 1000


def _millis(timestamp: str) -> int:
    """Epoch milliseconds of the server's ISO 8601 times (UTC, milliseconds)."""
    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)


class WorkspaceSessionStore(SessionStore):
    """Implements every method of ``claude_agent_sdk.types.SessionStore`` (``append``, ``load``
    and the optional ``list_sessions``, ``list_session_summaries``, ``delete``,
    ``list_subkeys``) through the protocol of ``client``, a connected ``Client``.

    Appends to one transcript are serialized in this process (the summary is a read-fold-write);
    two processes creating the same transcript at once may each create a session, and reads
    then use the oldest one.
    """

    def __init__(self, client: Client, *, agent_type: str = "claude-agent-sdk") -> None:
        self.client = client
        self.agent_type = agent_type
        self._ids: Dict[Tuple[str, str, Optional[str]], str] = {}
        self._summaries: Dict[str, Dict[str, Any]] = {}
        self._locks: Dict[Tuple[str, str, Optional[str]], asyncio.Lock] = {}

    # -- finding a transcript's session ------------------------------------------------

    @staticmethod
    def _tuple(key: SessionKey) -> Tuple[str, str, Optional[str]]:
        return key["project_key"], key["session_id"], key.get("subpath") or None

    @staticmethod
    def _metadata(project: str, session: str, subpath: Optional[str]) -> Dict[str, Any]:
        md: Dict[str, Any] = {"claude.project": project, "claude.session": session,
                              "claude.kind": "sub" if subpath else "main"}
        if subpath:
            md["claude.subpath"] = subpath
        return md

    async def _sessions(self, metadata: Dict[str, Any]) -> List[Session]:
        """Every session of this agent type whose metadata has these values (from the index)."""
        out: List[Session] = []
        cursor: Optional[str] = None
        while True:
            page = await self.client.session_list(agent_type=self.agent_type, metadata=metadata, limit=_PAGE,
                                                  cursor=cursor)
            out += page["sessions"]
            cursor = page.get("nextCursor")
            if not cursor:
                return out

    async def _find(self, key: Tuple[str, str, Optional[str]]) -> Optional[Session]:
        found = await self._sessions(self._metadata(*key))
        if not found:
            self._ids.pop(key, None)
            return None
        oldest = min(found, key=lambda s: (s["createdAt"], s["id"]))
        self._ids[key] = oldest["id"]
        return oldest

    async def _find_or_create(self, key: Tuple[str, str, Optional[str]]) -> str:
        known = self._ids.get(key)
        if known is not None:
            return known
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            known = self._ids.get(key)
            if known is not None:
                return known
            found = await self._find(key)
            if found is not None:
                return found["id"]
            project, session, subpath = key
            parent = await self._find_or_create((project, session, None)) if subpath else None
            md = self._metadata(*key)
            if not subpath:
                md["claude.written"] = False  # made for its subagents only: load() says None
            created = await self.client.session_create(
                title=f"{session}/{subpath}" if subpath else session, agent_type=self.agent_type, metadata=md,
                parent_id=parent)
            self._ids[key] = created["id"]
            return created["id"]

    # -- the SessionStore protocol --------------------------------------------------------

    async def append(self, key: SessionKey, entries: List[SessionStoreEntry]) -> None:
        if not entries:
            return
        k = self._tuple(key)
        messages: List[MessageInput] = []
        for e in entries:
            m: MessageInput = {"role": _ROLES.get(str(e.get("type")), "system"), "content": e}
            if isinstance(e.get("uuid"), str) and e["uuid"]:
                m["id"] = e["uuid"]
            messages.append(m)
        for attempt in range(2):
            sid = await self._find_or_create(k)
            try:
                await self.client.session_append_messages(id=sid, messages=messages)
                break
            except BridgeError as err:
                if err.data_code != "NotFound" or attempt:
                    raise
                self._ids.pop(k, None)  # deleted meanwhile (another process, another device)
        if k[2] is None:
            await self._fold(k, sid, key, entries)

    async def _fold(self, k: Tuple[str, str, Optional[str]], sid: str, key: SessionKey,
                    entries: List[SessionStoreEntry]) -> None:
        """Folds the batch into the SDK's summary, kept in the session's metadata."""
        lock = self._locks.setdefault((k[0], k[1], "\0summary"), asyncio.Lock())  # no subpath holds a NUL
        async with lock:
            data = self._summaries.get(sid)
            if data is None:
                s = await self.client.session_get(id=sid)
                data = (s.get("metadata") or {}).get("claude.summary")
            prev: Optional[SessionSummaryEntry] = (
                {"session_id": k[1], "mtime": 0, "data": data} if isinstance(data, dict) else None)
            folded = fold_session_summary(prev, {"project_key": k[0], "session_id": k[1]}, entries)
            await self.client.session_update(id=sid, metadata={"claude.summary": folded["data"], "claude.written": True})
            self._summaries[sid] = folded["data"]

    async def load(self, key: SessionKey) -> Optional[List[SessionStoreEntry]]:
        found = await self._find(self._tuple(key))
        if found is None or (found.get("metadata") or {}).get("claude.written") is False:
            return None
        out: List[SessionStoreEntry] = []
        after: Optional[str] = None
        while True:
            page = await self.client.session_messages(id=found["id"], after=after, limit=_PAGE)
            out += [m["content"] for m in page["messages"]]
            if not page.get("hasMore"):
                return out
            after = page["nextAfter"]

    async def _mains(self, project_key: str) -> Dict[str, Session]:
        """The written main transcripts of a project, by SDK session id (the oldest of duplicates)."""
        out: Dict[str, Session] = {}
        for s in await self._sessions({"claude.project": project_key, "claude.kind": "main", "claude.written": True}):
            sid = s["metadata"]["claude.session"]
            if sid not in out or (s["createdAt"], s["id"]) < (out[sid]["createdAt"], out[sid]["id"]):
                out[sid] = s
        return out

    async def list_sessions(self, project_key: str) -> List[SessionStoreListEntry]:
        return [{"session_id": sid, "mtime": _millis(s["updatedAt"])} for sid, s in (await self._mains(project_key)).items()]

    async def list_session_summaries(self, project_key: str) -> List[SessionSummaryEntry]:
        # mtime is the session's updatedAt, the time of the summary's own write (the last one).
        return [{"session_id": sid, "mtime": _millis(s["updatedAt"]), "data": s["metadata"]["claude.summary"]}
                for sid, s in (await self._mains(project_key)).items()
                if isinstance(s["metadata"].get("claude.summary"), dict)]

    async def delete(self, key: SessionKey) -> None:
        project, session, subpath = self._tuple(key)
        md = self._metadata(project, session, subpath)
        if subpath is None:
            del md["claude.kind"]  # the main transcript and every subagent's
        for s in await self._sessions(md):
            try:
                await self.client.session_delete(id=s["id"])
            except BridgeError as err:
                if err.data_code != "NotFound":
                    raise
        for k in [k for k in self._ids if k[:2] == (project, session) and (subpath is None or k[2] == subpath)]:
            self._summaries.pop(self._ids.pop(k), None)

    async def list_subkeys(self, key: SessionListSubkeysKey) -> List[str]:
        subs = await self._sessions({"claude.project": key["project_key"], "claude.session": key["session_id"],
                                     "claude.kind": "sub"})
        return sorted({s["metadata"]["claude.subpath"] for s in subs})
