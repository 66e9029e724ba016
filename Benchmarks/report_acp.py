"""The report's "ACP face" section (issue 24): the figures of Benchmarks/acp_bench.py (target
server-acp), each measured beside a direct editor <-> agent connection in the same run."""
from __future__ import annotations


def section(rows, w, status_text):
    found = [r for r in rows if r.get("target") == "server-acp"]
    if not found:
        return []
    w("## ACP face")
    w("")
    w("Issue 24's targets through `workspace-bridge acp` (`Benchmarks/acp_bench.py`): a raw NDJSON agent "
      "(`Benchmarks/acp_agent.py`) behind the proxy, and the same agent spoken to directly in the same run "
      "for the latency and rate baselines; durability on (every update journaled, group commit, before it "
      "is shown).")
    w("")
    for e in found:
        if "error" in e:
            w(f"- **Failed**: {e['error']}")
    w("| target | measured | goal | status |")
    w("| --- | --- | --- | --- |")
    out = []
    for r in found:
        if "error" in r:
            continue
        met = r.get("met")
        status = "quick run: not a figure" if r.get("quick") else status_text(met)
        w(f"| {r['name']} | {r['value']} | {r['goal']} | {status} |")
        out.append((r["name"], r["value"], r["goal"], met))
    w("")
    return out
