"""Logging: window/logMessage under trace, and stdout carrying protocol bytes only."""
from __future__ import annotations

import pytest


def log_messages(b, marker):
    return [m for m in b.notifications("window/logMessage") if marker in m["params"]["message"]]


def wait_log(b, marker, timeout=10):
    return b.take(lambda m: isinstance(m, dict) and m.get("method") == "window/logMessage"
                  and marker in m["params"]["message"], timeout, f"window/logMessage containing {marker!r}")


@pytest.mark.parametrize("level, expected_type", [
    ("critical", 1), ("error", 1), ("warning", 2), ("notice", 3), ("info", 3), ("debug", 4), ("trace", 4),
])
def test_verbose_trace_forwards_log_records_as_log_messages(spawn, level, expected_type):
    b = spawn("--log-level", "trace", framing="ndjson", init={"trace": "verbose"})
    marker = f"marker-{level}-7f3a"

    assert b.result("debug/log", {"level": level, "message": marker}) == {}

    msg = wait_log(b, marker)
    assert msg["params"]["type"] == expected_type


def test_messages_trace_forwards_log_records(spawn, framing):
    b = spawn(framing=framing, init={"trace": "messages"})

    b.result("debug/log", {"level": "warning", "message": "messages-marker"})

    assert wait_log(b, "messages-marker")["params"]["type"] == 2


@pytest.mark.parametrize("init", [{}, {"trace": "off"}], ids=["no-trace", "trace-off"])
def test_without_trace_no_log_messages_are_sent(spawn, init):
    b = spawn("--log-level", "trace", framing="ndjson", init=init)

    b.result("debug/log", {"level": "error", "message": "not-forwarded"})
    b.result("ping")

    b.assert_silent(0.3)
    assert b.notifications("window/logMessage") == []


def test_set_trace_turns_forwarding_on_and_off(spawn):
    b = spawn(framing="ndjson", init=True)

    b.notify("$/setTrace", {"value": "verbose"})
    b.result("debug/log", {"level": "error", "message": "now-on"})
    wait_log(b, "now-on")
    # LSP 3.18: with trace on, the server's trace goes out as $/logTrace (verbose: with `verbose`).
    trace = b.take(lambda m: m.get("method") == "$/logTrace" and "'debug/log'" in m["params"]["message"],
                   what="the $/logTrace of debug/log")
    assert "now-on" in trace["params"]["verbose"]
    b.take(lambda m: m.get("method") == "$/logTrace" and "'$/setTrace'" in m["params"]["message"],
           what="the $/logTrace of the $/setTrace that turned tracing on")

    b.notify("$/setTrace", {"value": "off"})
    b.result("debug/log", {"level": "error", "message": "now-off"})
    b.assert_silent(0.3)
    assert log_messages(b, "now-off") == []


def test_a_message_is_traced_at_the_level_in_force_when_it_was_read(spawn):
    b = spawn(framing="ndjson", init=True)
    slow = b.request("debug/sleep", {"ms": 300})       # read while tracing is off
    b.notify("$/setTrace", {"value": "verbose"})
    b.take(lambda m: m.get("method") == "$/logTrace" and "'$/setTrace'" in m["params"]["message"],
           what="the $/logTrace of the $/setTrace that turned tracing on")
    assert "startedAt" in b.response(slow)["result"]
    b.result("ping")                                     # read after: traced
    b.take(lambda m: m.get("method") == "$/logTrace" and "'ping'" in m["params"]["message"],
           what="the $/logTrace of ping")
    b.assert_silent(0.3)                                 # never a trace of the earlier debug/sleep


def test_stdout_carries_only_protocol_bytes_and_logs_go_to_stderr(spawn, framing):
    b = spawn("--log-level", "trace", framing=framing, init=True)
    for level in ["trace", "debug", "info", "warning", "error", "critical"]:
        b.result("debug/log", {"level": level, "message": f"stderr-marker-{level}"})
    b.result("shutdown")
    b.notify("exit")

    assert b.wait_exit(5) == 0
    b.read_to_eof()

    assert not b.buf, f"stdout holds bytes that are not protocol frames: {bytes(b.buf[:200])!r}"
    assert sum(len(e.raw) for e in b.log) == len(b.raw_out)
    stderr = b.stderr_text()
    for level in ["info", "warning", "error", "critical"]:
        assert f"stderr-marker-{level}" in stderr
    assert b"stderr-marker" not in b.raw_out


def test_log_file_receives_the_logs(spawn, tmp_path):
    path = tmp_path / "server.log"
    b = spawn("--log-file", str(path), framing="ndjson", init=True)

    b.result("debug/log", {"level": "error", "message": "file-marker-19"})
    b.result("shutdown")
    b.notify("exit")
    assert b.wait_exit(5) == 0

    assert "file-marker-19" in path.read_text(encoding="utf-8", errors="replace")
    assert "file-marker-19" in b.stderr_text()


def test_log_level_filters_records_below_it(spawn):
    b = spawn("--log-level", "warning", framing="ndjson", init={"trace": "verbose"})

    b.result("debug/log", {"level": "info", "message": "below-level-marker"})
    b.result("debug/log", {"level": "error", "message": "above-level-marker"})
    wait_log(b, "above-level-marker")
    b.result("shutdown")
    b.notify("exit")
    assert b.wait_exit(5) == 0

    assert log_messages(b, "below-level-marker") == []
    stderr = b.stderr_text()
    assert "above-level-marker" in stderr and "below-level-marker" not in stderr
