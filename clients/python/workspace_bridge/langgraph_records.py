"""How LangGraph checkpoints and writes are laid out as session messages (see ``langgraph.py``).

One session per LangGraph thread. Each checkpoint is one message and each pending write one
message, all of role ``system``; their ``metadata`` carries the keys below (so the server can
filter on them) and, for a checkpoint, every JSON-valued top-level key of the checkpoint's own
metadata (``source``, ``step``, ``run_id``…, for ``list(filter=...)`` and ``delete_for_runs``).
The exact Python values travel in ``content`` as the saver's serializer output (base64).
Message ids are derived from the LangGraph keys, so a repeated write is not stored twice.
"""
from __future__ import annotations

import base64
import json
from typing import Any, Mapping, Optional, Sequence

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple, PendingWrite, writes_sort_key
from langgraph.checkpoint.serde.base import SerializerProtocol

SAVER = "langgraph:saver"  # session metadata: marks a session holding a LangGraph thread
THREAD = "langgraph:thread_id"  # session metadata: the thread it holds
KIND = "langgraph:kind"  # message metadata: "checkpoint" or "write"
NS = "langgraph:ns"  # message metadata: the checkpoint namespace ("" for the root graph)
CID = "langgraph:checkpoint_id"  # message metadata: the checkpoint (of a write: the one it belongs to)
PARENT = "langgraph:parent_id"  # message metadata of a checkpoint: its parent checkpoint, if any
RESERVED_PREFIX = "langgraph:"
SAVER_VERSION = 1


def pack(typed: tuple[str, bytes]) -> dict[str, str]:
    """A serializer's ``(type, bytes)`` as JSON."""
    return {"type": typed[0], "data": base64.b64encode(typed[1]).decode("ascii")}


def unpack(serde: SerializerProtocol, packed: Mapping[str, str]) -> Any:
    """The value :func:`pack` stored."""
    return serde.loads_typed((packed["type"], base64.b64decode(packed["data"])))


def checkpoint_message_id(ns: str, checkpoint_id: str) -> str:
    return json.dumps(["c", ns, checkpoint_id], separators=(",", ":"))


def write_message_id(ns: str, checkpoint_id: str, task_id: str, idx: int) -> str:
    return json.dumps(["w", ns, checkpoint_id, task_id, idx], separators=(",", ":"))


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def filterable(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The top-level metadata keys the server can match exactly (JSON values, not reserved)."""
    return {k: v for k, v in metadata.items()
            if isinstance(k, str) and not k.startswith(RESERVED_PREFIX) and _is_json(v)}


def checkpoint_message(serde: SerializerProtocol, ns: str, checkpoint: Mapping[str, Any],
                       metadata: Mapping[str, Any], parent_id: Optional[str]) -> dict[str, Any]:
    """The message standing for one checkpoint."""
    meta = filterable(metadata)
    meta.update({KIND: "checkpoint", NS: ns, CID: checkpoint["id"]})
    if parent_id is not None:
        meta[PARENT] = parent_id
    return {"id": checkpoint_message_id(ns, checkpoint["id"]), "role": "system",
            "content": {"checkpoint": pack(serde.dumps_typed(checkpoint)),
                        "metadata": pack(serde.dumps_typed(dict(metadata)))},
            "metadata": meta}


def write_message(serde: SerializerProtocol, ns: str, checkpoint_id: str, task_id: str, task_path: str,
                  idx: int, channel: str, value: Any) -> dict[str, Any]:
    """The message standing for one pending write."""
    return {"id": write_message_id(ns, checkpoint_id, task_id, idx), "role": "system",
            "content": {"task_id": task_id, "task_path": task_path, "idx": idx, "channel": channel,
                        "value": pack(serde.dumps_typed(value))},
            "metadata": {KIND: "write", NS: ns, CID: checkpoint_id}}


def record(message: Mapping[str, Any]) -> dict[str, Any]:
    """A stored message as ``session/appendMessages`` takes it again (same id, content, metadata)."""
    return {k: message[k] for k in ("id", "role", "content", "metadata") if k in message}


def to_tuple(serde: SerializerProtocol, thread_id: str, checkpoint_msg: Mapping[str, Any],
             write_msgs: Sequence[Mapping[str, Any]]) -> CheckpointTuple:
    """A checkpoint message and its write messages as LangGraph's ``CheckpointTuple``.

    The writes come in ``writes_sort_key`` order (task path, task id, index), the order a
    super-step applies them in.
    """
    meta = checkpoint_msg["metadata"]
    ns, cid, parent = meta[NS], meta[CID], meta.get(PARENT)
    content = checkpoint_msg["content"]
    writes = sorted((m["content"] for m in write_msgs),
                    key=lambda w: writes_sort_key(w["task_path"], w["task_id"], w["idx"]))
    pending: list[PendingWrite] = [(w["task_id"], w["channel"], unpack(serde, w["value"])) for w in writes]
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": cid}}
    parent_config: Optional[RunnableConfig] = None
    if parent is not None:
        parent_config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": parent}}
    return CheckpointTuple(config=config, checkpoint=unpack(serde, content["checkpoint"]),
                           metadata=unpack(serde, content["metadata"]), parent_config=parent_config,
                           pending_writes=pending)
