"""The ACP face's figures (issue 24), each beside a direct editor <-> agent connection measured
in the same run: `python3 Benchmarks/acp_bench.py [BINARY]` prints a markdown table.

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
BIN = Path(sys.argv[1] if len(sys.argv) > 1 else HERE.parent / ".build/release/workspace-bridge")
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


def latency(peer, sid, n=1000):
    seen = []
    peer.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"paced {n}"}]},
              lambda m: seen.append(time.monotonic_ns() - m["params"]["update"]["_meta"]["t"]))
    return statistics.median(seen) / 1e6


def rate(peer, sid, n=20000):
    t = time.perf_counter()
    peer.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"burst {n}"}]})
    return n / (time.perf_counter() - t)


def rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        direct = Peer(AGENT)
        dsid = start(direct, str(root))
        through = proxy(root)
        psid = start(through, str(root))
        lat_d, lat_p = latency(direct, dsid), latency(through, psid)
        rows.append(("added latency per session/update, p50 (durable)", f"{lat_p - lat_d:.3f} ms (proxy {lat_p:.3f}, direct {lat_d:.3f})", "≤ 1 ms", lat_p - lat_d <= 1))
        rate_d, rate_p = rate(direct, dsid), rate(through, psid)
        rows.append(("streaming rate through the proxy", f"{rate_p:,.0f} updates/s (direct {rate_d:,.0f})", "≥ 5,000/s", rate_p >= 5000))
        # A 10,000-update session, loaded by a fresh proxy.
        big = through.call("session/new", {"cwd": str(root), "mcpServers": []})["sessionId"]
        through.call("session/prompt", {"sessionId": big, "prompt": [{"type": "text", "text": "burst 10000"}]})
        for _ in range(8):
            s = through.call("session/new", {"cwd": str(root), "mcpServers": []})["sessionId"]
            through.call("session/prompt", {"sessionId": s, "prompt": [{"type": "text", "text": "burst 1000"}]})
        rss = rss_mib(through.p.pid)  # 10 open sessions
        rows.append(("proxy RSS with 10 open sessions", f"{rss:.1f} MiB", "≤ 32 MiB", rss <= 32))
        through.close()
        direct.close()
        again = proxy(root)
        again.call("initialize", {"protocolVersion": 1})
        count = [0]
        t = time.perf_counter()
        again.call("session/load", {"sessionId": big, "cwd": str(root), "mcpServers": []}, lambda m: count.__setitem__(0, count[0] + 1))
        load_ms = (time.perf_counter() - t) * 1000
        assert count[0] == 10001, count  # the prompt and its 10,000 updates
        rows.append(("session/load replay of 10,000 updates", f"{load_ms:.0f} ms", "≤ 200 ms", load_ms <= 200))
        for _ in range(990):
            again.call("session/new", {"cwd": str(root), "mcpServers": []})
        # Cold: 9 of the sessions (1,000 and more updates each) were never opened by this process;
        # warm: the same list again.
        for label in ("cold: 9 sessions opened from disk", "warm"):
            t = time.perf_counter()
            cursor, listed = None, 0
            while True:
                page = again.call("session/list", {"cursor": cursor} if cursor else {})
                listed += len(page["sessions"])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            list_ms = (time.perf_counter() - t) * 1000
            assert listed == 1000, listed
            rows.append((f"session/list of 1,000 sessions, every page ({label})", f"{list_ms:.1f} ms", "≤ 50 ms", list_ms <= 50))
        again.close()
    print("| figure | value | target | status |\n| --- | --- | --- | --- |")
    for name, value, target, ok in rows:
        print(f"| {name} | {value} | {target} | {'met' if ok else 'not met'} |")


if __name__ == "__main__":
    main()
