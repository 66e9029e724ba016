"""Capabilities, not names: every route to every method is refused by what the method reaches.

The methods come from the server (initialize's `capabilities.methods`, `executeCommandProvider`
and agent/listTools); what each one reaches from the schema's `x-capabilities`, which
`swift test --filter SchemaAgreement` ties to each declaration's `reaches`. Under a restricted
grant (`serve --deny`), each route (a direct request, `workspace/executeCommand wsb.X`, a batch
member, session/callTool and MCP tools/call for a tool) is answered `CapabilityDenied` iff the
method it reaches needs a capability not granted; the params are the schema's own example, so
a granted call does real work and a refused one must be refused before its params are looked at.
"""
from __future__ import annotations

import json

import pytest

from bridge import request
from mcp_helpers import RawMCP, server_args, server_env

# Both deny the lifecycle: a granted `shutdown` would end the walk (test_lifecycle.py serves it).
DENIALS = [
    {"host-paths", "debugging", "lifecycle", "settings"},
    {"workspace", "device", "storage", "lifecycle"},
]


def example_params(method: dict):
    """The first example's params as an object (openrpc lists them by name)."""
    examples = method.get("examples") or []
    if not examples:
        return {}
    return {p["name"]: p["value"] for p in examples[0].get("params", [])}


def schema_methods(contract) -> dict[str, dict]:
    return {m["name"]: m for m in contract.doc["methods"]}


def is_denied(response: dict) -> bool:
    return response.get("error", {}).get("data", {}).get("code") == "CapabilityDenied"


def check(response: dict, needs: set[str], denied: set[str], route: str) -> None:
    expected = bool(needs & denied)
    assert is_denied(response) == expected, (
        f"{route}: needs {sorted(needs)}, denied {sorted(denied)}: expected "
        f"{'CapabilityDenied' if expected else 'no CapabilityDenied'}, got {json.dumps(response)[:400]}")
    if expected:
        error = response["error"]
        assert error["code"] == -32803
        # The wrapper's own are checked first, then the forwarded method's: the first refusal names its own.
        assert error["data"]["capabilities"] and set(error["data"]["capabilities"]) <= needs & denied, route


@pytest.fixture(params=DENIALS, ids=lambda d: "deny-" + "-".join(sorted(d)))
def denied(request):
    return request.param


def restricted(spawn, ws_root, tmp_path, denied):
    b = spawn("--local-root", str(ws_root), "--config-dir", str(tmp_path / "cfg"), "--deny", ",".join(sorted(denied)))
    init = b.initialize()
    return b, init["capabilities"]


def test_every_method_by_every_route_is_refused_iff_it_needs_an_ungranted_capability(spawn, ws_root, tmp_path,
                                                                                    contract, denied):
    b, caps = restricted(spawn, ws_root, tmp_path, denied)
    schema = schema_methods(contract)
    methods = [m for m in caps["methods"] if m != "initialize"]  # served once: the lifecycle answers a second
    assert "importFile" in methods and "debug/echo" in methods and "shutdown" in methods
    (ws_root / "notes").mkdir(parents=True, exist_ok=True)
    (ws_root / "notes" / "todo.md").write_text("x\n")

    def needs_of(name: str, params) -> set[str]:
        """The method's own capabilities, and those of the method or tool its params forward to."""
        needs = set(schema[name]["x-capabilities"])
        if name == "workspace/executeCommand":
            needs |= needs_of(params["command"].removeprefix("wsb."), (params.get("arguments") or [{}])[0])
        if name == "session/callTool":
            needs |= set(schema[mirrors[params["name"]]]["x-capabilities"]) if params["name"] in mirrors else {"workspace"}
        return needs

    mirrors = {m["x-agent-tool"]["name"]: m["name"] for m in contract.doc["methods"] if "x-agent-tool" in m}
    for name in methods:
        params = example_params(schema[name])
        check(b.call(name, params, timeout=30), needs_of(name, params), denied, name)

    commands = caps["executeCommandProvider"]["commands"]
    assert "wsb.importFile" in commands
    for command in commands:
        name = command.removeprefix("wsb.")
        needs = needs_of(name, example_params(schema[name]))
        r = b.call("workspace/executeCommand", {"command": command, "arguments": [example_params(schema[name])]}, timeout=30)
        check(r, needs, denied, f"workspace/executeCommand {command}")
        # Params that do not decode are refused by capability all the same, before they are looked at.
        r = b.call("workspace/executeCommand", {"command": command, "arguments": [{"unexpected": []}]}, timeout=30)
        if needs & denied:
            check(r, needs, denied, f"workspace/executeCommand {command} with bad params")

    ids = {}
    batch = []
    for i, name in enumerate(methods):
        ids[1000 + i] = name
        batch.append(request(name, example_params(schema[name]), id=1000 + i))
    for mid in ids:
        b.track(mid, ids[mid])
    b.send(batch)
    answers = b.take(lambda m: isinstance(m, list), timeout=60, what="the batch's answer")
    assert isinstance(answers, list) and len(answers) == len(batch)
    for answer in answers:
        name = ids[answer["id"]]
        check(answer, needs_of(name, example_params(schema[name])), denied, f"batch member {name}")

    tools = [t["name"] for t in b.result("agent/listTools", {})]
    assert tools
    call_tool = set(schema["session/callTool"]["x-capabilities"])
    for tool in tools:
        needs = set(schema[mirrors[tool]]["x-capabilities"]) if tool in mirrors else {"workspace"}
        r = b.call("session/callTool", {"id": "sess_none", "name": tool, "toolCallId": f"t-{tool}", "arguments": {}})
        check(r, needs | call_tool, denied, f"session/callTool {tool}")


def test_mcp_tools_call_is_refused_iff_the_tool_needs_an_ungranted_capability(binary, tmp_path, contract, denied):
    root, cfg = tmp_path / "ws", tmp_path / "cfg"
    mcp = RawMCP(binary, server_args(root, cfg, extra=("--deny", ",".join(sorted(denied)))), server_env(tmp_path),
                 tmp_path / "mcp-stderr.log")
    try:
        mcp.initialize()
        schema = schema_methods(contract)
        mirrors = {m["x-agent-tool"]["name"]: m["name"] for m in contract.doc["methods"] if "x-agent-tool" in m}
        tools = [t["name"] for t in mcp.result("tools/list", {})["tools"]]
        assert tools, "tools/list reaches nothing a grant withholds"
        tools_call = {"workspace"}  # journals into the connection's session
        for tool in tools:
            needs = (set(schema[mirrors[tool]]["x-capabilities"]) if tool in mirrors else {"workspace"}) | tools_call
            check(mcp.call("tools/call", {"name": tool, "arguments": {}}, timeout=30), needs, denied, f"tools/call {tool}")
    finally:
        mcp.kill()


def test_a_denied_host_path_is_neither_read_nor_written_by_any_route(spawn, ws_root, tmp_path):
    b, _ = restricted(spawn, ws_root, tmp_path, {"host-paths"})
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host only\n")
    target = tmp_path / "host-target.txt"
    (ws_root / "a.txt").write_text("from the workspace\n")
    calls = [
        ("importFile", {"source": str(secret), "path": "stolen.txt"}),
        ("exportFile", {"path": "a.txt", "destination": str(target)}),
        ("getFileUri", {"path": "a.txt"}),
    ]
    for name, params in calls:
        for r in (b.call(name, params),
                  b.call("workspace/executeCommand", {"command": f"wsb.{name}", "arguments": [params]})):
            assert is_denied(r) and r["error"]["data"]["capabilities"] == ["host-paths"], r
    b.send([request(name, params, id=500 + i) for i, (name, params) in enumerate(calls)]
           + [request("workspace/executeCommand", {"command": f"wsb.{name}", "arguments": [params]}, id=600 + i)
              for i, (name, params) in enumerate(calls)])
    answers = b.take(lambda m: isinstance(m, list), timeout=30, what="the batch's answer")
    assert len(answers) == 6 and all(is_denied(a) for a in answers), answers
    denied = [a for a in answers if a["id"] >= 600]
    assert all(a["error"]["data"]["through"] == "workspace/executeCommand" for a in denied)
    assert not (ws_root / "stolen.txt").exists() and not target.exists()
    assert secret.read_text() == "host only\n"
    # The workspace itself is still served.
    assert "error" not in b.call("loadFile", {"path": "a.txt"})


def test_lifecycle_denied_ends_at_end_of_input_with_status_0(spawn, ws_root, tmp_path):
    b, _ = restricted(spawn, ws_root, tmp_path, {"lifecycle"})
    r = b.call("shutdown")
    assert is_denied(r) and r["error"]["data"]["method"] == "shutdown"
    b.notify("exit")  # dropped: a notification is refused silently
    assert b.call("ping")["result"] == {}
    b.close_stdin()
    assert b.wait_exit() == 0


def test_an_unknown_capability_is_refused_on_the_command_line(binary, tmp_path):
    import subprocess
    r = subprocess.run([str(binary), "serve", "--deny", "host-paths,everything"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=30)
    assert r.returncode != 0 and "'everything' is not a capability" in r.stderr
