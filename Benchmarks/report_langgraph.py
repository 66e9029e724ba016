"""The report's "LangGraph checkpoint saver" section (issue 25): Benchmarks/langgraph_bench.py's
put + get_tuple round trips of workspace_bridge.langgraph beside langgraph-checkpoint-sqlite."""
from __future__ import annotations

import statistics

SAVERS = ("workspace-bridge", "sqlite-async", "sqlite-sync")


def _rows(rows):
    return [r for r in rows if r.get("target") == "langgraph" and r.get("test") == "put_get"]


def _median(found, saver, key):
    vals = [r[key] for r in found if r.get("saver") == saver and isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def targets(rows):
    """(name, measured text, goal text, met) for issue 25's LangGraph target; [] when not run."""
    found = [r for r in _rows(rows) if "error" not in r]
    ours, base = _median(found, "workspace-bridge", "mean_ms"), _median(found, "sqlite-async", "mean_ms")
    if ours is None or base is None:
        return []
    ratio = base / ours
    return [("LangGraph saver: `aput` + `aget_tuple` round trip, against `AsyncSqliteSaver` (equal durability: fsync per put)",
             f"{ratio:.2f}x (mean {ours:.3f} ms against {base:.3f} ms)", "≥ 1x", ratio >= 1)]


def section(rows, w, status_text):
    found = _rows(rows)
    if not found:
        return []
    tg = targets(rows)
    w("## LangGraph checkpoint saver")
    w("")
    w("Issue 25's target (`Benchmarks/langgraph_bench.py`): one `aput` of a new checkpoint (20 messages of "
      "200 bytes and a counter as channel values, both new each time) then one `aget_tuple` of the thread's "
      "latest, timed together, through `workspace_bridge.langgraph.WorkspaceBridgeSaver` (the Python client "
      "on the real binary, LSP framing) and through langgraph-checkpoint-sqlite's savers on the same "
      "checkpoints, in the same rounds (the order turns each round). Ratio: the SQLite saver's time over ours "
      "(above 1: ours is faster).")
    w("")
    errors = [r for r in found if "error" in r]
    for e in errors:
        w(f"- **Failed**: {e['error']}")
    if errors:
        w("")
    w("| saver | how it syncs | mean ms | of which `put` | of which `get_tuple` | p50 ms | p99 ms | round trips / s |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    ok = [r for r in found if "error" not in r]
    for saver in SAVERS:
        mine = [r for r in ok if r["saver"] == saver]
        if mine:
            part = [_median(ok, saver, k) for k in ("put_mean_ms", "get_mean_ms")]
            put_ms, get_ms = ("—" if v is None else f"{v:.3f}" for v in part)
            w(f"| {saver} | {mine[0]['syncs']} | {_median(ok, saver, 'mean_ms'):.3f} | {put_ms} | {get_ms} | "
              f"{_median(ok, saver, 'p50_ms'):.3f} | {_median(ok, saver, 'p99_ms'):.3f} | {_median(ok, saver, 'ops_per_s'):,.0f} |")
    w("")
    if tg:
        w("| target | measured | goal | status |")
        w("| --- | --- | --- | --- |")
        for name, meas, goal, met in tg:
            w(f"| {name} | {meas} | {goal} | {status_text(met)} |")
        sync = _median(ok, "sqlite-sync", "mean_ms")
        ours = _median(ok, "workspace-bridge", "mean_ms")
        if sync and ours:
            w("")
            w(f"Against the synchronous `SqliteSaver` (same thread, no hop to a worker thread): {sync / ours:.2f}x.")
        w("")
    return tg
