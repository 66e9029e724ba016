#!/usr/bin/env python3
"""Issue 25's LangGraph target: put + get_tuple round trips of the Python client's checkpoint
saver (workspace_bridge.langgraph, through the real binary) beside langgraph-checkpoint-sqlite's
savers, in the same run, on the same checkpoints, one JSON line per saver and round on stdout
(Benchmarks/run.sh appends them to results.jsonl; report_langgraph.py reads them).

Each operation is one `aput` of a new checkpoint (its parent the one before; a message list of
20 × 200 bytes and a counter as channel values, both channels new each time) then one
`aget_tuple` of the thread's latest checkpoint, timed together. Durability is equal:
- workspace-bridge: `put` returns once the server appended the record to the session's journal
  and fsync'ed it (an acknowledged checkpoint survives kill -9 and power loss);
- sqlite: the savers' own `setup()` (WAL journal) with `PRAGMA synchronous=FULL` (SQLite's
  default, set explicitly here): every commit fdatasyncs the WAL before `put` returns (strace
  counts one fdatasync per put, as it counts one fsync per put of ours).
`AsyncSqliteSaver` is the async API ours is compared with (the target); `SqliteSaver` (sync,
same thread) is reported too.

    langgraph_bench.py --bin WB_BIN --dir SCRATCH [--ops N] [--rounds R] [--stderr FILE]

A failure prints {"target": "langgraph", "test": "put_get", "error": ...} and exits 1.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clients" / "python"))

from langgraph.checkpoint.base.id import uuid6  # noqa: E402
from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver  # noqa: E402

from workspace_bridge import spawn  # noqa: E402
from workspace_bridge.langgraph import WorkspaceBridgeSaver  # noqa: E402

SYNCS = {
    "workspace-bridge": "journal append + fsync per put, before the answer",
    "sqlite-async": "AsyncSqliteSaver, WAL + synchronous=FULL: fdatasync of the WAL per put",
    "sqlite-sync": "SqliteSaver, WAL + synchronous=FULL: fdatasync of the WAL per put",
}


def checkpoints(n: int) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """n (checkpoint, metadata, new_versions), built once and given to every saver."""
    out = []
    for i in range(n):
        versions = {"messages": f"{i + 1:032}.0", "count": f"{i + 1:032}.0"}
        cp = {"v": 1, "id": str(uuid6(clock_seq=i)), "ts": datetime.now(timezone.utc).isoformat(),
              "channel_values": {"messages": [f"message {i}.{j} " + "x" * 190 for j in range(20)], "count": i},
              "channel_versions": versions, "versions_seen": {"agent": dict(versions)}, "pending_sends": [],
              "updated_channels": ["messages", "count"]}
        out.append((cp, {"source": "loop", "step": i, "parents": {}}, versions))
    return out


Times = list[tuple[float, float]]  # (put, get_tuple) seconds, one per operation


async def run_async(saver: Any, data: list, thread: str) -> Times:
    times = []
    config: dict[str, Any] = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    latest = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    for cp, md, nv in data:
        t0 = time.perf_counter()
        config = await saver.aput(config, cp, md, nv)
        t1 = time.perf_counter()
        got = await saver.aget_tuple(latest)
        times.append((t1 - t0, time.perf_counter() - t1))
        assert got is not None and got.checkpoint["id"] == cp["id"]
    return times


def run_sync(saver: Any, data: list, thread: str) -> Times:
    times = []
    config: dict[str, Any] = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    latest = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    for cp, md, nv in data:
        t0 = time.perf_counter()
        config = saver.put(config, cp, md, nv)
        t1 = time.perf_counter()
        got = saver.get_tuple(latest)
        times.append((t1 - t0, time.perf_counter() - t1))
        assert got is not None and got.checkpoint["id"] == cp["id"]
    return times


async def ours(args, data, scratch: Path, stderr) -> Times:
    client = await spawn(binary=args.bin, local_root=scratch / "local", config_dir=scratch / "cfg", stderr=stderr)
    try:
        saver = WorkspaceBridgeSaver(client)
        await run_async(saver, data[:5], "warmup")
        return await run_async(saver, data, "bench")
    finally:
        await client.close()


async def sqlite_async(data, scratch: Path) -> Times:
    async with AsyncSqliteSaver.from_conn_string(str(scratch / "async.sqlite")) as saver:
        await saver.setup()
        await saver.conn.execute("PRAGMA synchronous=FULL")
        await run_async(saver, data[:5], "warmup")
        return await run_async(saver, data, "bench")


def sqlite_sync(data, scratch: Path) -> Times:
    conn = sqlite3.connect(str(scratch / "sync.sqlite"), check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        conn.execute("PRAGMA synchronous=FULL")
        run_sync(saver, data[:5], "warmup")
        return run_sync(saver, data, "bench")
    finally:
        conn.close()


def line(saver: str, rnd: int, times: Times) -> dict[str, Any]:
    ms = sorted((p + g) * 1e3 for p, g in times)
    return {"target": "langgraph", "test": "put_get", "saver": saver, "round": rnd, "ops": len(ms),
            "p50_ms": statistics.median(ms), "p99_ms": ms[min(len(ms) - 1, int(len(ms) * 0.99))],
            "mean_ms": statistics.fmean(ms), "ops_per_s": len(ms) / (sum(ms) / 1e3),
            "put_mean_ms": statistics.fmean(p * 1e3 for p, _ in times),
            "get_mean_ms": statistics.fmean(g * 1e3 for _, g in times), "syncs": SYNCS[saver]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--stderr")
    args = ap.parse_args()
    stderr = open(args.stderr, "ab") if args.stderr else None
    data = checkpoints(args.ops)
    try:
        for rnd in range(1, args.rounds + 1):
            scratch = Path(args.dir) / f"round{rnd}"
            scratch.mkdir(parents=True, exist_ok=True)
            # the order turns each round, so no saver always runs on the warmest machine
            runs = [("workspace-bridge", lambda: asyncio.run(ours(args, data, scratch, stderr))),
                    ("sqlite-async", lambda: asyncio.run(sqlite_async(data, scratch))),
                    ("sqlite-sync", lambda: sqlite_sync(data, scratch))]
            for name, run in runs[rnd % 3:] + runs[:rnd % 3]:
                print(json.dumps(line(name, rnd, run())), flush=True)
    except Exception as e:  # noqa: BLE001  (reported as the phase's failure)
        print(json.dumps({"target": "langgraph", "test": "put_get", "error": f"{type(e).__name__}: {e}"}), flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
