"""Prints the etag WorkspaceBridge's MCP face gives a resource (`resources/read`'s
`_meta["workspace-bridge/etag"]`), for run.sh's unchanged-etag benchmark.

    python3 mcp_etag.py URI -- COMMAND [ARGS...]     (COMMAND: the server, `workspace-bridge mcp ...`)
"""
import json
import subprocess
import sys


def main() -> int:
    uri, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcp_etag", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}}]
    out = subprocess.run(cmd, input="".join(json.dumps(m) + "\n" for m in msgs), capture_output=True, text=True, timeout=30).stdout
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("id") == 2:
            print(m["result"]["contents"][0]["_meta"]["workspace-bridge/etag"])
            return 0
    print(f"no answer to resources/read: {out[-500:]}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
