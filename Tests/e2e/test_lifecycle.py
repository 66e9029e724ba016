"""Lifecycle: before initialize, initialize, shutdown, exit, end of input, processId watching."""
from __future__ import annotations

import re
import subprocess
import time

import pytest

from bridge import notification, request, run_cli


@pytest.mark.parametrize("method, params", [
    ("ping", None), ("shutdown", None), ("debug/echo", {"value": 1}), ("no/such-method", {}),
])
def test_requests_before_initialize_get_server_not_initialized(spawn, framing, method, params):
    b = spawn(framing=framing)

    response = b.call(method, params, id="early")

    assert response["id"] == "early"
    assert response["error"]["code"] == -32002 and response["error"]["data"]["code"] == "ServerNotInitialized"


def test_notifications_before_initialize_are_dropped(spawn):
    b = spawn("--log-level", "trace", framing="ndjson")
    b.notify("$/setTrace", {"value": "verbose"})      # must not take effect
    b.notify("initialized", {})
    b.notify("$/cancelRequest", {"id": 1})
    b.notify("window/workDoneProgress/cancel", {"token": "t"})
    b.notify("no/such", {})
    b.assert_silent(0.2)

    b.initialize()
    b.result("debug/log", {"level": "error", "message": "should-not-be-forwarded"})

    b.assert_silent(0.3)
    assert b.notifications("window/logMessage") == []


def test_exit_before_initialize_exits_with_status_1(spawn):
    b = spawn(framing="ndjson")

    b.notify("exit")

    assert b.wait_exit(5) == 1


def test_initialize_returns_server_info_protocol_version_and_capabilities(spawn, framing):
    b = spawn(framing=framing)

    result = b.initialize(processId=None, clientInfo={"name": "e2e", "version": "9"}, capabilities={},
                          trace="off", initializationOptions={"anything": [1, 2]})

    assert result["serverInfo"]["name"] == "workspace-bridge"
    version = run_cli(["--version"]).stdout.decode().strip()
    assert result["serverInfo"]["version"] == version
    assert isinstance(result["protocolVersion"], str) and result["protocolVersion"]
    caps = result["capabilities"]
    assert {"initialize", "shutdown", "ping"} <= set(caps["methods"])
    assert "exit" in caps["notifications"]["client"]
    assert "$/progress" in caps["notifications"]["server"]


def test_initialize_with_no_params_works(spawn):
    b = spawn(framing="ndjson")
    assert b.call("initialize")["result"]["serverInfo"]["name"] == "workspace-bridge"


def test_second_initialize_gets_already_initialized(spawn, framing):
    b = spawn(framing=framing, init=True)

    response = b.call("initialize", {}, id="again")

    assert response["id"] == "again"
    assert response["error"]["code"] == -32600 and response["error"]["data"]["code"] == "AlreadyInitialized"
    assert b.result("ping") == {}


def test_initialized_notification_is_accepted_silently(nd):
    nd.notify("initialized", {})
    assert nd.result("ping") == {}
    nd.assert_silent(0.2)


def test_shutdown_answers_null_then_later_requests_get_shutdown_requested(server):
    assert server.call("shutdown")["result"] is None

    for method, params in [("ping", None), ("initialize", {}), ("debug/echo", {"value": 1}), ("shutdown", None),
                           ("no/such", {})]:
        response = server.call(method, params, id=f"late-{method}")
        assert response["id"] == f"late-{method}"
        assert response["error"]["code"] == -32600, method
        assert response["error"]["data"]["code"] == "ShutdownRequested", method


def test_shutdown_waits_for_earlier_requests(nd):
    nd.request("debug/sleep", {"ms": 300, "key": "k", "label": "before"}, id="sleep")
    nd.request("debug/sleep", {"ms": 200, "label": "keyless"}, id="keyless")
    nd.request("shutdown", id="down")

    order = [nd.recv()["id"] for _ in range(3)]

    assert order[-1] == "down", order


def test_exit_after_shutdown_exits_with_status_0(server):
    server.result("shutdown")

    server.notify("exit")

    assert server.wait_exit(5) == 0


def test_exit_without_shutdown_exits_with_status_1(server):
    server.notify("exit")
    assert server.wait_exit(5) == 1


def test_end_of_input_answers_everything_then_exits_0(spawn, framing):
    b = spawn(framing=framing, init=True)
    ids = []
    for i in range(4):
        ids.append(b.request("debug/sleep", {"ms": 150 + 50 * i, "key": f"k{i % 2}", "label": f"s{i}"}))
    ids.append(b.request("debug/echo", {"value": "last"}))
    ids.append(b.request("ping"))

    b.close_stdin()

    for i in ids:
        assert "result" in b.response(i, timeout=10), i
    assert b.wait_exit(5) == 0


def test_end_of_input_before_initialize_exits_0(spawn):
    b = spawn(framing="ndjson")
    b.close_stdin()
    assert b.wait_exit(5) == 0


def test_end_of_input_in_the_middle_of_a_message_still_exits_0(spawn, framing):
    b = spawn(framing=framing, init=True)
    partial = b'{"jsonrpc":"2.0","id":1,"meth'
    b.write(partial if framing == "ndjson" else b"Content-Length: 80\r\n\r\n" + partial)
    b.close_stdin()
    assert b.wait_exit(5) == 0


def test_server_exits_when_the_client_process_dies(spawn):
    client = subprocess.Popen(["sleep", "30"])
    try:
        b = spawn(framing="ndjson", init={"processId": client.pid})
        time.sleep(0.3)
        assert b.result("ping") == {}, "the server must stay up while the client lives"

        client.kill()
        client.wait()  # reap it, or it would live on as a zombie

        b.wait_exit(10)  # fails unless it exits (10 s is a hang guard)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


def test_version_flag_prints_the_version(binary):
    out = run_cli(["--version"])
    assert out.returncode == 0
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", out.stdout.decode().strip()), out.stdout


def test_help_flag_works(binary):
    out = run_cli(["--help"])
    assert out.returncode == 0
    text = out.stdout.decode() + out.stderr.decode()
    assert "serve" in text and "--version" in text


def test_serve_help_describes_the_options(binary):
    out = run_cli(["serve", "--help"])
    assert out.returncode == 0
    text = out.stdout.decode() + out.stderr.decode()
    for option in ["--framing", "--max-message-bytes", "--log-level", "--log-file", "--enable-debug-methods",
                   "--local-root", "--cloud-root"]:
        assert option in text, option


def test_serve_subcommand_is_the_default_and_can_be_named(spawn):
    b = spawn("serve", framing="ndjson", init=True)
    assert b.result("ping") == {}


# -- real clients' habits (issue 14) ---------------------------------------------------------------

def lsp_318_initialize_params(root) -> dict:
    """Every field of LSP 3.18's InitializeParams, the nullable ones null or set."""
    return {
        "processId": None, "clientInfo": {"name": "every-field", "version": "3.18"}, "locale": "de-CH",
        "rootPath": str(root), "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
        "initializationOptions": {"localRoot": str(root)}, "capabilities": {"workspace": {"workspaceFolders": True}},
        "trace": "off", "workDoneToken": "init-progress",
    }


@pytest.mark.parametrize("variant", ["every field", "nulls", "no clientInfo", "options not an object"])
def test_initialize_accepts_every_lsp_318_field(spawn, tmp_path, variant):
    root = tmp_path / "ws"
    params = lsp_318_initialize_params(root)
    if variant == "nulls":
        params.update(rootPath=None, rootUri=None, workspaceFolders=None, initializationOptions=None, trace=None)
    elif variant == "no clientInfo":
        del params["clientInfo"]
    elif variant == "options not an object":
        params["initializationOptions"] = "a string: LSP allows any value"
    b = spawn("--local-root", str(root), framing="ndjson")
    b.send(request("initialize", params, id="init"))
    assert b.response("init")["result"]["serverInfo"]["name"] == "workspace-bridge"
    b.notify("initialized", {})
    assert b.result("saveFile", {"path": "x.txt", "data": "ok"})["path"] == "x.txt"
    assert (root / "x.txt").read_text() == "ok"
    assert b.result("ping") == {}


@pytest.mark.parametrize("method, is_request", [
    ("initialize", True), ("initialized", False), ("ping", True), ("$/cancelRequest", False),
    ("$/setTrace", False), ("window/workDoneProgress/cancel", False), ("$/logTrace", False),
    ("listFiles", True),
])
def test_params_null_is_no_params(spawn, method, is_request):
    b = spawn(framing="ndjson", init=method != "initialize")
    msg = {"jsonrpc": "2.0", "method": method, "params": None}
    if is_request:
        msg["id"] = "null-params"
    b.send(msg)
    if is_request:
        assert "result" in b.response("null-params"), method
    else:
        b.assert_silent(0.2)
    assert b.result("ping") == {}


def test_set_trace_with_a_bad_value_is_ignored_and_the_trace_stays(spawn):
    b = spawn(framing="ndjson", init={"trace": "messages"})
    b.notify("$/setTrace", {"value": "loud"})
    b.notify("$/setTrace", {})
    b.request("ping", id="p")
    assert b.response("p")["result"] == {}
    trace = b.take(lambda m: m.get("method") == "$/logTrace" and "'ping' (id \"p\")" in m["params"]["message"],
                   what="the $/logTrace of the ping")
    assert "verbose" not in trace["params"], "trace messages: no verbose field"
    assert "$/setTrace" in b.stderr_text()


def test_trace_off_sends_no_log_trace(spawn):
    b = spawn(framing="ndjson", init=True)
    for _ in range(3):
        assert b.result("ping") == {}
    b.notify("$/logTrace", {"message": "a client's own trace line: ignored"})
    assert b.result("ping") == {}
    assert not [e for e in b.log if isinstance(e.msg, dict) and e.msg.get("method") == "$/logTrace"]


def test_work_done_progress_cancel_cancels_the_owner_and_ignores_unknown_tokens(spawn):
    b = spawn(framing="ndjson", init=True)
    b.notify("window/workDoneProgress/cancel", {"token": "nobody"})
    assert b.result("ping") == {}
    b.request("debug/sleep", {"ms": 60_000, "workDoneToken": "t-owner"}, id="owner")
    b.take(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin", what="progress begin")
    b.notify("window/workDoneProgress/cancel", {"token": "t-owner"})
    r = b.response("owner", timeout=10)
    assert r["error"]["code"] == -32800
    assert b.result("ping") == {}
