"""Regular expressions that backtrack without end, through every search entry point (JSON-RPC
`searchFiles`, MCP `tools/call search_files`, `session/search`): each is answered (a result, or
the typed LimitExceeded with reason matchLimit) and the connection keeps serving; a running
catastrophic search that is cancelled is answered -32800 and its work stops, so the write that
waits for it (its read claim) is answered next; a pattern that does not compile says why.

Timeouts here are hang guards (a catastrophic pattern on a backtracking engine runs for minutes
to years); how fast a bounded match ends is Benchmarks/'s business.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from mcp_helpers import RawMCP, server_args, server_env

GUARD = 10.0

A40 = "a" * 40 + "!b"
X40 = "x" * 40 + "!y"
# (pattern, the line it meets, "limit" when the bound must be reached, else None: answered either way)
CORPUS = [
    ("(a+)+b", A40, "limit"),
    ("(a|a)*b", A40, "limit"),
    ("(x+x+)+y", X40, "limit"),
    ("((a*)*)*b", A40, "limit"),
    ("(?:a+){2,}b", A40, "limit"),
    ("(a|aa|aaa|aaaa|aaaaa)*b", A40, "limit"),
    (".*.*.*.*.*=", "=" + "y" * 29, None),
    (".*.*.*.*.*.*.*.*.*.*=", "y" * 30 + "=", None),
    ("(\\w+\\s?)+$", "word " * 8 + "word!", None),
    ("(.*a){20}", "a" * 40 + "!", None),
    ("a{65535}", "a" * 100, None),
    ("(?:a{1,60000}){1,60000}b", A40, None),
    ("(" + "|".join(f"w{i}x" for i in range(150)) + ")+$", "w1xw2x" * 5 + "!", None),
]


def file_of(line: str) -> str:
    """The searched text: the pattern's line between two plain ones (so the bound is met on line 2)."""
    return f"plain words here\n{line}\nlast line\n"


def check_outcome(pattern: str, expect: str | None, error: dict | None, result, reason: bool = True) -> None:
    if error is None:
        assert expect is None, f"{pattern}: expected LimitExceeded, got a result {result}"
        return
    data = error.get("data") or error
    code = data.get("code")
    if expect == "limit" or code == "LimitExceeded":
        assert code == "LimitExceeded", f"{pattern}: {error}"
        assert data.get("reason") == "matchLimit" if reason else "backtracking steps" in error["message"], f"{pattern}: {error}"
    else:  # a huge counted repeat the compiler refuses is a bad pattern, said so
        assert code == "InvalidArgument" and "regular expression" in error.get("message", ""), f"{pattern}: {error}"


@pytest.fixture
def world(spawn, tmp_path):
    root = tmp_path / "ws"
    (root / "s").mkdir(parents=True)
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "cfg"), framing="ndjson", debug=False, init=True)
    b.root = root
    return b


@pytest.mark.parametrize("pattern,line,expect", CORPUS)
def test_search_files_answers_each_catastrophic_pattern(world, pattern, line, expect):
    (world.root / "s" / "corpus.txt").write_text(file_of(line))
    r = world.call("searchFiles", {"query": pattern, "regex": True, "path": "s"}, timeout=GUARD)
    check_outcome(pattern, expect, r.get("error"), r.get("result"))
    if "error" in r and r["error"]["data"]["code"] == "LimitExceeded":
        data = r["error"]["data"]
        assert r["error"]["code"] == -32803 and data["path"] == "s/corpus.txt"
        assert data["line"] == 2, "data.line is the line where the bound was reached"
        assert "backtrack" in r["error"]["message"]
    assert world.result("loadFile", {"path": "s/corpus.txt"}, timeout=GUARD)["data"] == file_of(line), "the connection keeps serving"


@pytest.mark.parametrize("pattern,line,expect", CORPUS)
def test_session_search_answers_each_catastrophic_pattern(world, pattern, line, expect):
    sid = world.result("session/create", {"title": "corpus"}, timeout=GUARD)["id"]
    world.result("session/appendMessages", {"id": sid, "messages": [{"id": "m", "role": "user", "content": file_of(line)}]}, timeout=GUARD)
    r = world.call("session/search", {"query": pattern, "regex": True}, timeout=GUARD)
    check_outcome(pattern, expect, r.get("error"), r.get("result"))
    assert world.result("session/search", {"query": "last line"}, timeout=GUARD)["totalHits"] == 1


def test_mcp_search_files_answers_each_catastrophic_pattern(binary, tmp_path):
    root = tmp_path / "ws"
    (root / "s").mkdir(parents=True)
    r = RawMCP(binary, server_args(root, tmp_path / "cfg"), server_env(tmp_path), tmp_path / "mcp-stderr.log")
    try:
        r.initialize()
        for pattern, line, expect in CORPUS:
            (root / "s" / "corpus.txt").write_text(file_of(line))
            res = r.result("tools/call", {"name": "search_files", "arguments": {"query": pattern, "regex": True, "path": "s"}},
                           timeout=GUARD)
            sc = res.get("structuredContent") or {}
            if res.get("isError"):
                # The tool error carries data.code and the message (the MCP face's error shape is not this file's concern).
                check_outcome(pattern, expect, {"data": sc, "message": res["content"][0]["text"]}, None, reason=False)
            else:
                check_outcome(pattern, expect, None, sc)
            assert r.result("ping", timeout=GUARD) == {}
    finally:
        r.kill()


# -- cancellation of a running catastrophic search ---------------------------------------------------

# (a+)+b meets 16 a's on each line: 2^16 paths, under the bound on each line, so the search runs on
# line after line (minutes for the file on a backtracking engine without a bound per call).
HEAVY = "(a+)+b"
HEAVY_LINE = "a" * 16 + "!b\n"


@pytest.fixture
def heavy(spawn, tmp_path):
    root = tmp_path / "ws"
    (root / "h").mkdir(parents=True)
    (root / "h" / "heavy.txt").write_text(HEAVY_LINE * 200_000)
    b = spawn("--local-root", str(root), "--config-dir", str(tmp_path / "cfg"), framing="ndjson", debug=False, init=True)
    return b


def test_cancelled_catastrophic_search_files_stops_and_the_next_write_is_answered(heavy):
    rid = heavy.request("searchFiles", {"query": HEAVY, "regex": True, "path": "h"})
    heavy.result("ping", timeout=GUARD)  # the search has started (it was read before the ping)
    heavy.notify("$/cancelRequest", {"id": rid})
    r = heavy.response(rid, timeout=GUARD)
    assert r.get("error", {}).get("code") == -32800, f"the search finished before the cancel: {r}"
    # The write waits for the cancelled search's read claim: it is answered once that work stopped.
    save = heavy.request("saveFile", {"path": "h/new.txt", "data": "after"})
    assert heavy.response(save, timeout=GUARD).get("result") is not None
    assert heavy.result("loadFile", {"path": "h/new.txt"}, timeout=GUARD)["data"] == "after"


def test_cancelled_catastrophic_session_search_stops_and_the_next_append_is_answered(heavy):
    sid = heavy.result("session/create", {"title": "heavy"}, timeout=GUARD)["id"]
    text = HEAVY_LINE * 20_000
    heavy.result("session/appendMessages", {"id": sid, "messages": [{"id": f"m{i}", "role": "user", "content": text}
                                                                     for i in range(5)]}, timeout=GUARD)
    rid = heavy.request("session/search", {"query": HEAVY, "regex": True})
    heavy.result("ping", timeout=GUARD)
    heavy.notify("$/cancelRequest", {"id": rid})
    r = heavy.response(rid, timeout=GUARD)
    assert r.get("error", {}).get("code") == -32800, f"the search finished before the cancel: {r}"
    # An append to a session waits for the search's read claim on the sessions.
    n = heavy.result("session/appendMessages", {"id": sid, "messages": [{"id": "late", "role": "user", "content": "x"}]},
                     timeout=GUARD)
    assert n["count"] == 1


def test_time_limit_stops_a_running_catastrophic_session_search(heavy):
    sid = heavy.result("session/create", {"title": "heavy"}, timeout=GUARD)["id"]
    heavy.result("session/appendMessages", {"id": sid, "messages": [{"id": "m", "role": "user", "content": HEAVY_LINE * 50_000}]},
                 timeout=GUARD)
    err = heavy.error("session/search", {"query": HEAVY, "regex": True, "timeLimitMs": 200}, timeout=GUARD)
    assert err["code"] == -32803 and err["data"] == {"code": "LimitExceeded", "reason": "time", "limit": 200}
    assert heavy.result("ping", timeout=GUARD) == {}


@pytest.mark.parametrize("method", ["searchFiles", "session/search"])
def test_a_pattern_that_does_not_compile_says_why(world, method):
    err = world.error(method, {"query": "(unclosed", "regex": True, **({"path": "s"} if method == "searchFiles" else {})},
                      timeout=GUARD)
    assert err["data"]["code"] == "InvalidArgument"
    assert "invalid regular expression '(unclosed'" in err["message"] and "parenthesis" in err["message"], err
