"""The ACP face's figures (issue 24), each beside a direct editor <-> agent connection measured
in the same run: `python3 Benchmarks/acp_bench.py [BINARY] [--json] [--quick]` prints a markdown
table, or with --json one result line per figure (target "server-acp", for Benchmarks/run.sh and
report_acp.py). --quick (WB_QUICK) scales every size down tenfold: for checking the machinery.

- added latency per forwarded session/update (p50, durability on): paced updates, 1 ms apart,
  send time in `_meta.t`, receive time at the editor; through the proxy minus direct;
- streaming rate: a burst of 20,000 updates, prompt sent -> answer received;
- session/load replay of a 10,000-update session (by a proxy that never opened it);
  session/list of 1,000 sessions (every page), cold and warm;
- proxy RSS (VmRSS) with 10 open sessions that each streamed 1,000 updates.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
JSON_OUT = "--json" in sys.argv
QUICK = "--quick" in sys.argv
BIN = Path(ARGS[0] if ARGS else HERE.parent / ".build/release/workspace-bridge")
SCALE = 10 if QUICK else 1
AGENT = [sys.executable, str(HERE / "acp_agent.py")]


class Peer:
    """The editor end of one stdio connection."""

    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next = 0

    def send(self, method, params):
        self.next += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}).encode() + b"\n")
        self.p.stdin.flush()
        return self.next

    def until_answer(self, rid, on_update=None):
        for line in self.p.stdout:
            m = json.loads(line)
            if m.get("id") == rid and "method" not in m:
                assert "error" not in m, m
                return m["result"]
            if on_update and m.get("method") == "session/update":
                on_update(m)
        raise RuntimeError("connection ended")

    def call(self, method, params, on_update=None):
        return self.until_answer(self.send(method, params), on_update)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def proxy(root):
    return Peer([str(BIN), "acp", "--local-root", str(root), "--config-dir", str(root) + "-config", "--", *AGENT])


def start(peer, cwd):
    peer.call("initialize", {"protocolVersion": 1})
    return peer.call("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]


def latency(peer, sid, n=1000 // SCALE):
    seen = []
    peer.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"paced {n}"}]},
              lambda m: seen.append(time.monotonic_ns() - m["params"]["update"]["_meta"]["t"]))
    return statistics.median(seen) / 1e6


def rate(peer, sid, n=20000 // SCALE):
    t = time.perf_counter()
    peer.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"burst {n}"}]})
    return n / (time.perf_counter() - t)


def rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main():
    rows = []  # (test, name, value text, target text, met, figures)
    big_n, small_n, sessions = 10000 // SCALE, 1000 // SCALE, 1000 // SCALE
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        direct = Peer(AGENT)
        dsid = start(direct, str(root))
        through = proxy(root)
        psid = start(through, str(root))
        lat_d, lat_p = latency(direct, dsid), latency(through, psid)
        rows.append(("latency", "added latency per session/update, p50 (durable)",
                     f"{lat_p - lat_d:.3f} ms (proxy {lat_p:.3f}, direct {lat_d:.3f})", "≤ 1 ms", lat_p - lat_d <= 1,
                     {"added_ms": lat_p - lat_d, "proxy_ms": lat_p, "direct_ms": lat_d}))
        rate_d, rate_p = rate(direct, dsid), rate(through, psid)
        rows.append(("rate", "streaming rate through the proxy", f"{rate_p:,.0f} updates/s (direct {rate_d:,.0f})",
                     "≥ 5,000/s", rate_p >= 5000, {"proxy_per_s": rate_p, "direct_per_s": rate_d}))
        # A big session, loaded by a fresh proxy.
        big = through.call("session/new", {"cwd": str(root), "mcpServers": []})["sessionId"]
        through.call("session/prompt", {"sessionId": big, "prompt": [{"type": "text", "text": f"burst {big_n}"}]})
        for _ in range(8):
            s = through.call("session/new", {"cwd": str(root), "mcpServers": []})["sessionId"]
            through.call("session/prompt", {"sessionId": s, "prompt": [{"type": "text", "text": f"burst {small_n}"}]})
        rss = rss_mib(through.p.pid)  # 10 open sessions
        rows.append(("rss", "proxy RSS with 10 open sessions", f"{rss:.1f} MiB", "≤ 32 MiB", rss <= 32, {"rss_mib": rss}))
        through.close()
        direct.close()
        again = proxy(root)
        again.call("initialize", {"protocolVersion": 1})
        count = [0]
        t = time.perf_counter()
        again.call("session/load", {"sessionId": big, "cwd": str(root), "mcpServers": []}, lambda m: count.__setitem__(0, count[0] + 1))
        load_ms = (time.perf_counter() - t) * 1000
        assert count[0] == big_n + 1, count  # the prompt and its updates
        rows.append(("load", f"session/load replay of {big_n:,} updates", f"{load_ms:.0f} ms", "≤ 200 ms" if not QUICK else "(quick run)",
                     load_ms <= 200, {"load_ms": load_ms, "updates": big_n}))
        for _ in range(sessions - 10):
            again.call("session/new", {"cwd": str(root), "mcpServers": []})
        # Cold: 9 of the sessions were never opened by this process; warm: the same list again.
        for label in ("cold", "warm"):
            t = time.perf_counter()
            cursor, listed = None, 0
            while True:
                page = again.call("session/list", {"cursor": cursor} if cursor else {})
                listed += len(page["sessions"])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            list_ms = (time.perf_counter() - t) * 1000
            assert listed == sessions, listed
            rows.append((f"list_{label}", f"session/list of {sessions:,} sessions, every page ({label})", f"{list_ms:.1f} ms",
                         "≤ 50 ms", list_ms <= 50, {"list_ms": list_ms, "sessions": sessions}))
        again.close()
    if JSON_OUT:
        for test, name, value, target, ok, figures in rows:
            print(json.dumps({"target": "server-acp", "test": test, "name": name, "value": value, "goal": target,
                              "met": ok, "quick": QUICK, **figures}))
        return
    print("| figure | value | target | status |\n| --- | --- | --- | --- |")
    for _, name, value, target, ok, _ in rows:
        print(f"| {name} | {value} | {target} | {'met' if ok else 'not met'} |")


if __name__ == "__main__":
    main()
