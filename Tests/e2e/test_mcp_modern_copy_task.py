"""copy_file as a task (tasks extension, docs/mcp-2026.md §10): a folder copy still running after
the 200 ms grace answers `resultType: "task"`, reports "copied N of M files" in `statusMessage`,
and completes with the result an inline copy of the same folder reports, the copy whole on disk; a
cancelled folder copy ends `cancelled` with no half copy left (or `completed` with a whole one, if
it won the race); a small copy answers inline. Through the real binary, raw NDJSON and the
official client.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp_helpers import aio, place, tool_ok  # noqa: E402,F401
from mcp_modern import TasksExtension, open_client, rawm, tasks_caps  # noqa: E402,F401
from test_mcp_long import Moved, tree  # noqa: E402,F401
from test_mcp_modern_tasks import _check_task, _poll  # noqa: E402

FOLDERS, PER_FOLDER = 60, 100
FILES = FOLDERS * PER_FOLDER    # 6,000 files of 1 KiB, each copied crash-safely (two fsyncs): well over 200 ms in any build
BIG_FILES = 5000                # test_mcp_long's tree (5,000 files of 40 KiB), for the cancel
PROGRESS = re.compile(r"^copied (\d+) of (\d+) files \((\d+\.\d) of (\d+\.\d) MiB\)$")


@pytest.fixture(scope="module")
def many(tmp_path_factory) -> Path:
    """A folder of many small files, written once per module (moved into each test's workspace)."""
    base = tmp_path_factory.mktemp("copy-tree") / "tree"
    for d in range(FOLDERS):
        folder = base / f"d{d:02d}"
        folder.mkdir(parents=True)
        for f in range(PER_FOLDER):
            (folder / f"f{f:03d}.txt").write_bytes(f"file {d}/{f}\n".encode().ljust(1024, b"."))
    return base


def _tree_digest(base: Path) -> dict[str, str]:
    """Every file under `base` (relative path → sha256): what a whole copy must reproduce."""
    out = {}
    for dirpath, _, names in os.walk(base):
        for n in names:
            p = Path(dirpath) / n
            out[str(p.relative_to(base))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _comparable(structured: dict) -> dict:
    """A copy result without what differs between two copies of one folder (its name, time, etag)."""
    return {k: v for k, v in structured.items() if k not in ("to", "modified", "etag")}


def test_a_folder_copy_outliving_its_grace_is_a_task_with_progress_and_the_inline_result(rawm, place, many):
    r = rawm()
    with Moved(many, place.root):
        _copy_as_task_then_inline(r, place.root)


def _copy_as_task_then_inline(r, root: Path) -> None:
    want = _tree_digest(root / "tree")
    t0 = time.monotonic()
    created = r.mresult("tools/call", {"name": "copy_file", "arguments": {"from": "tree", "to": "copy"}}, caps=tasks_caps())
    answered_after = time.monotonic() - t0
    _check_task(created, "task")
    assert created["status"] == "working", created
    assert answered_after < 5, f"the task was answered {answered_after:.1f} s after the call, not after the grace"
    seen = _poll(r, created["taskId"], lambda s: s["status"] != "working", timeout=60)
    done = seen[-1]
    assert done["status"] == "completed", done
    # progress: "copied N of 2000 files (x of y MiB)", N never going back
    counts = [(int(m[1]), int(m[2])) for s in seen if (m := PROGRESS.match(s.get("statusMessage") or ""))]
    assert counts, f"no copy progress in statusMessage: {[s.get('statusMessage') for s in seen]}"
    assert all(total == FILES for _, total in counts), counts
    assert [n for n, _ in counts] == sorted(n for n, _ in counts), counts
    result = done["result"]
    assert result["isError"] is False and result["content"][0]["type"] == "text", result
    assert _tree_digest(root / "copy") == want, "the task's copy is not the source"
    # the same copy inline (a client without the extension) reports the same
    inline = r.tool("copy_file", {"from": "tree", "to": "copy-inline"}, timeout=60)
    assert inline["resultType"] == "complete" and inline["isError"] is False, inline
    assert _comparable(result["structuredContent"]) == _comparable(inline["structuredContent"])
    assert result["structuredContent"]["to"] == "copy" and result["structuredContent"]["type"] == "directory"
    assert _tree_digest(root / "copy-inline") == want
    # the result is kept: polled again, the same
    again = r.mresult("tasks/get", {"taskId": created["taskId"]}, caps=tasks_caps())
    assert again["status"] == "completed" and again["result"] == result


def test_a_cancelled_folder_copy_leaves_no_half_copy(rawm, place, tree):
    r = rawm()
    with Moved(tree, place.root):
        want = _tree_digest(place.root / "tree")
        created = r.mresult("tools/call", {"name": "copy_file", "arguments": {"from": "tree", "to": "tree-copy"}},
                            caps=tasks_caps())
        assert created["resultType"] == "task", created
        tid = created["taskId"]
        # cancel once it is visibly under way (some files copied)
        _poll(r, tid, lambda s: s["status"] != "working"
              or ((m := PROGRESS.match(s.get("statusMessage") or "")) is not None and int(m[1]) > 0), timeout=30)
        r.mresult("tasks/cancel", {"taskId": tid}, caps=tasks_caps())
        final = _poll(r, tid, lambda s: s["status"] != "working", timeout=30)[-1]
        dest = place.root / "tree-copy"
        if final["status"] == "cancelled":
            assert "result" not in final and not dest.exists(), \
                f"a cancelled copy left {len(_tree_digest(dest)) if dest.exists() else 0} files behind"
        else:
            assert final["status"] == "completed", final
            assert _tree_digest(dest) == want, "a completed copy is not whole"
        # the source is untouched, no temp file anywhere, and the server goes on
        assert len(_tree_digest(place.root / "tree")) == BIG_FILES
        assert not [p for p in place.root.rglob("*.tmp")], "temp files left behind"
        again = r.tool("copy_file", {"from": "tree/d000/f000.txt", "to": "one.txt"}, caps=tasks_caps())
        assert again["resultType"] == "complete" and again["isError"] is False, again


@aio
async def test_the_official_client_gets_a_big_copy_as_a_task_and_a_small_one_inline(binary, place, many):
    (place.root).mkdir(parents=True, exist_ok=True)
    (place.root / "small.txt").write_text("small\n")
    ext = TasksExtension()
    async with open_client(binary, place.root, place.cfg, place.tmp, "2026-07-28", extensions=[ext]) as c:
        small = tool_ok(await c.call_tool("copy_file", {"from": "small.txt", "to": "small-copy.txt"}), "copy_file")
        assert not ext.created, f"a small copy became a task: {ext.created}"
        with Moved(many, place.root):
            want = _tree_digest(place.root / "tree")
            big = tool_ok(await c.call_tool("copy_file", {"from": "tree", "to": "copy"}), "copy_file")
    assert small["to"] == "small-copy.txt" and (place.root / "small-copy.txt").read_text() == "small\n"
    assert len(ext.created) == 1 and ext.created[0].status == "working", ext.created
    assert ext.polls[-1]["status"] == "completed" and ext.polls[-1]["result"]["structuredContent"] == big
    assert big["type"] == "directory" and big["skippedEntries"] == []
    assert _tree_digest(place.root / "copy") == want
