"""A minimal ACP agent for Benchmarks/acp_bench.py, on raw NDJSON (no SDK: its own cost must not
hide the proxy's). `initialize`, `session/new` and `session/load` are answered at once; a prompt
"burst N" streams N agent_message_chunk updates as fast as it can write, "paced N" sends N
updates 1 ms apart, each carrying its send time (CLOCK_MONOTONIC ns) in `_meta.t`."""
import json
import sys
import time

out = sys.stdout.buffer
sessions = 0


def send(obj):
    out.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")


for line in sys.stdin.buffer:
    m = json.loads(line)
    method, rid, params = m.get("method"), m.get("id"), m.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}})
    elif method == "session/new":
        sessions += 1
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"bench-{sessions}"}})
    elif method == "session/load":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "session/prompt":
        sid = params["sessionId"]
        word, n = params["prompt"][0]["text"].split()
        for i in range(int(n)):
            update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"chunk {i} "}}
            if word == "paced":
                update["_meta"] = {"t": time.monotonic_ns()}
                send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": update}})
                out.flush()
                time.sleep(0.001)
            else:
                send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": update}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    out.flush()
