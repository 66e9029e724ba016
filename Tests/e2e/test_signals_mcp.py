"""A `workspace-bridge mcp` process stopped by SIGTERM or SIGINT ends the session it created as at a
clean end of input (test_mcp_session_end.py): completed when something was journaled in it, deleted
when nothing was. test_signals.py covers the signals themselves.
"""
from __future__ import annotations

import signal

import pytest

pytest.importorskip("mcp")

from mcp_helpers import place, raw, session_id_of  # noqa: E402,F401
from test_mcp_session_end import _sessions  # noqa: E402
from test_signals import dispositions  # noqa: E402


def test_an_mcp_process_stopped_by_sigterm_completes_its_session(raw, place):
    with dispositions(SIGINT=signal.default_int_handler):
        r = raw()
    sid = session_id_of(r.initialize())
    assert r.result("tools/call", {"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}})["isError"] is False
    r.proc.send_signal(signal.SIGTERM)
    assert r.proc.wait(5) == 0
    assert (place.root / "a.txt").read_text() == "x"
    listed = _sessions(raw, place)
    assert listed.get(sid, {}).get("state") == "completed", listed.get(sid)


def test_an_mcp_process_stopped_by_sigint_deletes_a_session_nothing_was_journaled_in(raw, place):
    with dispositions(SIGINT=signal.default_int_handler):
        r = raw()
    sid = session_id_of(r.initialize())
    r.result("tools/list", {})
    assert (place.root / ".workspace" / "sessions" / sid).is_dir()
    r.proc.send_signal(signal.SIGINT)
    assert r.proc.wait(5) == 0
    assert not (place.root / ".workspace" / "sessions" / sid).exists()
