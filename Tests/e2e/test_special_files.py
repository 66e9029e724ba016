"""Special files through the JSON-RPC face (docs/protocol.md, "Workspace files", special files):
a named pipe (FIFO), a Unix socket, a character and a block device in the workspace (and on the
host for importFile/exportFile). None of them is ever read or written: every file method answers
NotARegularFile (data.path, data.type) at once, listings name their type, search counts them,
a folder copy and a migration list every one they leave out, and after each case the connection
still answers a ping within PROMPT seconds, and ends at end of input.
"""
from __future__ import annotations

import os
import time

import pytest

from special_files import (PROMPT, SPECIAL_TYPES, assert_not_regular, fifo_reader, make_special, pending_bytes,
                           type_of)
from storage_helpers import Roots, start
from wsfiles import b64, save


def prompt_error(b, method: str, params: dict) -> dict:
    """The error answer to `method`, which must come within PROMPT seconds, then a prompt ping."""
    started = time.monotonic()
    err = b.error(method, params, timeout=PROMPT)
    assert time.monotonic() - started < PROMPT
    assert b.result("ping", timeout=PROMPT) == {}
    return err


def prompt_result(b, method: str, params: dict):
    r = b.result(method, params, timeout=PROMPT)
    assert b.result("ping", timeout=PROMPT) == {}
    return r


@pytest.fixture(params=SPECIAL_TYPES)
def kind(request) -> str:
    return request.param


def test_every_file_method_answers_not_a_regular_file_at_once(ws, kind):
    make_special(ws.root / "dir" / "special", kind)
    path = "dir/special"

    for method, params in [
        ("loadFile", {"path": path}),
        ("loadFile", {"path": path, "encoding": "base64", "offset": 0, "length": 10}),
        ("getFileInfo", {"path": path, "hash": "sha256"}),
        ("appendFile", {"path": path, "data": "x"}),
        ("saveFile", {"path": path, "data": "x"}),
        ("saveFile", {"path": path, "data": "x", "ifMatch": "0000000000000000"}),
        ("copyFile", {"from": path, "to": "copy"}),
        ("searchFiles", {"query": "x", "path": path}),
        ("exportFile", {"path": path, "destination": str(ws.root.parent / "exported")}),
    ]:
        assert_not_regular(prompt_error(ws, method, params), path, kind)

    assert type_of(ws.root / path) == kind, "the special file was replaced"
    assert not (ws.root / "copy").exists() and not (ws.root.parent / "exported").exists()
    # Its status is no secret: getFileInfo without a hash, and the listing, say what it is.
    assert prompt_result(ws, "getFileInfo", {"path": path})["type"] == kind
    entries = prompt_result(ws, "listFiles", {"path": "dir"})["entries"]
    assert [(e["name"], e["type"]) for e in entries] == [("special", kind)]
    ws.close_stdin()
    assert ws.wait_exit(timeout=PROMPT) == 0


def test_a_fifo_with_a_reader_is_still_never_written(ws):
    make_special(ws.root / "pipe", "fifo")
    with fifo_reader(ws.root / "pipe") as fd:
        for method in ("appendFile", "saveFile"):
            assert_not_regular(prompt_error(ws, method, {"path": "pipe", "data": "leak"}), "pipe", "fifo")
        assert pending_bytes(fd) == b""
        assert_not_regular(prompt_error(ws, "loadFile", {"path": "pipe"}), "pipe", "fifo")


def test_search_skips_special_files_and_counts_them(ws):
    for i, kind in enumerate(["fifo", "socket", "fifo"]):
        make_special(ws.root / "s" / f"n{i}.txt", kind)
    save(ws, "s/real.txt", "needle here\n")

    r = prompt_result(ws, "searchFiles", {"query": "needle", "path": "s"})
    assert [(m["path"], m["line"]) for m in r["matches"]] == [("s/real.txt", 1)]
    assert r["filesSearched"] == 1 and r["specialFilesSkipped"] == 3

    r = prompt_result(ws, "searchFiles", {"query": "needle", "path": "s", "glob": "n0.txt"})
    assert r["matches"] == [] and r["specialFilesSkipped"] == 1


def test_a_folder_copy_leaves_special_files_and_links_out_and_lists_each(ws):
    make_special(ws.root / "src" / "pipe", "fifo")
    make_special(ws.root / "src" / "deep" / "sock", "socket")
    os.symlink("../outside", ws.root / "src" / "link")
    save(ws, "src/a.txt", "a")
    save(ws, "src/deep/b.txt", "b")

    r = prompt_result(ws, "copyFile", {"from": "src", "to": "dst"})

    assert r["type"] == "directory"
    assert r["skippedEntries"] == [
        {"path": "src/deep/sock", "type": "socket", "reason": "NotARegularFile"},
        {"path": "src/link", "type": "symlink", "reason": "SymlinkNotFollowed"},
        {"path": "src/pipe", "type": "fifo", "reason": "NotARegularFile"},
    ]
    assert sorted(p.relative_to(ws.root / "dst").as_posix() for p in (ws.root / "dst").rglob("*")) == \
        ["a.txt", "deep", "deep/b.txt"]
    assert prompt_result(ws, "copyFile", {"from": "src/a.txt", "to": "one.txt"})["skippedEntries"] == []


@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_import_from_a_special_host_file_answers_at_once(ws, tmp_path, kind):
    src = tmp_path / "host" / "src"
    make_special(src, kind)

    assert_not_regular(prompt_error(ws, "importFile", {"source": str(src), "path": "in.txt"}), str(src), kind)
    assert not (ws.root / "in.txt").exists()
    ws.close_stdin()
    assert ws.wait_exit(timeout=PROMPT) == 0


def test_export_never_replaces_a_special_host_file(ws, tmp_path):
    dst = tmp_path / "host" / "pipe"
    make_special(dst, "fifo")
    save(ws, "a.txt", "a")

    err = prompt_error(ws, "exportFile", {"path": "a.txt", "destination": str(dst), "overwrite": True})
    assert_not_regular(err, str(dst), "fifo")
    assert type_of(dst) == "fifo"


@pytest.mark.parametrize("mode", ["copy", "move"])
def test_migrate_reports_every_special_file_and_a_move_never_deletes_one(spawn, tmp_path, mode):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    src = roots.local
    (src / "notes").mkdir()
    (src / "notes" / "a.txt").write_bytes(b"alpha\n")
    make_special(src / "notes" / "pipe", "fifo")
    make_special(src / "sock", "socket")

    r = b.result("migrate", {"to": "cloud", "mode": mode}, timeout=60)
    assert b.result("ping", timeout=PROMPT) == {}

    assert r["switched"] is True and r["copied"] >= 1
    assert r["skippedEntries"] == [
        {"path": "notes/pipe", "type": "fifo", "reason": "NotARegularFile"},
        {"path": "sock", "type": "socket", "reason": "NotARegularFile"},
    ]
    assert (roots.cloud / "notes" / "a.txt").read_bytes() == b"alpha\n"
    assert not (roots.cloud / "notes" / "pipe").exists() and not (roots.cloud / "sock").exists()
    # What was not copied stays where it was, in move mode too.
    assert type_of(src / "notes" / "pipe") == "fifo" and type_of(src / "sock") == "socket"
    assert (src / "notes" / "a.txt").exists() == (mode == "copy")


def test_migrate_dry_run_lists_the_special_files_too(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    make_special(roots.local / "pipe", "fifo")

    r = b.result("migrate", {"to": "cloud", "mode": "move", "dryRun": True}, timeout=60)
    assert r["switched"] is False
    assert r["skippedEntries"] == [{"path": "pipe", "type": "fifo", "reason": "NotARegularFile"}]


def test_agent_tools_answer_not_a_regular_file_and_the_connection_stays(spawn, tmp_path):
    from sessions_helpers import Place, create
    place = Place(tmp_path)
    b = place.start(spawn)
    sid = create(b, title="special")["id"]
    make_special(place.root / "pipe", "fifo")
    make_special(place.root / "sock", "socket")

    calls = [("read_file", {"path": "pipe"}), ("read_file", {"path": "sock"}),
             ("get_file_info", {"path": "pipe", "hash": "sha256"}), ("append_file", {"path": "pipe", "content": "x"}),
             ("write_file", {"path": "pipe", "content": "x"}), ("copy_file", {"from": "pipe", "to": "c"}),
             ("search_files", {"query": "x", "path": "sock"})]
    for i, (name, args) in enumerate(calls):
        r = b.result("session/callTool", {"id": sid, "toolCallId": f"c{i}", "name": name, "arguments": args},
                     timeout=PROMPT)
        assert r["isError"] is True, (name, r)
        sc = r["structuredContent"]
        assert sc["code"] == "NotARegularFile" and f"'{args.get('path', args.get('from'))}'" in sc["error"], (name, sc)
        assert b.result("ping", timeout=PROMPT) == {}
    assert type_of(place.root / "pipe") == "fifo" and not (place.root / "c").exists()


def test_a_fifo_in_place_of_a_journal_or_a_settings_file_never_blocks(spawn, tmp_path):
    from sessions_helpers import Place, create
    place = Place(tmp_path)
    b = place.start(spawn)
    sid = create(b, title="journal")["id"]
    b.result("settings/set", {"values": {"theme": "dark"}})
    b.kill()
    journal = place.sessions_dir / sid / "journal.jsonl"
    journal.unlink()
    make_special(journal, "fifo")
    settings = place.root / ".workspace" / "settings"
    for f in [p for p in settings.iterdir() if p.suffix == ".json"]:
        f.unlink()
        make_special(f, "fifo")
    make_special(settings / "other-device.json", "fifo")

    b = place.start(spawn)
    for method, params in [("session/get", {"id": sid}),
                           ("session/appendMessages", {"id": sid, "messages": [{"role": "user", "content": "hi"}]}),
                           ("session/list", {}), ("settings/get", {}), ("settings/set", {"values": {"theme": "light"}})]:
        started = time.monotonic()
        b.call(method, params, timeout=PROMPT)
        assert time.monotonic() - started < PROMPT, method
        assert b.result("ping", timeout=PROMPT) == {}
    assert type_of(journal) == "fifo"
    b.close_stdin()
    assert b.wait_exit(timeout=PROMPT) == 0
