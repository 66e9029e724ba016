"""An OpenAI Agents SDK ``Session`` kept in WorkspaceBridge sessions, with branches.

``pip install workspace-bridge-client[openai-agents]``::

    client = await spawn(local_root="~/Notes")
    session = WorkspaceAgentsSession(client, "user-42")
    result = await Runner.run(agent, "Plan a trip", session=session)

Each branch of an SDK session is one session of the workspace (agent type ``openai-agents``,
metadata ``openai.session`` and ``openai.branch``), every item one message (its role the item's,
``tool`` for tool outputs; its content the item, returned as stored). A branch is a fork made by
the server (``session/fork``): the history before the chosen user turn is copied there, durably,
and both go on independently, like ``AdvancedSQLiteSession``'s branches. The current branch is
kept in the main session's metadata (``openai.currentBranch``), so another process or device
continues where this one switched.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, List, Optional

from agents.memory.session_settings import SessionSettings

from .client import Client
from .errors import BridgeError
from .types import MessageInput, MessageRole, Session

__all__ = ["WorkspaceAgentsSession"]

MAIN = "main"
_PAGE = 1000


def _role(item: Dict[str, Any]) -> MessageRole:
    role = item.get("role")
    if role == "user" or role == "assistant" or role == "system":
        return role
    if role == "developer":
        return "system"
    return "tool" if str(item.get("type", "")).endswith("_output") else "assistant"


class WorkspaceAgentsSession:
    """Implements the Agents SDK's ``Session`` protocol (``get_items``, ``add_items``,
    ``pop_item``, ``clear_session``) through the protocol of ``client``, a connected ``Client``,
    and the branching of ``AdvancedSQLiteSession`` (``create_branch_from_turn``,
    ``switch_to_branch``, ``list_branches``, ``delete_branch``, ``get_conversation_turns``), plus
    ``store_run_usage`` (the run's tokens, recorded per turn: ``session/stats``).

    ``clear_session`` and ``pop_item`` act on the current branch. Changes from one instance are
    serialized; ``pop_item`` from two processes at once may return the same item.
    """

    def __init__(self, client: Client, session_id: str, *, branch: Optional[str] = None,
                 agent_type: str = "openai-agents", session_settings: Optional[SessionSettings] = None) -> None:
        self.client = client
        self.session_id = session_id
        self.session_settings = session_settings
        self.agent_type = agent_type
        self._branch = branch
        self._ids: Dict[str, str] = {}
        self._lock = asyncio.Lock()

    # -- the workspace sessions behind the branches ------------------------------------------

    async def _sessions(self, branch: Optional[str] = None) -> List[Session]:
        md: Dict[str, Any] = {"openai.session": self.session_id}
        if branch is not None:
            md["openai.branch"] = branch
        out: List[Session] = []
        cursor: Optional[str] = None
        while True:
            page = await self.client.session_list(agent_type=self.agent_type, metadata=md, limit=_PAGE, cursor=cursor)
            out += page["sessions"]
            cursor = page.get("nextCursor")
            if not cursor:
                return sorted(out, key=lambda s: (s["createdAt"], s["id"]))

    async def _find(self, branch: str, create: bool = False) -> Optional[str]:
        if branch in self._ids:
            return self._ids[branch]
        found = await self._sessions(branch)
        if found:
            self._ids[branch] = found[0]["id"]
        elif create:
            made = await self.client.session_create(
                title=self.session_id, agent_type=self.agent_type,
                metadata={"openai.session": self.session_id, "openai.branch": MAIN})
            self._ids[branch] = made["id"]
        return self._ids.get(branch)

    @property
    def current_branch_id(self) -> str:
        """The branch this instance reads and writes (``main`` until one is chosen)."""
        return self._branch or MAIN

    async def _current(self, create: bool = False) -> Optional[str]:
        if self._branch is None:
            main = await self._find(MAIN, create)
            if main is None:
                return None
            md = (await self.client.session_get(id=main)).get("metadata") or {}
            self._branch = md.get("openai.currentBranch") or MAIN
        sid = await self._find(self._branch, create and self._branch == MAIN)
        if sid is None and self._branch != MAIN:
            raise ValueError(f"Branch '{self._branch}' does not exist")
        return sid

    # -- Session -----------------------------------------------------------------------

    async def get_items(self, limit: Optional[int] = None) -> List[Any]:
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        sid = await self._current()
        if sid is None:
            return []
        if limit is not None:
            if limit <= 0:
                return []
            return [m["content"] for m in (await self.client.session_messages(id=sid, last=limit))["messages"]]
        out: List[Any] = []
        after: Optional[str] = None
        while True:
            page = await self.client.session_messages(id=sid, after=after, limit=_PAGE)
            out += [m["content"] for m in page["messages"]]
            if not page.get("hasMore"):
                return out
            after = page["nextAfter"]

    async def add_items(self, items: List[Any]) -> None:
        if not items:
            return
        async with self._lock:
            sid = await self._current(create=True)
            assert sid is not None
            messages: List[MessageInput] = [{"role": _role(dict(i)), "content": dict(i)} for i in items]
            await self.client.session_append_messages(id=sid, messages=messages)

    async def pop_item(self) -> Optional[Any]:
        async with self._lock:
            sid = await self._current()
            if sid is None:
                return None
            last = (await self.client.session_messages(id=sid, last=1))["messages"]
            if not last:
                return None
            gone = (await self.client.session_delete_messages(id=sid, message_ids=[last[0]["id"]]))["deleted"]
            return last[0]["content"] if gone else None

    async def clear_session(self) -> None:
        async with self._lock:
            sid = await self._current()
            if sid is not None:
                await self.client.session_delete_messages(id=sid, where={})

    # -- usage ------------------------------------------------------------------------

    async def store_run_usage(self, result: Any, model: Optional[str] = None) -> None:
        """Records the run's token usage in the current branch (one usage record: a turn's)."""
        usage = result.context_wrapper.usage
        sid = await self._current(create=True)
        assert sid is not None
        await self.client.session_record_usage(id=sid, input_tokens=usage.input_tokens,
                                               output_tokens=usage.output_tokens, model=model)

    # -- branches -----------------------------------------------------------------------

    async def get_conversation_turns(self, branch_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """The user turns of a branch: ``turn`` (from 1), ``content``, ``full_content``, ``timestamp``."""
        sid = await self._find(branch_id) if branch_id else await self._current()
        if sid is None:
            return []
        turns: List[Dict[str, Any]] = []
        after: Optional[str] = None
        while True:
            page = await self.client.session_messages(id=sid, after=after, limit=_PAGE, where={"role": "user"})
            for m in page["messages"]:
                content = m["content"].get("content", "") if isinstance(m["content"], dict) else m["content"]
                text = content if isinstance(content, str) else str(content)
                turns.append({"turn": len(turns) + 1, "content": text[:100], "full_content": content,
                              "timestamp": m["at"], "can_branch": True, "message_id": m["id"]})
            if not page.get("hasMore"):
                return turns
            after = page["nextAfter"]

    async def create_branch_from_turn(self, turn_number: int, branch_name: Optional[str] = None) -> str:
        """A new branch holding the current branch's history before user turn ``turn_number``
        (a server-side fork), made current; returns its id. ``ValueError`` for a turn that does
        not exist or a branch name already used."""
        if branch_name is not None and not branch_name.strip():
            raise ValueError("Branch name cannot be empty")
        name = branch_name or f"branch_from_turn_{turn_number}_{int(time.time())}"
        async with self._lock:
            source = await self._current()
            turns = await self.get_conversation_turns() if source else []
            if not 1 <= turn_number <= len(turns):
                raise ValueError(f"Turn {turn_number} does not contain a user message in branch '{self.current_branch_id}'")
            if name == MAIN or await self._sessions(name):
                raise ValueError(f"Branch '{name}' already exists")
            assert source is not None
            md = {"openai.branch": name, "openai.currentBranch": None}
            user = turns[turn_number - 1]["message_id"]
            before = (await self.client.session_messages(id=source, before=user, last=1))["messages"]
            if before:
                fork = await self.client.session_fork(id=source, at_message_id=before[0]["id"], title=name, metadata=md)
            else:  # the first turn: nothing before it
                fork = await self.client.session_fork(id=source, at_message_id=user, title=name, metadata=md)
                await self.client.session_delete_messages(id=fork["id"], message_ids=[user])
            self._ids[name] = fork["id"]
            await self._point(name)
            return name

    async def _point(self, branch: str) -> None:
        main = await self._find(MAIN, create=True)
        assert main is not None
        await self.client.session_update(id=main, metadata={"openai.currentBranch": branch})
        self._branch = branch

    async def switch_to_branch(self, branch_id: str) -> None:
        if await self._find(branch_id) is None:
            raise ValueError(f"Branch '{branch_id}' does not exist")
        async with self._lock:
            await self._point(branch_id)

    async def list_branches(self) -> List[Dict[str, Any]]:
        """Every branch: ``branch_id``, ``message_count``, ``user_turns``, ``is_current``,
        ``created_at``, ``workspace_session`` (the workspace session's id)."""
        current = self.current_branch_id if self._branch is not None else None
        if current is None and await self._find(MAIN) is not None:
            await self._current()
            current = self.current_branch_id
        out = []
        for s in await self._sessions():
            stats = await self.client.session_stats(id=s["id"])
            branch = s["metadata"]["openai.branch"]
            out.append({"branch_id": branch, "message_count": stats["totals"]["messages"],
                        "user_turns": sum(1 for t in stats["turns"] if "userMessageId" in t),
                        "is_current": branch == current, "created_at": s["createdAt"], "workspace_session": s["id"]})
        return out

    async def delete_branch(self, branch_id: str, force: bool = False) -> None:
        """Deletes a branch's session; ``main`` never, the current branch only with ``force``
        (then ``main`` becomes current)."""
        if branch_id == MAIN:
            raise ValueError("Cannot delete the main branch")
        sid = await self._find(branch_id)
        if sid is None:
            raise ValueError(f"Branch '{branch_id}' does not exist")
        async with self._lock:
            if branch_id == self.current_branch_id:
                if not force:
                    raise ValueError(f"Cannot delete current branch '{branch_id}'. Use force=True or switch first")
                await self._point(MAIN)
            try:
                await self.client.session_delete(id=sid)
            except BridgeError as err:
                if err.data_code != "NotFound":
                    raise
            self._ids.pop(branch_id, None)
