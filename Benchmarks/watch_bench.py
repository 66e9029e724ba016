#!/usr/bin/env python3
"""Watching a tree, through the real binary (ndjson framing), beside `inotifywait -m -r`
(inotify-tools) on the same tree in the same run, alternating which goes first each round.
One JSON line per measurement on stdout (Benchmarks/run.sh appends them to results.jsonl;
report_watch.py reads them). These are the speeds the tests no longer assert:

- walk: a tree of N folders (10,000: 100 folders of 99; fewer with --folders) watched whole,
  `watchFiles {}` sent -> answered (the server answers after its initial walk), against
  inotifywait's start -> "Watches established.";
- latency: a file created in a deep folder -> its `workspace/didChangeFiles` (or inotifywait's
  line) read, 20 times, one at a time;
- burst: 5,000 files created in 100 folders as fast as Python can (each an inotify create,
  open and close: under the kernel's default queue of 16,384 events); the lag from the last
  create to the last of them reported, or to the overflow (`rescan`, inotifywait's
  Q_OVERFLOW) when events were lost, counted in `overflows`.

    watch_bench.py --bin WORKSPACE-BRIDGE --dir DIR [--folders N] [--rounds R] [--stderr FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import threading
import time

TARGET = "server-watch"
LATENCY_SAMPLES = 20
BURST_FILES = 5_000
OVERFLOW = "\0overflow"  # what paths() returns for lost events
GUARD = 120.0  # seconds; a watcher that misses events fails the phase instead of hanging the run


def emit(test: str, **fields):
    print(json.dumps({"target": TARGET, "framing": "ndjson", "test": test, **fields}), flush=True)


def make_tree(root: str, folders: int) -> list[str]:
    """`folders` folders: top-level ones holding 99 each (d0..d99/e0..e98 for 10,000)."""
    per = 99
    tops = max(1, folders // (per + 1))
    out = []
    for i in range(tops):
        top = f"d{i}"
        os.makedirs(os.path.join(root, top), exist_ok=True)
        out.append(top)
        for j in range(per):
            os.makedirs(os.path.join(root, top, f"e{j}"), exist_ok=True)
            out.append(f"{top}/e{j}")
    return out


class Lines:
    """Reads a pipe line by line with a deadline."""
    def __init__(self, fd: int):
        self.fd, self.buf = fd, b""

    def next(self, deadline: float) -> bytes:
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise RuntimeError("timed out waiting for the watcher")
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise RuntimeError("the watcher closed its output")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line


class ServerWatch:
    who = "server"

    def __init__(self, bin_path: str, root: str, cfg: str, stderr):
        self.p = subprocess.Popen([bin_path, "--local-root", root, "--config-dir", cfg], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr, bufsize=0)
        self.out = Lines(self.p.stdout.fileno())
        self.next_id = 0
        self.call("initialize", {"processId": None, "clientInfo": {"name": "watch_bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")

    def call(self, method, params=None):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        deadline = time.monotonic() + GUARD
        while True:
            m = json.loads(self.out.next(deadline))
            if m.get("id") == self.next_id and "method" not in m:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]

    def start(self) -> float:
        t0 = time.perf_counter()
        self.call("watchFiles", {})
        return (time.perf_counter() - t0) * 1000

    def paths(self, deadline: float) -> list[str]:
        """The paths of the next change notification."""
        while True:
            m = json.loads(self.out.next(deadline))
            if m.get("method") == "workspace/didChangeFiles":
                if m["params"].get("rescan"):
                    return [OVERFLOW]
                return [c["path"] for c in m["params"]["changes"]]

    def stop(self):
        try:
            self.call("shutdown")
            self.send({"jsonrpc": "2.0", "method": "exit"})
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()
            self.p.wait()


class InotifyWait:
    who = "inotifywait"

    def __init__(self, root: str):
        self.root = root.rstrip("/") + "/"
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(["inotifywait", "-m", "-r", "-e", "create,modify,delete,move", "--format", "%w%f",
                                   self.root], stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.out = Lines(self.p.stdout.fileno())
        self.err = Lines(self.p.stderr.fileno())

    def start(self) -> float:
        deadline = time.monotonic() + GUARD
        while b"Watches established" not in self.err.next(deadline):
            pass
        return (time.perf_counter() - self.t0) * 1000

    def paths(self, deadline: float) -> list[str]:
        line = os.fsdecode(self.out.next(deadline))
        return [OVERFLOW] if "Q_OVERFLOW" in line else [line[len(self.root):]]

    def stop(self):
        self.p.kill()
        self.p.wait()


def measure(w, root: str, folders: list[str], rnd: int, tag: str):
    walk_ms = w.start()
    emit("walk", who=w.who, round=rnd, folders=len(folders), walk_ms=round(walk_ms, 2),
         load=round(os.getloadavg()[0], 2))
    lat = []
    for k in range(LATENCY_SAMPLES):
        rel = f"{folders[-1 - (k * 97) % len(folders)]}/lat-{tag}-{k}.txt"
        t0 = time.perf_counter()
        with open(os.path.join(root, rel), "w") as f:
            f.write("x")
        deadline = time.monotonic() + GUARD
        while rel not in w.paths(deadline):
            pass
        lat.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.05)
    emit("latency", who=w.who, round=rnd, samples=len(lat), p50_ms=round(statistics.median(lat), 2),
         max_ms=round(max(lat), 2), load=round(os.getloadavg()[0], 2))
    names = [f"{folders[i % len(folders)]}/burst-{tag}-{i}" for i in range(BURST_FILES)]
    left = set(names)
    finished: list[float] = []
    failed: list[BaseException] = []
    overflows: list[float] = []

    def read():  # while the files are made: a server whose client stops reading disconnects it
        try:
            deadline = time.monotonic() + GUARD
            while left:
                got = w.paths(deadline)
                if OVERFLOW in got:
                    overflows.append(time.perf_counter())
                    break
                left.difference_update(got)
            finished.append(time.perf_counter())
        except BaseException as e:  # noqa: BLE001  (handed to the main thread)
            failed.append(e)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    t0 = time.perf_counter()
    for rel in names:
        os.close(os.open(os.path.join(root, rel), os.O_WRONLY | os.O_CREAT, 0o644))
    written = time.perf_counter()
    reader.join(GUARD + 10)
    if failed or not finished:
        raise RuntimeError(f"{w.who}: burst: {failed[0] if failed else 'not all reported'} ({len(left)} of {BURST_FILES} missing)")
    done = max(finished[0], written)
    emit("burst", who=w.who, round=rnd, files=BURST_FILES, written_ms=round((written - t0) * 1000, 1),
         lag_ms=round((done - written) * 1000, 1), overflows=len(overflows), reported=BURST_FILES - len(left),
         load=round(os.getloadavg()[0], 2))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--folders", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--stderr", default=os.devnull)
    a = ap.parse_args()
    if shutil.which("inotifywait") is None:
        print(json.dumps({"test": "skipped", "what": "the `inotifywait` baseline (file watching)",
                          "reason": "`inotifywait` is not installed (scripts/setup.sh --bench installs inotify-tools)",
                          "baseline": "inotifywait", "tool": "inotifywait"}), flush=True)
    stderr = open(a.stderr, "ab")
    try:
        for rnd in range(1, a.rounds + 1):
            order = ["server", "inotifywait"] if rnd % 2 else ["inotifywait", "server"]
            for who in order:
                if who == "inotifywait" and shutil.which("inotifywait") is None:
                    continue
                base = os.path.join(a.dir, f"{who}-{rnd}")
                shutil.rmtree(base, ignore_errors=True)
                root = os.path.join(base, "ws")
                folders = make_tree(root, a.folders)
                subprocess.run(["sync"], check=False)
                w = ServerWatch(a.bin, root, os.path.join(base, "cfg"), stderr) if who == "server" else InotifyWait(root)
                try:
                    measure(w, root, folders, rnd, who)
                finally:
                    w.stop()
                shutil.rmtree(base, ignore_errors=True)
        return 0
    except Exception as e:  # reported in the results, like the other drivers' failed phases
        print(json.dumps({"target": TARGET, "framing": "ndjson", "test": "watch", "error": str(e)[:500]}), flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
