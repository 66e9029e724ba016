"""The ACP proxy as a JSON-RPC peer on both sides, through the real binary, with a raw NDJSON
editor (threads: one writes, one reads) and a raw agent that writes without reading
(acp_agents/hostile_agent.py): neither side's full pipe stalls the other direction, and the
JSON-RPC rules (ids, limits, invalid input) hold on the editor's side and the agent's."""
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from acp_helpers import AGENTS, root  # noqa: F401

GUARD = 120  # seconds: a hang guard, far above the expected time


class RawEditor:
    """`workspace-bridge acp` with the hostile agent; `lines` receives every message it writes."""

    def __init__(self, binary, root, tmp, *options):
        self.proc = subprocess.Popen(
            [str(binary), "acp", "--local-root", str(root), "--config-dir", str(Path(tmp) / "config"), "--no-mcp",
             *options, "--", sys.executable, str(AGENTS / "hostile_agent.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        self.updates = 0
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self.stderr_reader.start()
        self.next_id = 100

    def _read(self):
        for line in self.proc.stdout:
            m = json.loads(line)
            if m.get("method") == "session/update":
                self.updates += 1  # counted, not queued: 20,000 of them
            else:
                self.lines.put(m)
        self.lines.put(None)

    def _drain_stderr(self):
        self.stderr = self.proc.stderr.read()

    def write(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        self.write(json.dumps(message).encode() + b"\n")

    def request(self, method, params, id=None):
        if id is None:
            self.next_id += 1
            id = self.next_id
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        return id

    def answer(self, id):
        """The next message answering `id` (other messages before it are kept in `seen`)."""
        while True:
            m = self.lines.get(timeout=GUARD)
            assert m is not None, f"the proxy ended before answering {id}: {self.stderr[-2000:]!r}"
            if m.get("id") == id and "method" not in m:
                return m

    def start(self, root):
        assert "result" in self.answer(self.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}}))
        r = self.answer(self.request("session/new", {"cwd": str(root), "mcpServers": []}))
        return r["result"]["sessionId"]

    def finish(self):
        """Ends the editor's input; the proxy must then end by itself."""
        self.proc.stdin.close()
        assert self.proc.wait(timeout=GUARD) == 0
        self.stderr_reader.join(GUARD)


def prompt(text, sid):
    return {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}


def test_an_editor_burst_while_the_agent_writes_without_reading_goes_through(binary, root, tmp_path):
    e = RawEditor(binary, root, tmp_path)
    sid = e.start(root)
    pid = e.request("session/prompt", prompt("flood 20000", sid))
    burst = b"".join(json.dumps({"jsonrpc": "2.0", "method": "_burst/note", "params": {"n": i, "pad": "." * 80}}).encode() + b"\n"
                     for i in range(20000))
    writer = threading.Thread(target=e.write, args=(burst,), daemon=True)
    writer.start()
    assert e.answer(pid)["result"]["stopReason"] == "end_turn"
    writer.join(GUARD)
    assert not writer.is_alive()
    counted = e.answer(e.request("_burst/count", {}))["result"]
    assert counted["notes"] == 20000
    assert e.updates == 20000
    e.finish()


def test_one_large_editor_message_while_the_agent_streams_goes_through(binary, root, tmp_path):
    e = RawEditor(binary, root, tmp_path)
    sid = e.start(root)
    pid = e.request("session/prompt", prompt("flood 20000", sid))
    big = json.dumps({"jsonrpc": "2.0", "method": "_burst/note", "params": {"pad": "x" * (512 << 10)}}).encode() + b"\n"
    writer = threading.Thread(target=e.write, args=(big,), daemon=True)
    writer.start()
    assert e.answer(pid)["result"]["stopReason"] == "end_turn"
    writer.join(GUARD)
    counted = e.answer(e.request("_burst/count", {}))["result"]
    assert counted["notes"] == 1 and counted["noteBytes"] > 512 << 10
    assert e.updates == 20000
    e.finish()


@pytest.mark.parametrize("line", [b'{"jsonrpc": "2.0", "id": 1.5, "method": "session/list"}', b'[1]', b'"hello"',
                                  b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "x"}'])
def test_an_invalid_editor_message_is_answered_with_a_null_id(binary, root, tmp_path, line):
    e = RawEditor(binary, root, tmp_path)
    e.start(root)
    e.write(line + b"\n")
    m = e.lines.get(timeout=GUARD)
    assert m["id"] is None
    assert m["error"]["code"] == -32600 and m["error"]["data"]["code"] == "InvalidRequest"
    # The proxy keeps serving.
    assert "result" in e.answer(e.request("session/list", {}))
    e.finish()


def test_an_oversize_editor_line_is_answered_message_too_large(binary, root, tmp_path):
    e = RawEditor(binary, root, tmp_path, "--max-message-bytes", "65536")
    e.start(root)
    e.send({"jsonrpc": "2.0", "id": 9, "method": "session/list", "params": {"pad": "y" * 100_000}})
    m = e.lines.get(timeout=GUARD)
    assert m["id"] is None
    assert m["error"]["code"] == -32600
    assert m["error"]["data"]["code"] == "MessageTooLarge" and m["error"]["data"]["limit"] == 65536
    assert "tooLarge(" not in m["error"]["message"] and "size:" not in m["error"]["message"]
    assert "result" in e.answer(e.request("session/list", {}))
    e.finish()


def test_a_duplicate_in_flight_editor_id_is_refused_and_not_forwarded(binary, root, tmp_path):
    e = RawEditor(binary, root, tmp_path)
    e.start(root)
    e.request("_burst/hold", {}, id=7)
    e.request("_burst/hold", {}, id=7)
    refused = e.answer(7)
    assert refused["error"]["data"]["code"] == "DuplicateRequestId"
    assert e.answer(e.request("_burst/count", {}))["result"]["holds"] == 1
    e.send({"jsonrpc": "2.0", "method": "_burst/release", "params": {}})
    assert e.answer(7)["result"] == {"released": True}
    # Answered, the id is free again.
    e.request("_burst/hold", {}, id=7)
    assert e.answer(e.request("_burst/count", {}))["result"]["holds"] == 2
    e.send({"jsonrpc": "2.0", "method": "_burst/release", "params": {}})
    assert e.answer(7)["result"] == {"released": True}
    e.finish()


def test_an_agent_answer_over_the_limit_fails_the_editors_request(binary, root, tmp_path):
    e = RawEditor(binary, root, tmp_path, "--max-message-bytes", "65536")
    e.start(root)
    m = e.answer(e.request("_big/answer", {"bytes": 100_000}))
    assert m["error"]["data"]["code"] == "MessageTooLarge"
    assert m["error"]["data"]["reason"] == "response"
    # A small one still goes through, and the proxy says why on stderr.
    assert e.answer(e.request("_big/answer", {"bytes": 10}))["result"] == {"pad": "x" * 10}
    e.finish()
    assert b"was over 65536 bytes" in e.stderr
