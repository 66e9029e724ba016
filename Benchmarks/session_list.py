#!/usr/bin/env python3
"""Issue 25's listing target through the real binary (ndjson framing), one JSON line per
measurement on stdout (Benchmarks/run.sh appends them to results.jsonl; report_list.py reads
them): `session/list` of N sessions (10,000; 1,000 with --quick) answered from metadata, beside
its baseline in the same run, the same listing answered from the journals.

- warm: the server that created them, `session/list {limit: 50}` (the first page of all N,
  sorted and filtered over all) and `session/list {metadata: {bench: "odd"}, limit: 1000}`;
- cold: a fresh server's first `session/list {limit: 50}` (it reads every session's
  listing.json), then its later ones;
- journals (baseline): the same after every listing.json is removed, so each session is read
  from its journal (what `session/list` did before issue 25), then the index written again.

Each list row also has the server's CPU time for it (`cpu_ms`, clock ticks of /proc/<pid>/stat:
10 ms granularity) and the machine's load average: on a loaded machine the wall time says more
about the other processes than about the list.

Sessions have a title, metadata and 3 messages each, created 50 pipelined at a time.

    session_list.py --sessions N --rounds R [--stderr FILE] -- SERVER-COMMAND...
"""
from __future__ import annotations

import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session_lineage import Server, run_main  # noqa: E402  (the same ndjson driver)


def emit(test: str, **fields):
    print(json.dumps({"target": "server-list", "framing": "ndjson", "test": test, **fields}), flush=True)


def pipelined(s: Server, calls):
    """Sends every call in one write and reads every answer (in any order)."""
    ids = []
    data = b""
    for method, params in calls:
        s.next += 1
        ids.append(s.next)
        data += json.dumps({"jsonrpc": "2.0", "id": s.next, "method": method, "params": params}).encode() + b"\n"
    s.p.stdin.write(data)
    want, got = set(ids), {}
    while want:
        m = s.read_message()
        if m.get("id") in want:
            if "error" in m:
                raise RuntimeError(f"{m['error']}")
            want.discard(m["id"])
            got[m["id"]] = m["result"]
    return [got[i] for i in ids]


def cpu_ms(s: Server) -> float:
    """The server's CPU time so far (user + system, /proc/<pid>/stat), which other load on the
    machine does not inflate as it does the wall time."""
    with open(f"/proc/{s.p.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def lists(s: Server, rounds: int, n: int, test: str, first_cold: bool):
    for r in range(rounds):
        c0 = cpu_ms(s)
        page, ms = s.timed("session/list", {"limit": 50})
        assert len(page["sessions"]) == 50 and "nextCursor" in page, page.keys()
        emit(test, round=r + 1, sessions=n, first=first_cold and r == 0, list_ms=round(ms, 3),
             cpu_ms=round(cpu_ms(s) - c0, 1), load=round(os.getloadavg()[0], 2))


def main() -> int:
    def more(ap):
        ap.add_argument("--sessions", type=int, default=10_000)
        ap.add_argument("--root", required=True, help="the server's workspace root (its listing.json files are removed)")
    return run_main("server-list", "list", run, more)


def run(a, argv, stderr) -> int:
    n = a.sessions
    s = Server(argv, stderr).start()
    try:
        t0 = time.perf_counter()
        for k in range(0, n, 50):
            made = pipelined(s, [("session/create", {"title": f"chat {i}", "agentType": "bench",
                                                     "metadata": {"bench": "odd" if i % 2 else "even", "i": i}})
                                 for i in range(k, min(n, k + 50))])
            pipelined(s, [("session/appendMessages", {"id": m["id"], "messages": [
                {"role": "user", "content": "hello " * 20}, {"role": "assistant", "content": "hi " * 40},
                {"role": "user", "content": "thanks"}]}) for m in made])
        emit("fill", sessions=n, fill_s=round(time.perf_counter() - t0, 1))
        lists(s, a.rounds, n, "warm", False)
        for r in range(a.rounds):
            page, ms = s.timed("session/list", {"metadata": {"bench": "odd"}, "limit": 1000})
            assert len(page["sessions"]) == min(1000, n // 2)
            emit("warm_filtered", round=r + 1, sessions=n, list_ms=round(ms, 3))
    finally:
        s.stop()
    for test, drop in (("cold", False), ("journals", True)):
        if drop:
            for f in glob.glob(os.path.join(a.root, ".workspace", "sessions", "*", "listing.json")):
                os.unlink(f)
        s = Server(argv, stderr).start()
        try:
            lists(s, a.rounds, n, test, True)
        finally:
            s.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
