#!/usr/bin/env python3
"""Issue 25's search target through the real binary (ndjson framing): `session/search` over
SESSIONS sessions x MESSAGES messages of ~200 bytes (1,000 x 1,000, about 200 MB, in a full run),
against `rg` over the same text exported as files (one file per session, one line per message),
on the same machine in the same run, both with a warm page cache. One JSON line per measurement
on stdout (Benchmarks/run.sh appends them to results.jsonl; report_search.py reads them).

The corpus is written through the protocol: `session/appendMessages` of 1,000 messages a call
(one journal record each, as a client importing history would), several sessions in flight at
once; the text files are written from the same strings.

Measured, each round (the first round of each is a warm-up, not reported):
- literal: a word in about 1 message in 1,000, case-insensitive (the default): `session/search
  {query, limit: 20}` (every hit counted and ranked, the best 20 returned) against
  `rg -i -n WORD DIR` (every matching line printed, to /dev/null);
- literal, caseSensitive: the same, `rg -n`;
- regex `zanzi\\w+r` over the first 10 sessions (`sessionIds`) against `rg -i -n` over their 10 files:
  a regular expression reads every record (no skipping), so it is measured on a slice.
- fresh server: the literal search once in a new server on the same folders (every journal
  loaded on the way), reported beside the warm figure.

    session_search.py --sessions N --messages N --rounds N --dir DIR [--stderr FILE] -- SERVER-COMMAND...

A failed call prints {"target": "server-search", "test": "search", "error": ...} and exits 1.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

import session_lineage  # Benchmarks/session_lineage.py: its Server

WORD = "zanzibar"
BATCH = 1000
IN_FLIGHT = 4


class Server(session_lineage.Server):
    """session_lineage's server, with requests in flight at once (`send`, then `wait`)."""

    def __init__(self, argv: list[str], stderr):
        super().__init__(argv, stderr)
        self.answers: dict[int, dict] = {}

    def send(self, method: str, params=None) -> int:
        self.next += 1
        msg = {"jsonrpc": "2.0", "id": self.next, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        return self.next

    def wait(self, rid: int):
        while rid not in self.answers:
            m = self.read_message(f"request {rid}")
            if "id" in m:
                self.answers[m["id"]] = m
        m = self.answers.pop(rid)
        if "error" in m:
            raise RuntimeError(f"request {rid}: {m['error']}")
        return m["result"]

    def call(self, method: str, params=None):
        return self.wait(self.send(method, params))


def vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(5000)]


def message_text(rng: random.Random, words: list[str], rare: bool) -> str:
    out = [rng.choice(words) for _ in range(33)]
    if rare:
        out[rng.randrange(len(out))] = WORD.capitalize() if rng.random() < 0.5 else WORD
    return " ".join(out)


def fill(s: Server, sessions: int, messages: int, text_dir: str) -> tuple[list[str], int, int]:
    """Creates the sessions and their messages; writes each session's text to TEXT_DIR/<id>.txt.
    Returns the ids, the bytes of text and how many messages hold the word."""
    rng = random.Random(25)
    words = vocabulary(rng)
    ids, total, rare = [], 0, 0
    pending: list[int] = []
    for k in range(sessions):
        sid = s.call("session/create", {"title": f"conversation {k}", "agentType": "bench"})["id"]
        ids.append(sid)
        lines = []
        for start in range(0, messages, BATCH):
            batch = []
            for i in range(start, min(messages, start + BATCH)):
                hit = rng.random() < 0.001
                rare += hit
                text = message_text(rng, words, hit)
                lines.append(text)
                batch.append({"id": f"m{i}", "role": "user" if i % 2 else "assistant", "content": text})
            pending.append(s.send("session/appendMessages", {"id": sid, "messages": batch}))
            while len(pending) >= IN_FLIGHT:
                s.wait(pending.pop(0))
        body = "\n".join(lines) + "\n"
        total += len(body.encode())
        with open(os.path.join(text_dir, f"{sid}.txt"), "w") as f:
            f.write(body)
    for rid in pending:
        s.wait(rid)
    return ids, total, rare


def emit(test: str, **fields):
    print(json.dumps({"target": "server-search", "framing": "ndjson", "test": test, **fields}), flush=True)


def timed(fn):
    t0 = time.perf_counter()
    r = fn()
    return r, (time.perf_counter() - t0) * 1000


def rg(args: list[str]) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(["rg", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"rg {args}: exit {p.returncode}: {p.stderr.decode()[:300]}")
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", required=True, help="where the exported text files go (removed at the end)")
    ap.add_argument("--stderr", default=os.devnull)
    ap.add_argument("server", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    argv = a.server[1:] if a.server[:1] == ["--"] else a.server
    stderr = open(a.stderr, "ab")
    text_dir = os.path.join(a.dir, "text")
    os.makedirs(text_dir, exist_ok=True)
    try:
        return run(a, argv, stderr, text_dir)
    except Exception as e:  # reported in the results, like the other phases' failures
        print(json.dumps({"target": "server-search", "framing": "ndjson", "test": "search", "error": str(e)[:500]}), flush=True)
        return 1
    finally:
        shutil.rmtree(text_dir, ignore_errors=True)


def run(a, argv, stderr, text_dir) -> int:
    have_rg = shutil.which("rg") is not None
    if not have_rg:
        emit("search_skipped", reason="rg is not installed (scripts/setup.sh --bench installs ripgrep)")
    s = Server(argv, stderr).start()
    try:
        (ids, text_bytes, rare), fill_ms = timed(lambda: fill(s, a.sessions, a.messages, text_dir))
        emit("corpus", sessions=a.sessions, messages=a.messages, text_bytes=text_bytes, rare_messages=rare,
             fill_ms=round(fill_ms, 1))
        slice_ids = ids[:10]
        slice_files = [os.path.join(text_dir, f"{i}.txt") for i in slice_ids]
        cases = [
            ("literal", {"query": WORD, "limit": 20}, ["-i", "-n", WORD, text_dir]),
            ("literal_case", {"query": WORD, "caseSensitive": True, "limit": 20}, ["-n", WORD, text_dir]),
            ("regex_slice", {"query": r"zanzi\w+r", "regex": True, "sessionIds": slice_ids, "limit": 20},
             ["-i", "-n", r"zanzi\w+r", *slice_files]),
        ]
        for name, params, rg_args in cases:
            for r in range(a.rounds + 1):  # round 0 warms the page cache and the server's sessions
                res, ms = timed(lambda: s.call("session/search", params))
                rg_ms = rg(rg_args) if have_rg else None
                if r == 0:
                    continue
                emit(name, round=r, search_ms=round(ms, 2), rg_ms=None if rg_ms is None else round(rg_ms, 2),
                     total_hits=res["totalHits"], sessions=res["sessionsSearched"],
                     text_bytes=text_bytes if name != "regex_slice" else sum(os.path.getsize(f) for f in slice_files))
    finally:
        s.stop()
    fresh = Server(argv, stderr).start()
    try:
        res, ms = timed(lambda: fresh.call("session/search", {"query": WORD, "limit": 20}))
        emit("fresh_server", search_ms=round(ms, 2), total_hits=res["totalHits"], sessions=res["sessionsSearched"])
    finally:
        fresh.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
