"""An agent that will not go: it answers `initialize`, starts a child of its own (as an agent
starts an MCP server), writes {"agent": pid, "child": pid} to the file named by $STUBBORN_PIDS,
then ignores SIGTERM and the end of its input, and sleeps. Only SIGKILL ends it."""
import json
import os
import signal
import subprocess
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
with open(os.environ["STUBBORN_PIDS"], "w") as f:
    json.dump({"agent": os.getpid(), "child": child.pid}, f)
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        answer = {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": {"name": "Stubborn", "version": "1"}}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": answer}) + "\n")
        sys.stdout.flush()
while True:
    time.sleep(60)
