"""Every file name is reachable, and the reserved folders are closed in every spelling (issue 22).

Names that are not UTF-8 (`Docs/caf\\xe9.txt` from an old Latin-1 archive) and names holding a
backslash are listed, searched, notified and migrated under their escaped text (`\\x` + two
lowercase hex digits per byte; docs/protocol.md, "File names"), which every file method and tool
accepts back; other spellings of an escape are refused. The reserved folders (`.workspace`,
`.wb-staging.nosync`) are refused (PermissionDenied) in every spelling a case-insensitive or
normalising volume folds to them, on both faces, and never entered by listings or searches.
Files with such names are made on disk with bytes paths (`os.open(b"...")`).
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from storage_helpers import Roots, info, start, usage_on_disk
from wsfiles import b64, domain_error, list_all, load_bytes, save, unb64

LATIN1 = "caf\\xe9.txt"          # the text of the bytes b"caf\xe9.txt"
BACKSLASH = "a\\x5cb.txt"        # the text of the bytes b"a\\b.txt"


def make(root: Path, rel: bytes, data: bytes) -> None:
    """Writes `data` at the bytes path `rel` below `root` (folders made as needed)."""
    full = os.fsencode(root) + b"/" + rel
    os.makedirs(os.path.dirname(full), exist_ok=True)
    fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def names_in(folder: Path) -> set[bytes]:
    return set(os.listdir(os.fsencode(folder)))


# -- names that are not UTF-8 -------------------------------------------------------------------

def test_a_name_that_is_not_utf8_is_listed_searched_and_counted(ws):
    make(ws.root, b"Docs/caf\xe9.txt", b"needle in latin-1\n")
    make(ws.root, b"Docs/a\\b.txt", b"needle with a backslash\n")
    make(ws.root, b"Docs/plain.txt", b"needle\n")

    listed = ws.result("listFiles", {"path": "Docs"})["entries"]
    assert [e["name"] for e in listed] == [BACKSLASH, LATIN1, "plain.txt"]
    assert [e["path"] for e in listed] == ["Docs/" + n for n in (BACKSLASH, LATIN1, "plain.txt")]
    assert all(e["type"] == "file" for e in listed)
    everything = [e["path"] for e in list_all(ws, path="", recursive=True)]
    assert "Docs/" + LATIN1 in everything and "Docs/" + BACKSLASH in everything

    r = ws.result("searchFiles", {"query": "needle", "path": "Docs"})
    assert sorted(m["path"] for m in r["matches"]) == sorted("Docs/" + n for n in (BACKSLASH, LATIN1, "plain.txt"))
    assert r["filesSearched"] == 3
    r = ws.result("searchFiles", {"query": "needle", "path": "Docs", "glob": "caf*"})
    assert [m["path"] for m in r["matches"]] == ["Docs/" + LATIN1]


def test_the_escaped_text_round_trips_through_every_file_method(ws):
    make(ws.root, b"Docs/caf\xe9.txt", b"old bytes\n")
    p = "Docs/" + LATIN1

    info = ws.result("getFileInfo", {"path": p, "hash": "sha256"})
    assert info["path"] == p and info["size"] == len(b"old bytes\n")
    assert load_bytes(ws, p) == b"old bytes\n"
    assert ws.result("loadFile", {"path": p})["data"] == "old bytes\n"

    save(ws, p, b"new bytes\n", ifMatch=info["etag"])
    assert (ws.root / os.fsdecode(b"Docs/caf\xe9.txt")).read_bytes() == b"new bytes\n"
    ws.result("appendFile", {"path": p, "data": "more\n"})
    assert load_bytes(ws, p) == b"new bytes\nmore\n"

    # Copy and move to other such names: the bytes on disk are the escaped ones.
    assert ws.result("copyFile", {"from": p, "to": "Docs/copy\\xff.bin"})["to"] == "Docs/copy\\xff.bin"
    assert (ws.root / os.fsdecode(b"Docs/copy\xff.bin")).read_bytes() == b"new bytes\nmore\n"
    ws.result("moveFile", {"from": "Docs/copy\\xff.bin", "to": "Moved\\xfc/a\\x5cb.txt", "createParents": True})
    assert names_in(ws.root / "Docs") == {b"caf\xe9.txt"}
    assert (ws.root / os.fsdecode(b"Moved\xfc/a\\b.txt")).read_bytes() == b"new bytes\nmore\n"
    assert [e["path"] for e in ws.result("listFiles", {"path": "Moved\\xfc"})["entries"]] == ["Moved\\xfc/a\\x5cb.txt"]

    # A folder copy carries such names inside; a search goes into such a folder; the file URI
    # holds the real bytes.
    assert ws.result("copyFile", {"from": "Moved\\xfc", "to": "Copied"})["skippedEntries"] == []
    assert (ws.root / os.fsdecode(b"Copied/a\\b.txt")).read_bytes() == b"new bytes\nmore\n"
    found = ws.result("searchFiles", {"query": "more"})
    assert sorted(m["path"] for m in found["matches"]) == ["Copied/a\\x5cb.txt", p, "Moved\\xfc/a\\x5cb.txt"]
    assert ws.result("getFileUri", {"path": p})["uri"].endswith("/Docs/caf%E9.txt")
    ws.result("deleteFile", {"path": "Copied", "recursive": True})

    # A new file and a folder under such names, then deletes.
    save(ws, "new\\xe9.md", "fresh")
    assert (ws.root / os.fsdecode(b"new\xe9.md")).read_text() == "fresh"
    ws.result("createFolder", {"path": "dir\\xa0x"})
    assert (ws.root / os.fsdecode(b"dir\xa0x")).is_dir()
    for path in ("new\\xe9.md", p, "dir\\xa0x"):
        ws.result("deleteFile", {"path": path})
    ws.result("deleteFile", {"path": "Moved\\xfc", "recursive": True})
    assert not (ws.root / os.fsdecode(b"new\xe9.md")).exists() and names_in(ws.root / "Docs") == set()
    assert not (ws.root / os.fsdecode(b"Moved\xfc")).exists() and not (ws.root / os.fsdecode(b"dir\xa0x")).exists()


def test_a_real_backslash_name_and_the_escapes_own_spelling_never_collide(ws):
    # A file literally named `caf\xe9.txt` (ASCII, with a backslash) is another file than b"caf\xe9.txt".
    make(ws.root, b"caf\xe9.txt", b"latin-1")
    make(ws.root, b"caf\\xe9.txt", b"ascii with a backslash")
    listed = {e["name"] for e in ws.result("listFiles", {"path": ""})["entries"]}
    assert {"caf\\xe9.txt", "caf\\x5cxe9.txt"} <= listed
    assert load_bytes(ws, "caf\\xe9.txt") == b"latin-1"
    assert load_bytes(ws, "caf\\x5cxe9.txt") == b"ascii with a backslash"


@pytest.mark.parametrize("path", [
    "caf\\xE9.txt",          # uppercase digits: not the canonical text
    "caf\\xc3\\xa9.txt",     # an escaped UTF-8 sequence: é is written as itself
    "a\\x41",                # an escaped ASCII byte
    "a\\x2fb",               # an escaped separator
    "\\x2e\\x2e/secret",     # an escaped dot segment
    "x\\x00y",               # an escaped NUL
    "a\\b",                  # a bare backslash
    "a\\x5",                 # a cut escape
], ids=lambda v: v)
def test_any_other_spelling_of_an_escape_is_invalid_path(ws, path):
    for method, params in [("loadFile", {"path": path}), ("saveFile", {"path": path, "data": "x"}),
                           ("deleteFile", {"path": path}), ("moveFile", {"from": "context.md", "to": path})]:
        err = domain_error(ws, method, params, "InvalidPath")
        assert "\\x" in err["message"], err
    assert (ws.root / "context.md").is_file()
    assert not (ws.root.parent / "secret").exists()


def test_a_name_that_percent_decodes_to_path_syntax_is_reachable_by_its_escaped_percent(ws):
    # Clients may not send `a%2Fb` (a client decoding twice would see a separator); the file of
    # that name on disk is listed and reached as `a\x252Fb`.
    make(ws.root, b"odd/a%2Fb.txt", b"percent slash")
    make(ws.root, b"odd/%2e%2e", b"percent dots")
    make(ws.root, b"odd/100%.txt", b"plain percent")
    listed = [e["name"] for e in ws.result("listFiles", {"path": "odd"})["entries"]]
    assert listed == ["100%.txt", "\\x252e\\x252e", "a\\x252Fb.txt"]
    assert load_bytes(ws, "odd/a\\x252Fb.txt") == b"percent slash"
    assert load_bytes(ws, "odd/\\x252e\\x252e") == b"percent dots"
    assert load_bytes(ws, "odd/100%.txt") == b"plain percent"
    ws.result("moveFile", {"from": "odd/a\\x252Fb.txt", "to": "odd/b\\x252Fc.txt"})
    assert (ws.root / "odd" / "b%2Fc.txt").read_bytes() == b"percent slash"
    domain_error(ws, "loadFile", {"path": "odd/a%2Fb.txt"}, "InvalidPath")
    domain_error(ws, "loadFile", {"path": "odd/100\\x25.txt"}, "InvalidPath")
    assert not (ws.root / "b").exists()


def test_a_name_of_255_escaped_bytes_is_reachable(ws):
    make(ws.root, b"\xff" * 255, b"long")
    text = "\\xff" * 255
    assert text in {e["name"] for e in ws.result("listFiles", {"path": ""})["entries"]}
    assert load_bytes(ws, text) == b"long"
    domain_error(ws, "saveFile", {"path": text + "\\xff", "data": "x"}, "InvalidPath")   # 256 bytes on disk


def test_watch_notifications_name_such_files_by_their_text(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    assert b.result("watchFiles", {}) == {"watching": True}
    seen: list[dict] = []

    def arrived(path: str):
        for e in list(b.inbox):
            if isinstance(e.msg, dict) and e.msg.get("method") == "workspace/didChangeFiles":
                b.inbox.remove(e)
                seen.extend(e.msg["params"]["changes"])
        return next((c for c in seen if c["path"] == path), None)

    b.settle(0.3)
    make(ws_root, b"Research/caf\xe9.txt", b"x")
    change = b.pump_until(lambda: arrived("Research/" + LATIN1), 5.0, "a change of the latin-1 file")
    assert change["type"] == "created"
    os.mkdir(os.fsencode(ws_root) + b"/new\xe9")
    make(ws_root, b"new\xe9/inside.txt", b"y")
    b.pump_until(lambda: arrived("new\\xe9/inside.txt"), 5.0, "a change inside the latin-1 folder")
    # A folder spelled like the server's own is never notified (made first, then a sentinel).
    make(ws_root, b".Workspace/sessions/forged.json", b"{}")
    make(ws_root, b"WORKSP~1/x.txt", b"{}")
    make(ws_root, b"sentinel.txt", b"z")
    b.pump_until(lambda: arrived("sentinel.txt"), 5.0, "the sentinel")
    b.settle(0.3)
    arrived("")
    assert not [c for c in seen if c["path"].split("/")[0] in (".Workspace", "WORKSP~1")], seen


@pytest.mark.parametrize("mode", ["copy", "move"])
def test_migrate_carries_such_names_and_a_move_leaves_nothing_behind(spawn, tmp_path, mode):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    make(roots.local, b"Docs/caf\xe9.txt", b"latin-1 notes\n")
    make(roots.local, b"Docs/a\\b.txt", b"backslash\n")
    make(roots.local, b"Old\xff/deep.txt", b"deep\n")

    before = b.result("listFiles", {"path": "", "recursive": True})["entries"]
    r = b.result("migrate", {"to": "cloud", "mode": mode}, timeout=60)

    assert r["switched"] is True and r["skippedEntries"] == []
    for rel, data in [(b"Docs/caf\xe9.txt", b"latin-1 notes\n"), (b"Docs/a\\b.txt", b"backslash\n"),
                      (b"Old\xff/deep.txt", b"deep\n")]:
        assert (roots.cloud / os.fsdecode(rel)).read_bytes() == data
        assert (roots.local / os.fsdecode(rel)).exists() == (mode == "copy"), rel
    if mode == "move":
        assert not (roots.local / os.fsdecode(b"Old\xff")).exists()
        assert not (roots.local / "Docs").exists() or names_in(roots.local / "Docs") == set()
    after = b.result("listFiles", {"path": "", "recursive": True})["entries"]
    assert {e["path"] for e in after} >= {e["path"] for e in before if e["type"] == "file"} >= {"Docs/" + LATIN1}


def test_a_move_migration_reports_the_folder_it_cannot_walk_and_leaves_it_whole(spawn, tmp_path):
    # A folder deeper than walks go (256 levels) is not carried: it is reported, never dropped
    # silently, and stays in the old root with everything in it.
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    deep = b"/".join([b"d"] * 256)
    make(roots.local, deep + b"/lost.txt", b"deep\n")
    make(roots.local, b"d/near.txt", b"near\n")

    r = b.result("migrate", {"to": "cloud", "mode": "move"}, timeout=60)

    assert r["switched"] is True
    assert r["skippedEntries"] == [{"path": deep.decode(), "type": "directory", "reason": "TooLarge"}]
    assert (roots.cloud / "d" / "near.txt").read_bytes() == b"near\n" and not (roots.local / "d" / "near.txt").exists()
    assert (roots.local / deep.decode() / "lost.txt").read_bytes() == b"deep\n"


def test_usage_counts_such_names(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    make(roots.local, b"Docs/caf\xe9.txt", b"12345")
    make(roots.local, b"Old\xff/a\\b.txt", b"1234567")
    b = start(spawn, roots)
    u = info(b)["usage"]
    assert (u["files"], u["bytes"]) == usage_on_disk(roots.local)
    assert usage_on_disk(roots.local)[0] >= 2


# -- the reserved folders in every spelling -------------------------------------------------------

RESERVED_SPELLINGS = [
    ".Workspace", ".WORKSPACE", ".wor\u212aspace",   # case; the Kelvin sign (canonically K)
    ".work\u017fpace",                                 # long s: folds to s
    ".work\u200dspace",                                # an ignorable code point (HFS+)
    ".workspace.", ".workspace ",                      # trailing dot or space (Windows volumes)
    "WORKSP~1", "worksp~2",                            # FAT short names
    ".WB-Staging.NoSync", "WB-STA~1.NOS",
]


@pytest.mark.parametrize("folder", RESERVED_SPELLINGS, ids=lambda v: v.encode("unicode_escape").decode())
def test_a_reserved_folder_in_any_spelling_is_refused(ws, folder):
    before = sorted(os.listdir(ws.root / ".workspace"))
    for method, params in [
        ("saveFile", {"path": f"{folder}/sessions/forged.json", "data": "{}"}),
        ("appendFile", {"path": f"{folder}/approvals.jsonl", "data": "x"}),
        ("createFolder", {"path": f"{folder}/sessions"}),
        ("deleteFile", {"path": f"{folder}/sessions", "recursive": True}),
        ("deleteFile", {"path": folder, "recursive": True}),
        ("moveFile", {"from": folder, "to": "stolen"}),
        ("moveFile", {"from": "context.md", "to": f"{folder}/context.md"}),
        ("copyFile", {"from": "context.md", "to": f"{folder}/context.md"}),
        ("copyFile", {"from": folder, "to": "stolen"}),
        ("loadFile", {"path": f"{folder}/settings/x"}),
        ("listFiles", {"path": folder}),
        ("searchFiles", {"query": "a", "path": folder}),
        ("importFile", {"source": str(ws.root / "context.md"), "path": f"{folder}/imported.md"}),
        ("exportFile", {"path": f"{folder}/settings/x", "destination": str(ws.root.parent / "out")}),
        ("getFileUri", {"path": folder}),
        ("resolveConflict", {"path": f"{folder}/x", "keep": "current"}),
    ]:
        err = domain_error(ws, method, params, "PermissionDenied")
        assert "reserved" in err["message"], (method, err)
    assert sorted(os.listdir(ws.root / ".workspace")) == before
    assert not (ws.root / "stolen").exists() and (ws.root / "context.md").is_file()
    assert not (ws.root / folder).exists()


def test_a_folder_spelled_like_a_reserved_one_is_never_entered_by_listings_or_searches(ws):
    # On this (case-sensitive) volume these are other folders; on a folding one they would be
    # the server's own: neither listed inside nor searched, whatever the volume.
    for folder in (".Workspace", "WORKSP~1"):
        make(ws.root, folder.encode() + b"/sessions/s.json", b"needle\n")
    make(ws.root, b"visible.txt", b"needle\n")

    entries = [e["path"] for e in ws.result("listFiles", {"path": "", "recursive": True, "includeHidden": True})["entries"]]
    assert ".Workspace" in entries and "WORKSP~1" in entries
    assert not [p for p in entries if p.startswith((".Workspace/", "WORKSP~1/", ".workspace/"))], entries
    r = ws.result("searchFiles", {"query": "needle", "includeHidden": True})
    assert [m["path"] for m in r["matches"]] == ["visible.txt"]


def test_a_move_migration_reports_a_folder_spelled_like_a_reserved_one_and_leaves_it(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    make(roots.local, b".Workspace/mine.txt", b"a user's own folder on a case-sensitive volume\n")
    make(roots.local, b"kept.txt", b"kept\n")

    r = b.result("migrate", {"to": "cloud", "mode": "move"}, timeout=60)

    assert r["switched"] is True
    assert r["skippedEntries"] == [{"path": ".Workspace", "type": "directory", "reason": "PermissionDenied"}]
    assert (roots.local / ".Workspace" / "mine.txt").is_file() and not (roots.cloud / ".Workspace").exists()
    assert (roots.cloud / "kept.txt").read_bytes() == b"kept\n"


def test_the_agent_tools_refuse_a_reserved_folder_in_any_spelling(spawn, tmp_path):
    from sessions_helpers import Place, create
    place = Place(tmp_path)
    b = place.start(spawn)
    sid = create(b, title="reserved")["id"]
    for i, (name, args) in enumerate([
        ("write_file", {"path": ".Workspace/sessions/forged.json", "content": "{}"}),
        ("delete_file", {"path": ".WORKSPACE/sessions", "recursive": True}),
        ("move_file", {"from": "context.md", "to": ".wor\u212aspace/context.md"}),
        ("copy_file", {"from": "context.md", "to": "WORKSP~1/context.md"}),
        ("read_file", {"path": ".Workspace/settings/settings.json"}),
    ]):
        r = b.result("session/callTool", {"id": sid, "toolCallId": f"r{i}", "name": name, "arguments": args}, timeout=10)
        assert r["isError"] is True and r["structuredContent"]["code"] == "PermissionDenied", (name, r)
    for method, params in [("session/export", {"id": sid, "path": ".Workspace/sessions/planted.json"}),
                           ("session/import", {"path": ".WORKSPACE/sessions/planted.json"})]:
        err = b.error(method, params, timeout=10)
        assert err["data"]["code"] == "PermissionDenied", (method, err)
    assert (place.root / "context.md").is_file()
    assert not (place.root / ".Workspace").exists() and not (place.root / "WORKSP~1").exists()
