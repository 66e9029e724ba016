"""A raw ACP agent (no SDK) that writes without reading: on the prompt "flood N" it writes N
session/update chunks before it reads another line. It counts the `_burst/note` notifications
(and their bytes) and answers `_burst/count` with them; it holds each `_burst/hold` request
until `_burst/release`; it answers `_big/answer` with a result of `params.bytes` bytes."""
import json
import sys

out = sys.stdout.buffer


def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def main():
    notes, note_bytes, holds, held = 0, 0, 0, []
    for line in sys.stdin.buffer:
        m = json.loads(line)
        method, mid, params = m.get("method"), m.get("id"), m.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": 1, "agentCapabilities": {},
                                                          "agentInfo": {"name": "hostile", "version": "1"}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": "hostile-1"}})
        elif method == "session/prompt":
            text = "".join(b.get("text", "") for b in params.get("prompt", []))
            if text.startswith("flood "):
                for i in range(int(text.split()[1])):
                    send({"jsonrpc": "2.0", "method": "session/update",
                          "params": {"sessionId": params["sessionId"],
                                     "update": {"sessionUpdate": "agent_message_chunk",
                                                "content": {"type": "text", "text": f"chunk {i} " + "." * 100}}}})
            send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
        elif method == "_burst/note":
            notes += 1
            note_bytes += len(line)
        elif method == "_burst/count":
            send({"jsonrpc": "2.0", "id": mid, "result": {"notes": notes, "noteBytes": note_bytes, "holds": holds}})
        elif method == "_burst/hold":
            holds += 1
            held.append(mid)
        elif method == "_burst/release":
            for h in held:
                send({"jsonrpc": "2.0", "id": h, "result": {"released": True}})
            held = []
        elif method == "_big/answer":
            send({"jsonrpc": "2.0", "id": mid, "result": {"pad": "x" * int(params.get("bytes", 0))}})
        elif mid is not None and method is not None:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
