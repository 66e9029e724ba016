"""The report's "Listing sessions from metadata" section (issue 25): the figures of
Benchmarks/session_list.py (target server-list) against the issue's target, each beside its
baseline from the same run (the same listing answered from the sessions' journals)."""
from __future__ import annotations

import statistics


def _rows(rows, test):
    return [r for r in rows if r.get("target") == "server-list" and r.get("test") == test and "error" not in r]


def _ms(found, first=None):
    vals = [r["list_ms"] for r in found if first is None or r.get("first") == first]
    return (statistics.median(vals), max(vals), len(vals)) if vals else None


def targets(rows):
    """(name, measured text, goal text, met) for issue 25's listing target; [] when not run."""
    warm, filt, cold, jour = (_rows(rows, t) for t in ("warm", "warm_filtered", "cold", "journals"))
    if not warm:
        return []
    n = warm[0]["sessions"]
    # The first list after the sessions were written refreshes their indexes (written once); the
    # target is the listing a running server answers, every round after that.
    steady = _ms(warm[1:] + cold[1:]) or _ms(warm)
    med, worst, count = steady
    cf, jf, js = _ms(cold, True), _ms(jour, True), _ms(jour, False)
    fl = _ms(filt)
    later = (warm[1:] + cold[1:]) or warm
    cpu = [r["cpu_ms"] for r in later if isinstance(r.get("cpu_ms"), (int, float))]
    load = max((r.get("load", 0) for r in later), default=0)
    meas = (f"worst {worst:.1f} ms, median {med:.1f} ms of {count} (first page of 50, sorted over all {n:,})"
            + (f"; the server's CPU time per list: median {statistics.median(cpu):.0f} ms (10 ms ticks), "
               f"load average up to {load:.1f} on this machine" if cpu else "")
            + (f"; metadata-filtered page of 1,000: median {fl[0]:.1f} ms" if fl else ""))
    base = ("—" if jf is None or cf is None else
            f"a fresh server's first list: {cf[0]:.0f} ms from the indexes, {jf[0]:.0f} ms from the journals "
            f"(baseline: every journal read, as before issue 25); later lists {js[0]:.1f} ms" if js else "")
    return [(f"`session/list` of {n:,} sessions from metadata, a running server", meas, "≤ 50 ms", worst <= 50, base)]


def section(rows, w, status_text):
    tg = targets(rows)
    errors = [r for r in rows if r.get("target") == "server-list" and "error" in r]
    if not tg and not errors:
        return []
    w("## Listing sessions from metadata")
    w("")
    w("Issue 25's target through the real binary (`Benchmarks/session_list.py`, ndjson framing): sessions "
      "with a title, metadata and three messages, created 50 pipelined at a time; `session/list {limit: 50}` "
      "answered by the server that made them (after its first list, which writes the indexes), then by fresh "
      "servers from each session's `listing.json`, and, as the baseline in the same run, from the journals "
      "once every `listing.json` is removed.")
    w("")
    for e in errors:
        w(f"- **Failed**: {e.get('error')}")
    if errors:
        w("")
    w("| target | measured | baseline (same run) | goal | status |")
    w("| --- | --- | --- | --- | --- |")
    for name, meas, goal, met, base in tg:
        w(f"| {name} | {meas} | {base} | {goal} | {status_text(met)} |")
    w("")
    return [(name, meas, goal, met) for name, meas, goal, met, base in tg]
