"""The report's "Sessions beyond the anchors" section (issue 17): the figures of
Benchmarks/session_lineage.py (target server-lineage) against the issue's targets."""
from __future__ import annotations

import statistics


def _rows(rows, test):
    return [r for r in rows if r.get("target") == "server-lineage" and r.get("test") == test and "error" not in r]


def _median(found, key):
    vals = [r[key] for r in found if isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def targets(rows):
    """(name, measured text, goal text, met) for each of issue 17's targets; [] when not run."""
    fork, port, rec, prune = (_rows(rows, t) for t in ("fork", "portable", "recover_compacted", "prune"))
    if not (fork or port or rec or prune):
        return []
    out = []
    fw = max((r["fork_ms"] for r in fork), default=None)
    out.append(("`session/fork` of a 10,000-message session (whole history), every round",
                "—" if fw is None else f"worst {fw:.1f} ms, median {_median(fork, 'fork_ms'):.1f} ms of {len(fork)}",
                "≤ 50 ms", None if fw is None else fw <= 50))
    pw = max((r["total_ms"] for r in port), default=None)
    out.append(("`session/export` + `session/import` of it, every round",
                "—" if pw is None else (f"worst {pw:.1f} ms, median {_median(port, 'total_ms'):.1f} ms "
                                        f"(export {_median(port, 'export_ms'):.1f} + import {_median(port, 'import_ms'):.1f}; "
                                        f"{port[0]['file_bytes'] / 1024:.0f} KiB file) of {len(port)}"),
                "≤ 200 ms", None if pw is None else pw <= 200))
    rw = max((r["total_ms"] for r in rec), default=None)
    out.append(("recovery of a 10,000-message session compacted to 100 entries: `session/get` + "
                "`session/messages {limit: 1}` in a fresh server, every restart",
                "—" if rw is None else (f"worst {rw:.2f} ms, median {_median(rec, 'total_ms'):.2f} ms of {len(rec)} "
                                        f"({rec[0]['entries']} entries; spawn → `initialize` {_median(rec, 'init_ms'):.1f} ms apart)"),
                "≤ 10 ms", None if rw is None else rw <= 10 and all(r["entries"] == 100 for r in rec)))
    p = prune[0] if prune else None
    out.append(("bytes on disk of a 10,000-message session after `session/setRetention {maxBytesPerSession: 1 MiB}` (prunes at once)",
                "—" if p is None else (f"{p['bytes_after'] / 1024:.0f} KiB (from {p['bytes_before'] / 1024:.0f} KiB, "
                                       f"{p['dropped_messages']:,} messages folded, in {p['prune_ms']:.0f} ms; last message kept: "
                                       f"{'yes' if p['last_kept'] else 'no'})"),
                "≤ 1,024 KiB", None if p is None else p["bytes_after"] <= p["limit_bytes"] and p["last_kept"]))
    return out


def section(rows, w, status_text):
    tg = targets(rows)
    errors = [r for r in rows if r.get("target") == "server-lineage" and "error" in r]
    if not tg and not errors:
        return tg
    w("## Sessions beyond the anchors")
    w("")
    w("Issue 17's targets through the real binary (`Benchmarks/session_lineage.py`, ndjson framing): one "
      "session of 10,000 messages of ~200 bytes, appended 10 per `session/appendMessages` (1,000 journal "
      "records), forked whole, exported to a workspace file and imported back, then compacted through its "
      "9,901st message and recovered by fresh servers; a second such session pruned to a 1 MiB limit.")
    w("")
    for e in errors:
        w(f"- **Failed**: {e.get('error')}")
    if errors:
        w("")
    target_table(tg, w, status_text)
    return tg


def target_table(tg, w, status_text):
    """The table of (name, measured, goal, met) targets, as every section of targets shows them."""
    w("| target | measured | goal | status |")
    w("| --- | --- | --- | --- |")
    for name, meas, goal, met in tg:
        w(f"| {name} | {meas} | {goal} | {status_text(met)} |")
    w("")
