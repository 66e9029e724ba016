#!/usr/bin/env python3
"""A scripted tour: starts the real server and prints a real exchange with it.

Usage: tour.py [path/to/workspace-bridge]

It speaks the LSP base protocol (Content-Length framing) the way an editor would, shows
requests (→), responses and notifications (←), then the same server answering
newline-delimited JSON the way a shell script would. Nothing here is canned: every
line printed after ← came from the server. Each section reads everything its own requests
cause (answers, progress, traces) before the next begins, so what a section prints is its own:
tracing is off but for the one section that turns it on and reads the traces it asked for
(Tests/e2e/test_demo.py checks this, and that the tour exits 0).
"""
import json
import os
import subprocess
import sys
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else ".build/release/workspace-bridge"


class LSPClient:
    def __init__(self, args):
        self.p = subprocess.Popen([BIN, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 1

    def send(self, msg):
        body = json.dumps(msg).encode()
        print(f"→ {json.dumps(msg)}")
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        msg = json.loads(self.p.stdout.read(length))
        text = json.dumps(msg)
        print(f"← {text if len(text) < 400 else text[:400] + ' …'}")
        return msg

    def read_quietly(self):
        """One message, not printed (the timed loop)."""
        header = self.p.stdout.readline()
        name, _, value = header.decode().partition(":")
        if name.lower() != "content-length":
            raise SystemExit(f"expected a Content-Length header, read {header!r}")
        self.p.stdout.readline()
        return json.loads(self.p.stdout.read(int(value)))

    def request(self, method, params=None):
        """Sends a request and returns its answer; anything else arriving first is printed too
        (a clean section has nothing else: the e2e test checks it)."""
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.next_id += 1
        self.send(msg)
        return self.read_until(lambda m: isinstance(m, dict) and m.get("id") == msg["id"] and "method" not in m)

    def read_until(self, done):
        while True:
            msg = self.read()
            if done(msg):
                return msg

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)


def section(title):
    print(f"\n== {title}")


def main():
    version = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"workspace-bridge {version}: a tour over stdio JSON-RPC 2.0")

    section("An editor starts the server and initializes it (LSP framing)")
    started = time.perf_counter()
    c = LSPClient(["--log-level", "warning", "--enable-debug-methods"])
    # Tracing off: with it on, every message handled is followed by a `$/logTrace` (see the
    # tracing section, which turns it on for one request and reads what it sends).
    init = c.request("initialize", {"processId": os.getpid(), "clientInfo": {"name": "tour"}, "trace": "off"})
    print(f"   (answered {1000 * (time.perf_counter() - started):.1f} ms after spawn)")
    methods = init["result"]["capabilities"]["methods"]
    c.notify("initialized", {})

    root = init["result"]["capabilities"]["workspace"]["root"]
    section(f"The workspace (the embedded default: {root})")
    c.request("listFiles", {"path": ""})
    day = time.strftime("%Y-%m-%d")
    saved = c.request("saveFile", {"path": f"Journal/user/{day}.md",
                                   "data": f"# {day}\n\nStarted the tour. The bridge keeps files crash-safe.\n"})
    c.request("appendFile", {"path": f"Journal/agent/{day}.md", "data": "- Observed: the user ran the tour.\n"})
    c.request("loadFile", {"path": f"Journal/user/{day}.md"})
    section("A save that would overwrite someone else's change is refused (ifMatch)")
    c.request("saveFile", {"path": f"Journal/user/{day}.md", "data": "stale edit", "ifMatch": "0000000000000000"})
    c.request("saveFile", {"path": f"Journal/user/{day}.md", "ifMatch": saved["result"]["etag"],
                           "data": f"# {day}\n\nStarted the tour. The bridge keeps files crash-safe.\nEdited once.\n"})
    section("Content search, and a file's SHA-256")
    c.request("searchFiles", {"query": "crash-safe"})
    c.request("getFileInfo", {"path": "context.md", "hash": "sha256"})
    section("Paths can never leave the workspace")
    c.request("loadFile", {"path": "../../etc/passwd"})
    c.request("loadFile", {"path": "/etc/passwd"})

    section("An agent session: durable steps, a tool call with the user's powers, a budget")
    sid = c.request("session/create", {"title": "Tour agent", "config": {"modelTier": "fast", "maxCostUSD": 0.5}})["result"]["id"]
    c.request("session/transition", {"id": sid, "to": "running"})
    c.request("session/appendMessages", {"id": sid, "messages": [{"id": "m1", "role": "user", "content": "Note what I did today."}]})
    c.request("session/callTool", {"id": sid, "toolCallId": "call-1", "name": "append_journal",
                                    "arguments": {"entry": "The user took the WorkspaceBridge tour."}})
    c.request("session/callTool", {"id": sid, "toolCallId": "call-1", "name": "append_journal",
                                    "arguments": {"entry": "The user took the WorkspaceBridge tour."}})
    print("   (the same toolCallId again: the recorded result, the tool did not run twice)")
    c.request("session/recordUsage", {"id": sid, "inputTokens": 1200, "outputTokens": 300})
    c.request("host/didEnterBackground", {})

    section("Tracing, asked for: each message handled is reported after its answer")
    c.notify("$/setTrace", {"value": "messages"})
    c.send({"jsonrpc": "2.0", "id": "traced", "method": "ping"})
    # Two traces follow: one for `$/setTrace` itself (traced at the level it sets) and one for
    # the ping, after its answer; `off` is not traced, so nothing follows the section.
    seen = {"answer": False, "traces": 0}

    def traced(m):
        seen["answer"] |= m.get("id") == "traced"
        seen["traces"] += m.get("method") == "$/logTrace"
        return seen["answer"] and seen["traces"] == 2
    c.read_until(traced)
    c.notify("$/setTrace", {"value": "off"})
    c.request("ping")

    section("A trivial request, timed over 1,000 round trips")
    answers = 0
    t = time.perf_counter()
    for i in range(1000):
        body = json.dumps({"jsonrpc": "2.0", "id": f"p{i}", "method": "ping"}).encode()
        c.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        c.p.stdin.flush()
        reply = c.read_quietly()
        if reply.get("id") != f"p{i}" or "result" not in reply:
            raise SystemExit(f"ping p{i} was answered with {json.dumps(reply)}")
        answers += 1
    elapsed = time.perf_counter() - t
    print(f"   1,000 pings: {answers:,} answers, {1e6 * elapsed / answers:.0f} µs per round trip (Python client included)")

    section("Errors are typed: bad params name the field, unknown methods are refused")
    c.request("debug/sleep", {"ms": "soon"})
    c.request("workspace/teleport", {})

    section("Long work reports progress and can be cancelled; other work is not held up")
    c.send({"jsonrpc": "2.0", "id": "long", "method": "debug/sleep",
            "params": {"ms": 5000, "key": "a", "workDoneToken": "tour-1"}})
    c.read_until(lambda m: m.get("method") == "$/progress")  # begin
    c.request("ping")
    c.notify("$/cancelRequest", {"id": "long"})
    c.read_until(lambda m: m.get("id") == "long" and "method" not in m)

    section("A batch is answered as one array")
    c.send([{"jsonrpc": "2.0", "id": "b1", "method": "ping"},
            {"jsonrpc": "2.0", "id": "b2", "method": "debug/echo", "params": {"value": "héllo ✓"}},
            {"jsonrpc": "2.0", "method": "initialized"}])
    c.read_until(lambda m: isinstance(m, list))

    section("Shutdown and exit")
    c.request("shutdown")
    c.notify("exit")
    print(f"   server exited with status {c.p.wait(timeout=120)}")

    section("The same server from a shell script (newline-delimited JSON)")
    lines = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'
             '{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    print("$ printf '%s\\n' " + " ".join(f"'{line}'" for line in lines.splitlines()) + " | workspace-bridge")
    # The timeout is a hang guard only (this answers in milliseconds).
    out = subprocess.run([BIN], input=lines, capture_output=True, text=True, timeout=120).stdout
    for line in out.splitlines():
        print(f"← {line[:200]}{' …' if len(line) > 200 else ''}")
    print(f"\nMethods offered: {', '.join(m for m in methods if not m.startswith('debug/'))}")


if __name__ == "__main__":
    main()
