#!/usr/bin/env python3
"""Issue 17's session targets through the real binary (ndjson framing), one JSON line per
measurement on stdout (Benchmarks/run.sh appends them to results.jsonl; report_lineage.py reads
them):

- fork: `session/fork {id}` of a 10,000-message session (the whole history), round trip;
- portable: `session/export {id, path}` + `session/import {path}` of it, round trips summed;
- recover_compacted: the session compacted through its 9,901st message (the summary and 99
  messages: 100 entries): a fresh
  server's `session/get` + `session/messages {limit: 1}` after `initialize` (spawn → initialize
  apart), each round a new server;
- prune: `session/setRetention {maxBytesPerSession: 1 MiB}` (which prunes at once) on another
  10,000-message session; the session's `bytesOnDisk` before and after, and the time.

Messages are ~200 bytes of content, appended 10 per `session/appendMessages` (1,000 journal
records), as the recovery benchmark does.

    session_lineage.py --rounds N [--stderr FILE] -- SERVER-COMMAND...

A failed call prints {"target": "server-lineage", "test": "lineage", "error": ...} and exits 1.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

MESSAGES = 10_000
BATCH = 10
MIB = 1 << 20


class Server:
    def __init__(self, argv: list[str], stderr):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, bufsize=0)
        self.next = 0
        self.buf = b""

    def call(self, method: str, params=None):
        self.next += 1
        msg = {"jsonrpc": "2.0", "id": self.next, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        while True:
            m = self.read_message(method)
            if m.get("id") == self.next:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]

    def read_message(self, waiting_for: str = "an answer") -> dict:
        """The next message the server writes (one NDJSON line)."""
        while b"\n" not in self.buf:
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                raise RuntimeError(f"{waiting_for}: the server closed its output")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def timed(self, method: str, params=None):
        t0 = time.perf_counter()
        r = self.call(method, params)
        return r, (time.perf_counter() - t0) * 1000

    def start(self):
        self.call("initialize", {"clientInfo": {"name": "session_lineage", "version": "1"}})
        self.p.stdin.write(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}\n')
        return self

    def stop(self):
        try:
            self.call("shutdown")
            self.p.stdin.write(b'{"jsonrpc": "2.0", "method": "exit"}\n')
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()
            self.p.wait()


def fill(s: Server, title: str) -> str:
    sid = s.call("session/create", {"title": title})["id"]
    for k in range(0, MESSAGES, BATCH):
        s.call("session/appendMessages", {"id": sid, "messages": [
            {"id": f"m{i}", "role": "user" if i % 2 else "assistant", "content": f"message {i} " + "x" * 186}
            for i in range(k, k + BATCH)]})
    return sid


def emit(test: str, **fields):
    print(json.dumps({"target": "server-lineage", "framing": "ndjson", "test": test, **fields}), flush=True)


def run_main(target: str, test: str, run, add_args=None) -> int:
    """Parses `--rounds N [--stderr FILE] [more] -- SERVER-COMMAND...`, calls run(a, argv, stderr),
    and reports an exception as one error line of `target` (also for session_list.py)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--stderr", default=os.devnull)
    if add_args:
        add_args(ap)
    ap.add_argument("server", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    argv = a.server[1:] if a.server[:1] == ["--"] else a.server
    stderr = open(a.stderr, "ab")
    try:
        return run(a, argv, stderr)
    except Exception as e:  # reported in the results, like bench_client's failed phases
        print(json.dumps({"target": target, "framing": "ndjson", "test": test, "error": str(e)[:500]}), flush=True)
        return 1


def main() -> int:
    return run_main("server-lineage", "lineage", run)


def run(a, argv, stderr) -> int:
    s = Server(argv, stderr).start()
    try:
        sid = fill(s, "lineage")
        for r in range(a.rounds):
            fork, ms = s.timed("session/fork", {"id": sid})
            emit("fork", round=r + 1, messages=MESSAGES, fork_ms=round(ms, 3))
            s.call("session/delete", {"id": fork["id"]})
        for r in range(a.rounds):
            out, ems = s.timed("session/export", {"id": sid, "path": f"Chats/bench-{r}.json"})
            imp, ims = s.timed("session/import", {"path": f"Chats/bench-{r}.json"})
            emit("portable", round=r + 1, messages=MESSAGES, file_bytes=out["bytes"], export_ms=round(ems, 3),
                 import_ms=round(ims, 3), total_ms=round(ems + ims, 3))
            s.call("session/delete", {"id": imp["session"]["id"]})
        s.call("session/compact", {"id": sid, "throughMessageId": f"m{MESSAGES - 100}", "summary": "the first 9,900 messages",
                                   "by": "bench"})
        shown = len(s.call("session/messages", {"id": sid, "limit": 10000})["messages"])
        big = fill(s, "prune")
        before = s.call("session/get", {"id": big})["bytesOnDisk"]
        res, pms = s.timed("session/setRetention", {"maxBytesPerSession": MIB})
        after = s.call("session/get", {"id": big})["bytesOnDisk"]
        emit("prune", messages=MESSAGES, limit_bytes=MIB, bytes_before=before, bytes_after=after, prune_ms=round(pms, 3),
             dropped_messages=sum(x["droppedMessages"] for x in res["pruned"]["sessions"]),
             last_kept=s.call("session/messages", {"id": big, "limit": 10000})["messages"][-1]["id"] == f"m{MESSAGES - 1}")
        s.call("session/setRetention", {})
    finally:
        s.stop()
    for r in range(a.rounds):
        t0 = time.perf_counter()
        s = Server(argv, stderr).start()
        init_ms = (time.perf_counter() - t0) * 1000
        try:
            t1 = time.perf_counter()
            s.call("session/get", {"id": sid})
            s.call("session/messages", {"id": sid, "limit": 1})
            total = (time.perf_counter() - t1) * 1000
        finally:
            s.stop()
        emit("recover_compacted", round=r + 1, messages=MESSAGES, entries=shown, init_ms=round(init_ms, 3),
             total_ms=round(total, 3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
