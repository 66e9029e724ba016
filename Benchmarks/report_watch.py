"""The report's "Watching a tree" section: the figures of Benchmarks/watch_bench.py (target
server-watch), each beside `inotifywait -m -r` on the same tree in the same run. These are the
speeds the tests once asserted (a walk of 10,000 folders under 600 ms, a change reported within
500 ms, a burst reported within 2 s of its last write); here they are targets, judged on the
medians of the rounds."""
from __future__ import annotations

import statistics


def _rows(rows, test, who):
    return [r for r in rows if r.get("target") == "server-watch" and r.get("test") == test
            and r.get("who") == who and "error" not in r]


def _median(found, key):
    vals = [r[key] for r in found if isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def targets(rows, baseline_missing):
    """(name, measured text, baseline text, goal text, met) per target; [] when not run."""
    walk = _rows(rows, "walk", "server")
    if not walk:
        return []
    n = walk[0]["folders"]
    out = []
    phases = [("walk", "walk_ms", f"`watchFiles` of a tree of {n:,} folders (its initial walk)", 600, "≤ 600 ms"),
              ("latency", "p50_ms", "a file created -> its `workspace/didChangeFiles`, median of 20", 500, "≤ 500 ms"),
              ("burst", "lag_ms", "5,000 files created in 100 folders: the last reported after the last create",
               2000, "≤ 2 s")]
    for test, key, name, goal, goal_text in phases:
        ours = _median(_rows(rows, test, "server"), key)
        if ours is None:
            continue
        theirs = _median(_rows(rows, test, "inotifywait"), key)
        if theirs is None:
            base = f"inotifywait: not measured ({baseline_missing})" if baseline_missing else "inotifywait: not measured"
        else:
            base = f"inotifywait {theirs:.1f} ms" + (f" ({ours / theirs:.2f}x)" if theirs > 0 else "")
        extra = ""
        if test == "burst":
            lost = sum(r.get("overflows", 0) for r in _rows(rows, test, "server"))
            extra = f" ({lost} of {len(_rows(rows, test, 'server'))} rounds overflowed)" if lost else ""
        if test == "latency":
            worst = max(r["max_ms"] for r in _rows(rows, test, "server"))
            extra = f" (worst {worst:.1f} ms)"
        out.append((name, f"{ours:.1f} ms{extra}", base, goal_text, ours <= goal))
    return out


def section(rows, w, status_text):
    missing = next((r.get("reason") for r in rows if r.get("test") == "skipped" and r.get("tool") == "inotifywait"), "")
    tg = targets(rows, missing)
    errors = [r for r in rows if r.get("target") == "server-watch" and "error" in r]
    if not tg and not errors:
        return []
    w("## Watching a tree")
    w("")
    w("`Benchmarks/watch_bench.py`: a fresh server per round (`--local-root` on the tree, ndjson framing) and, "
      "as the baseline in the same round, `inotifywait -m -r` (inotify-tools) on a tree of its own made the same "
      "way, the order alternating between rounds; medians of the rounds. The walk is `watchFiles {}` sent -> "
      "answered against inotifywait's start -> `Watches established.`; a latency is one file created in a deep "
      "folder -> the notification naming it read. The load average of each phase is in the results.")
    w("")
    for e in errors:
        w(f"- **Failed**: {e.get('error')}")
    if errors:
        w("")
    if tg:
        w("| target | measured | baseline (same run) | goal | status |")
        w("| --- | --- | --- | --- | --- |")
        for name, meas, base, goal, met in tg:
            w(f"| {name} | {meas} | {base} | {goal} | {status_text(met)} |")
        w("")
    return [(name, meas, goal, met) for name, meas, base, goal, met in tg]
