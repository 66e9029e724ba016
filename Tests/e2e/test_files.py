"""Workspace files (docs/protocol.md, "Workspace files"): every method's behaviour and errors.

The server runs with --local-root <tmp_path>/ws; the tests arrange files either through the
protocol or directly on disk, act through the protocol, and check both the answer (which the
harness also validates against schema/openrpc.json) and the disk.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
import urllib.parse
from pathlib import Path

import pytest

from bridge import jansson_compact
from wsfiles import (LOAD_LIMIT, MiB, b64, domain_error, is_temp_name, iso_ms, list_all, load_bytes, save,
                     unb64)

TEMPLATE_FOLDERS = ["Journal", "Journal/user", "Journal/agent", "Research", "Chats"]
TEMPLATE_FILES = ["context.md", "README.txt"]
ETAG = re.compile(r"^[0-9a-f]{16}$")


def names(entries):
    return [e["name"] for e in entries]


def paths(entries):
    return [e["path"] for e in entries]


def byte_sorted(items):
    return sorted(items, key=lambda s: s.encode("utf-8"))


# -- the workspace root and its template --------------------------------------

def test_first_start_creates_the_root_and_the_template(ws):
    root = ws.root

    for folder in TEMPLATE_FOLDERS:
        assert (root / folder).is_dir(), folder
    for f in TEMPLATE_FILES:
        assert (root / f).is_file() and (root / f).stat().st_size > 0, f
    assert (root / ".workspace").is_dir()
    assert load_bytes(ws, "context.md") == (root / "context.md").read_bytes()


def test_initialize_announces_the_workspace_root_and_change_notifications(spawn, ws_root):
    b = spawn("--local-root", str(ws_root), framing="ndjson")

    caps = b.initialize()["capabilities"]

    assert os.path.realpath(caps["workspace"]["root"]) == os.path.realpath(ws_root)
    assert caps["workspace"]["didChangeFiles"] is True
    assert "workspace/didChangeFiles" in caps["notifications"]["server"]


def test_initialization_option_local_root_chooses_the_root_without_the_flag(spawn, tmp_path):
    root = tmp_path / "from-options"
    b = spawn(framing="ndjson")

    caps = b.initialize(initializationOptions={"localRoot": str(root)})["capabilities"]
    save(b, "hello.txt", "hi")

    assert os.path.realpath(caps["workspace"]["root"]) == os.path.realpath(root)
    assert (root / "hello.txt").read_text() == "hi"
    assert (root / "context.md").is_file()


def test_without_a_root_the_default_is_under_xdg_data_home(spawn, tmp_path):
    b = spawn(framing="ndjson")

    caps = b.initialize()["capabilities"]
    save(b, "probe.txt", "x")

    default = tmp_path / "xdg-data" / "workspace-bridge" / "default"
    assert os.path.realpath(caps["workspace"]["root"]) == os.path.realpath(default)
    assert (default / "probe.txt").read_text() == "x"


def test_template_never_overwrites_existing_files(spawn, ws_root):
    ws_root.mkdir()
    (ws_root / "context.md").write_text("mine")
    b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)

    assert b.result("loadFile", {"path": "context.md"})["data"] == "mine"
    assert (ws_root / "README.txt").is_file()


def test_private_folder_is_hidden_unless_include_hidden(ws):
    plain = ws.result("listFiles", {"path": ""})
    hidden = ws.result("listFiles", {"path": "", "includeHidden": True})

    assert ".workspace" not in names(plain["entries"])
    assert ".workspace" in names(hidden["entries"])
    assert names(plain["entries"]) == byte_sorted(["Chats", "Journal", "README.txt", "Research", "context.md"])


@pytest.mark.parametrize("method, params", [
    ("loadFile", {"path": ".workspace/anything"}),
    ("saveFile", {"path": ".workspace/planted", "data": "x"}),
    ("appendFile", {"path": ".workspace/planted", "data": "x"}),
    ("listFiles", {"path": ".workspace"}),
    ("getFileInfo", {"path": ".workspace"}),
    ("deleteFile", {"path": ".workspace", "recursive": True}),
    ("moveFile", {"from": ".workspace", "to": "stolen"}),
    ("copyFile", {"from": ".workspace", "to": "stolen"}),
    ("moveFile", {"from": "context.md", "to": ".workspace/context.md"}),
    ("createFolder", {"path": ".workspace/sub"}),
    ("searchFiles", {"query": "a", "path": ".workspace"}),
    ("getFileUri", {"path": ".workspace"}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_private_folder_is_refused_for_direct_access(ws, method, params):
    before = sorted(os.listdir(ws.root / ".workspace"))

    err = domain_error(ws, method, params, "PermissionDenied")

    assert err["data"]["path"]
    assert sorted(os.listdir(ws.root / ".workspace")) == before
    assert not (ws.root / "stolen").exists() and (ws.root / "context.md").is_file()


@pytest.mark.parametrize("method", ["loadFile", "saveFile", "getFileInfo", "deleteFile"])
def test_temp_file_names_are_refused(ws, method):
    name = ".syncthing.notes.md.wb-0123456789abcdef.tmp"
    (ws.root / name).write_text("left over")
    params = {"path": name, "data": "x"} if method == "saveFile" else {"path": name}

    domain_error(ws, method, params, "InvalidPath")

    # the server may remove leftover temp files in the background at start; it must not write them
    assert not (ws.root / name).exists() or (ws.root / name).read_text() == "left over"


# -- saveFile / loadFile --------------------------------------------------------

@pytest.mark.parametrize("framing", ["lsp", "ndjson"])
def test_save_then_load_text_round_trips_in_both_framings(spawn, ws_root, framing):
    b = spawn("--local-root", str(ws_root), framing=framing, init=True)
    text = "Grüße, 世界 🙂\nline 2\n"

    saved = b.result("saveFile", {"path": "Research/notes.md", "data": text})
    loaded = b.result("loadFile", {"path": "Research/notes.md"})

    size = len(text.encode("utf-8"))
    assert saved["path"] == "Research/notes.md" and saved["size"] == size
    assert (ws_root / "Research/notes.md").read_bytes() == text.encode("utf-8")
    assert loaded["data"] == text and loaded["encoding"] == "utf8"
    assert loaded["size"] == size and loaded["offset"] == 0 and loaded["length"] == size and loaded["eof"] is True
    assert loaded["etag"] == saved["etag"] and loaded["modified"] == saved["modified"]


def test_save_then_load_base64_round_trips_every_byte_value(ws):
    data = bytes(range(256)) * 3

    saved = ws.result("saveFile", {"path": "bin/all.bin", "data": b64(data), "encoding": "base64"})
    loaded = ws.result("loadFile", {"path": "bin/all.bin", "encoding": "base64"})

    assert saved["size"] == len(data)
    assert (ws.root / "bin/all.bin").read_bytes() == data
    assert loaded["encoding"] == "base64" and unb64(loaded["data"]) == data and loaded["length"] == len(data)


def test_save_result_describes_the_file_on_disk(ws):
    saved = save(ws, "a.txt", "hello")

    st = os.stat(ws.root / "a.txt")
    assert saved["size"] == st.st_size == 5
    assert saved["modified"] == iso_ms(st.st_mtime_ns)
    assert ETAG.match(saved["etag"])


def test_save_of_an_empty_file(ws):
    saved = save(ws, "empty.txt", "")

    loaded = ws.result("loadFile", {"path": "empty.txt"})
    assert saved["size"] == 0 and loaded["data"] == "" and loaded["length"] == 0 and loaded["eof"] is True


def test_paths_with_empty_and_dot_segments_are_normalized(ws):
    saved = save(ws, "Research//./sub/./n.txt", "x")

    assert saved["path"] == "Research/sub/n.txt"
    assert (ws.root / "Research/sub/n.txt").read_text() == "x"
    assert ws.result("loadFile", {"path": "./Research/sub//n.txt"})["path"] == "Research/sub/n.txt"


def test_every_save_changes_the_etag_even_with_the_same_content(ws):
    first = save(ws, "e.txt", "same")
    second = save(ws, "e.txt", "same")

    assert first["etag"] != second["etag"]
    assert ws.result("getFileInfo", {"path": "e.txt"})["etag"] == second["etag"]


def test_save_replaces_the_file_with_a_new_inode(ws):
    save(ws, "r.txt", "one")
    ino = os.stat(ws.root / "r.txt").st_ino

    save(ws, "r.txt", "two")

    assert os.stat(ws.root / "r.txt").st_ino != ino
    assert (ws.root / "r.txt").read_text() == "two"


def test_save_keeps_the_permission_bits(ws):
    save(ws, "p.sh", "#!/bin/sh\n")
    os.chmod(ws.root / "p.sh", 0o751)

    save(ws, "p.sh", "#!/bin/sh\necho hi\n")

    assert os.stat(ws.root / "p.sh").st_mode & 0o7777 == 0o751
    assert ws.result("getFileInfo", {"path": "p.sh"})["mode"] == "0751"


def test_save_creates_missing_parents_by_default(ws):
    save(ws, "a/b/c/d.txt", "deep")

    assert (ws.root / "a/b/c/d.txt").read_text() == "deep"


def test_save_without_create_parents_and_a_missing_parent_is_not_found(ws):
    err = domain_error(ws, "saveFile", {"path": "missing/dir/f.txt", "data": "x", "createParents": False}, "NotFound")

    assert err["data"]["path"]
    assert not (ws.root / "missing").exists()


def test_save_without_create_parents_into_an_existing_folder_works(ws):
    save(ws, "Research/ok.txt", "x", createParents=False)

    assert (ws.root / "Research/ok.txt").read_text() == "x"


def test_save_with_matching_if_match_writes(ws):
    first = save(ws, "m.txt", "v1")

    second = save(ws, "m.txt", "v2", ifMatch=first["etag"])

    assert (ws.root / "m.txt").read_text() == "v2" and second["etag"] != first["etag"]


def test_save_with_stale_if_match_is_precondition_failed_with_the_current_etag(ws):
    first = save(ws, "m.txt", "v1")
    second = save(ws, "m.txt", "v2")

    err = domain_error(ws, "saveFile", {"path": "m.txt", "data": "v3", "ifMatch": first["etag"]}, "PreconditionFailed")

    assert err["data"]["currentEtag"] == second["etag"]
    assert err["data"]["path"] == "m.txt"
    assert (ws.root / "m.txt").read_text() == "v2"


def test_save_with_if_match_on_a_missing_file_is_precondition_failed_with_null(ws):
    err = domain_error(ws, "saveFile", {"path": "nope.txt", "data": "x", "ifMatch": "0123456789abcdef"},
                       "PreconditionFailed")

    assert err["data"]["currentEtag"] is None
    assert not (ws.root / "nope.txt").exists()


def test_exclusive_save_creates_a_new_file(ws):
    save(ws, "x.txt", "new", exclusive=True)

    assert (ws.root / "x.txt").read_text() == "new"


def test_exclusive_save_on_an_existing_file_is_already_exists(ws):
    save(ws, "x.txt", "old")

    domain_error(ws, "saveFile", {"path": "x.txt", "data": "new", "exclusive": True}, "AlreadyExists")

    assert (ws.root / "x.txt").read_text() == "old"


def test_save_onto_a_folder_is_is_a_directory(ws):
    domain_error(ws, "saveFile", {"path": "Research", "data": "x"}, "IsADirectory")

    assert (ws.root / "Research").is_dir()


def test_save_below_a_file_is_not_a_directory(ws):
    domain_error(ws, "saveFile", {"path": "context.md/child.txt", "data": "x"}, "NotADirectory")


def test_save_with_data_that_is_not_base64_is_invalid_params(ws):
    err = ws.error("saveFile", {"path": "b.bin", "data": "not base64!!", "encoding": "base64"})

    assert err["code"] == -32602 and err["data"]["code"] == "InvalidParams" and err["data"]["field"] == "data"
    assert not (ws.root / "b.bin").exists()


@pytest.mark.parametrize("params, field", [
    ({"data": "x"}, "path"),
    ({"path": "a.txt"}, "data"),
    ({"path": 5, "data": "x"}, "path"),
    ({"path": "a.txt", "data": "x", "encoding": "latin1"}, "encoding"),
    ({"path": "a.txt", "data": "x", "exclusive": "yes"}, "exclusive"),
])
def test_save_with_bad_param_types_is_invalid_params(ws, params, field):
    err = ws.error("saveFile", params)

    assert err["code"] == -32602 and err["data"]["field"] == field


def test_load_of_a_missing_file_is_not_found(ws):
    err = domain_error(ws, "loadFile", {"path": "Research/missing.md"}, "NotFound")

    assert err["data"]["path"] == "Research/missing.md"


def test_load_of_a_folder_is_is_a_directory(ws):
    domain_error(ws, "loadFile", {"path": "Research"}, "IsADirectory")


def test_load_a_range_with_offset_and_length(ws):
    (ws.root / "r.txt").write_bytes(b"0123456789")

    mid = ws.result("loadFile", {"path": "r.txt", "offset": 2, "length": 3})
    tail = ws.result("loadFile", {"path": "r.txt", "offset": 7})
    exact = ws.result("loadFile", {"path": "r.txt", "offset": 5, "length": 5})

    assert (mid["data"], mid["offset"], mid["length"], mid["eof"], mid["size"]) == ("234", 2, 3, False, 10)
    assert (tail["data"], tail["offset"], tail["length"], tail["eof"]) == ("789", 7, 3, True)
    assert (exact["data"], exact["length"], exact["eof"]) == ("56789", 5, True)


def test_load_a_range_as_base64(ws):
    data = bytes(range(200, 256)) + bytes(range(0, 50))
    (ws.root / "r.bin").write_bytes(data)

    r = ws.result("loadFile", {"path": "r.bin", "encoding": "base64", "offset": 10, "length": 40})

    assert unb64(r["data"]) == data[10:50] and r["length"] == 40 and r["eof"] is False


def test_load_a_range_longer_than_the_rest_stops_at_the_end(ws):
    (ws.root / "r.txt").write_bytes(b"abcdef")

    r = ws.result("loadFile", {"path": "r.txt", "offset": 4, "length": 100})

    assert r["data"] == "ef" and r["length"] == 2 and r["eof"] is True


def test_utf8_range_ending_inside_a_character_is_cut_back_to_a_character_boundary(ws):
    (ws.root / "u.txt").write_bytes("aé€🙂z".encode("utf-8"))   # 1 + 2 + 3 + 4 + 1 bytes

    r1 = ws.result("loadFile", {"path": "u.txt", "length": 2})     # a + first byte of é
    r2 = ws.result("loadFile", {"path": "u.txt", "length": 5})     # aé + 2 bytes of €
    r3 = ws.result("loadFile", {"path": "u.txt", "offset": 3, "length": 6})  # € + 3 of the 4 bytes of 🙂

    assert (r1["data"], r1["length"], r1["eof"]) == ("a", 1, False)
    assert (r2["data"], r2["length"], r2["eof"]) == ("aé", 3, False)
    assert (r3["data"], r3["offset"], r3["length"], r3["eof"]) == ("€", 3, 3, False)


def test_utf8_range_shorter_than_its_first_character_is_cut_back_to_nothing(ws):
    (ws.root / "u.txt").write_bytes("a🙂".encode("utf-8"))

    r = ws.result("loadFile", {"path": "u.txt", "offset": 1, "length": 3})   # 3 of the 4 bytes of 🙂

    assert (r["data"], r["length"], r["eof"]) == ("", 0, False)


def test_utf8_range_starting_inside_a_character_is_not_text(ws):
    (ws.root / "u.txt").write_bytes("aé".encode("utf-8"))

    domain_error(ws, "loadFile", {"path": "u.txt", "offset": 2, "length": 1}, "NotText")


def test_utf8_load_of_binary_is_not_text_and_says_to_use_base64(ws):
    (ws.root / "b.bin").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01")

    err = domain_error(ws, "loadFile", {"path": "b.bin"}, "NotText")

    assert "base64" in err["message"]
    assert unb64(ws.result("loadFile", {"path": "b.bin", "encoding": "base64"})["data"]) == b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01"


def test_load_of_more_than_16_mib_without_a_range_is_too_large(ws):
    size = LOAD_LIMIT + 1
    with open(ws.root / "big.bin", "wb") as f:
        f.truncate(size)

    err = domain_error(ws, "loadFile", {"path": "big.bin", "encoding": "base64"}, "TooLarge")

    assert err["data"]["size"] == size and err["data"]["limit"] == LOAD_LIMIT


def test_load_of_a_large_file_in_pages_with_offset_and_length(ws):
    data = os.urandom(1024) * (17 * 1024)          # 17 MiB
    (ws.root / "big.bin").write_bytes(data)

    first = ws.result("loadFile", {"path": "big.bin", "encoding": "base64", "length": 16 * MiB}, timeout=60)
    rest = ws.result("loadFile", {"path": "big.bin", "encoding": "base64", "offset": 16 * MiB}, timeout=60)

    assert first["length"] == 16 * MiB and first["eof"] is False and first["size"] == len(data)
    assert rest["length"] == MiB and rest["eof"] is True
    assert unb64(first["data"]) + unb64(rest["data"]) == data


def test_loading_a_range_longer_than_16_mib_is_too_large(ws):
    with open(ws.root / "big.bin", "wb") as f:
        f.truncate(LOAD_LIMIT + 10)

    err = domain_error(ws, "loadFile", {"path": "big.bin", "encoding": "base64", "length": LOAD_LIMIT + 1}, "TooLarge")

    assert err["data"]["limit"] == LOAD_LIMIT


# -- appendFile -------------------------------------------------------------------

def test_append_to_a_new_file_creates_it_with_its_parents(ws):
    r = ws.result("appendFile", {"path": "Journal/agent/new/log.md", "data": "first\n"})

    assert (ws.root / "Journal/agent/new/log.md").read_text() == "first\n"
    assert r["size"] == 6 and r["path"] == "Journal/agent/new/log.md"


def test_append_adds_to_the_end_in_both_encodings(ws):
    save(ws, "log.txt", "a\n")

    ws.result("appendFile", {"path": "log.txt", "data": "b\n"})
    r = ws.result("appendFile", {"path": "log.txt", "data": b64(b"\x00\xffc\n"), "encoding": "base64"})

    assert (ws.root / "log.txt").read_bytes() == b"a\nb\n\x00\xffc\n"
    assert r["size"] == 8


def test_append_without_create_parents_and_a_missing_parent_is_not_found(ws):
    domain_error(ws, "appendFile", {"path": "nowhere/log.txt", "data": "x", "createParents": False}, "NotFound")

    assert not (ws.root / "nowhere").exists()


def test_append_to_a_folder_is_is_a_directory(ws):
    domain_error(ws, "appendFile", {"path": "Chats", "data": "x"}, "IsADirectory")


def test_append_changes_the_etag(ws):
    first = save(ws, "log.txt", "a")

    r = ws.result("appendFile", {"path": "log.txt", "data": "b"})

    assert r["etag"] != first["etag"]
    assert ws.result("getFileInfo", {"path": "log.txt"})["etag"] == r["etag"]


def test_append_writes_through_a_hard_link_to_the_shared_inode(ws):
    save(ws, "h1.txt", "x")
    os.link(ws.root / "h1.txt", ws.root / "h2.txt")

    ws.result("appendFile", {"path": "h2.txt", "data": "y"})

    assert (ws.root / "h1.txt").read_text() == "xy"


def test_save_over_a_hard_link_does_not_write_through(ws):
    save(ws, "h1.txt", "x")
    os.link(ws.root / "h1.txt", ws.root / "h2.txt")

    save(ws, "h2.txt", "new")

    assert (ws.root / "h1.txt").read_text() == "x" and (ws.root / "h2.txt").read_text() == "new"


# -- listFiles ------------------------------------------------------------------------

def make_tree(root: Path, files: dict[str, bytes | str]):
    for rel, content in files.items():
        p = root / rel
        if rel.endswith("/"):
            p.mkdir(parents=True, exist_ok=True)
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content if isinstance(content, bytes) else content.encode())


def test_list_sorts_siblings_by_the_bytes_of_their_names(ws):
    names_ = ["b", "B", "a", "_x", "Z", "é", "a.txt", "aa", "10", "9", "~t"]
    make_tree(ws.root, {f"order/{n}": "x" for n in names_})

    r = ws.result("listFiles", {"path": "order"})

    assert names(r["entries"]) == byte_sorted(names_)
    assert paths(r["entries"]) == [f"order/{n}" for n in byte_sorted(names_)]
    assert "nextCursor" not in r


def test_list_entries_carry_the_facts_of_each_entry(ws):
    save(ws, "t/f.txt", "12345")
    (ws.root / "t/d").mkdir()

    entries = {e["name"]: e for e in ws.result("listFiles", {"path": "t"})["entries"]}

    f, d = entries["f.txt"], entries["d"]
    assert (f["path"], f["type"], f["size"], f["state"]) == ("t/f.txt", "file", 5, "current")
    assert f["etag"] == ws.result("getFileInfo", {"path": "t/f.txt"})["etag"]
    assert f["modified"] == iso_ms(os.stat(ws.root / "t/f.txt").st_mtime_ns)
    assert (d["path"], d["type"], d["size"]) == ("t/d", "directory", 0)


def test_a_file_dated_past_2262_reads_as_the_latest_time_there_is_and_the_server_keeps_serving(ws):
    # Nanoseconds since 1970 in 64 bits end in April 2262; a file from 2300 (a bad clock, a
    # restored archive) is still listed, with the latest time the protocol can carry.
    save(ws, "far.txt", "x")
    year_2300 = 10_413_792_000 * 10**9
    os.utime(ws.root / "far.txt", ns=(year_2300, year_2300))
    assert os.stat(ws.root / "far.txt").st_mtime_ns == year_2300, "the file system keeps the date"

    listed = {e["name"]: e for e in ws.result("listFiles", {"path": ""})["entries"]}
    info = ws.result("getFileInfo", {"path": "far.txt"})

    assert listed["far.txt"]["modified"] == info["modified"] == "2262-04-11T23:47:16.854Z"
    assert ws.result("getFileInfo", {"path": "context.md"})["path"] == "context.md"


TRICKY_NAMES = ["quo\"te", "back\\slash", "tab\there", "nl\nname", "cr\rname", "caf\u00e9.md", "\U0001F600", "del\x7f",
                "ctl\x01\x1fend", "\u6f22\u5b57", "sp ace", "long-" + "x" * 200]


def test_a_large_listing_is_exactly_jansson_compact_json_of_the_names_on_disk(ws):
    # Over 2,048 entries the server dumps the entries in parts on every core and joins them:
    # the joined bytes must be one compact dump, every tricky name as it is on disk (a backslash
    # in its escaped text, `\x5c`: docs/protocol.md, "File names").
    folder = ws.root / "many"
    folder.mkdir()
    on_disk = []
    for i in range(2600):
        name = f"{i:05d}{TRICKY_NAMES[i % len(TRICKY_NAMES)]}"
        (folder / name).write_bytes(b"x" * (i % 5))
        on_disk.append(name.replace("\\", "\\x5c"))

    entry = ws.response_entry(ws.request("listFiles", {"path": "many", "limit": 10000}))

    entries = entry.msg["result"]["entries"]
    assert names(entries) == byte_sorted(on_disk)
    assert [e["size"] for e in entries] == [int(n[:5]) % 5 for n in byte_sorted(on_disk)]
    assert entry.raw.rstrip(b"\n") == jansson_compact(entry.msg)


def test_a_large_text_read_is_exactly_jansson_compact_json_of_the_file(ws):
    # A string over 128 KiB is escaped by jansson in parts on every core, cut between
    # characters: the result is the file's text, written as one compact dump would write it.
    text = "".join(f"line {i} \"q\" \\ \t \x01\x1f caf\u00e9 \U0001F600 \u6f22\n" for i in range(12000))
    (ws.root / "big.txt").write_text(text, encoding="utf-8")

    entry = ws.response_entry(ws.request("loadFile", {"path": "big.txt"}))

    assert entry.msg["result"]["data"] == text
    assert entry.raw.rstrip(b"\n") == jansson_compact(entry.msg)


def test_list_of_the_root_lists_only_its_own_entries(ws):
    r = ws.result("listFiles", {})

    assert set(names(r["entries"])) == {"Chats", "Journal", "README.txt", "Research", "context.md"}


def test_recursive_list_is_depth_first(ws):
    make_tree(ws.root, {"t/b": "", "t/a/y/z": "", "t/a/x": "", "t/c/": "", "t/A": ""})

    r = ws.result("listFiles", {"path": "t", "recursive": True})

    assert paths(r["entries"]) == ["t/A", "t/a", "t/a/x", "t/a/y", "t/a/y/z", "t/b", "t/c"]


@pytest.mark.parametrize("depth, expected", [
    (1, ["t/a", "t/b"]),
    (2, ["t/a", "t/a/x", "t/a/y", "t/b"]),
    (3, ["t/a", "t/a/x", "t/a/y", "t/a/y/z", "t/b"]),
])
def test_recursive_list_stops_at_max_depth(ws, depth, expected):
    make_tree(ws.root, {"t/b": "", "t/a/y/z": "", "t/a/x": ""})

    r = ws.result("listFiles", {"path": "t", "recursive": True, "maxDepth": depth})

    assert paths(r["entries"]) == expected


def test_glob_without_a_slash_matches_names_at_any_depth(ws):
    make_tree(ws.root, {"g/a.md": "", "g/b.txt": "", "g/sub/c.md": "", "g/sub/d.mdx": "", "g/sub/deeper/e.md": ""})

    r = ws.result("listFiles", {"path": "g", "recursive": True, "glob": "*.md"})

    assert paths(r["entries"]) == ["g/a.md", "g/sub/c.md", "g/sub/deeper/e.md"]


def test_glob_with_a_slash_matches_the_path_relative_to_the_listed_folder(ws):
    make_tree(ws.root, {"g/a.md": "", "g/sub/c.md": "", "g/sub/deeper/e.md": "", "g/other/c.md": ""})

    one_level = ws.result("listFiles", {"path": "g", "recursive": True, "glob": "sub/*.md"})
    any_level = ws.result("listFiles", {"path": "g", "recursive": True, "glob": "sub/**/*.md"})

    assert paths(one_level["entries"]) == ["g/sub/c.md"]
    assert set(paths(any_level["entries"])) >= {"g/sub/deeper/e.md"}
    assert "g/other/c.md" not in paths(any_level["entries"]) and "g/a.md" not in paths(any_level["entries"])


@pytest.mark.parametrize("glob, expected", [
    ("?.txt", ["g/a.txt", "g/b.txt"]),
    ("[ab].*", ["g/a.md", "g/a.txt", "g/b.txt"]),
    ("*.{md,txt}", ["g/a.md", "g/a.txt", "g/b.txt", "g/cc.txt"]),
])
def test_glob_supports_question_mark_classes_and_alternatives(ws, glob, expected):
    make_tree(ws.root, {"g/a.md": "", "g/a.txt": "", "g/b.txt": "", "g/cc.txt": "", "g/d.bin": ""})

    r = ws.result("listFiles", {"path": "g", "glob": glob})

    assert paths(r["entries"]) == expected


def test_hidden_entries_only_with_include_hidden(ws):
    make_tree(ws.root, {"h/.hidden": "", "h/.dir/inside": "", "h/shown": ""})

    plain = ws.result("listFiles", {"path": "h", "recursive": True})
    hidden = ws.result("listFiles", {"path": "h", "recursive": True, "includeHidden": True})

    assert paths(plain["entries"]) == ["h/shown"]
    assert paths(hidden["entries"]) == ["h/.dir", "h/.dir/inside", "h/.hidden", "h/shown"]


def test_list_of_a_file_is_not_a_directory(ws):
    domain_error(ws, "listFiles", {"path": "context.md"}, "NotADirectory")


def test_list_of_a_missing_folder_is_not_found(ws):
    domain_error(ws, "listFiles", {"path": "no/such"}, "NotFound")


@pytest.mark.parametrize("limit", [0, 10001])
def test_list_limit_outside_1_to_10000_is_invalid_params(ws, limit):
    err = ws.error("listFiles", {"path": "", "limit": limit})

    assert err["code"] == -32602 and err["data"]["field"] == "limit"


def test_pagination_with_cursor_returns_every_file_exactly_once(ws):
    expected = [f"many/f{i:05d}.txt" for i in range(2500)]
    (ws.root / "many").mkdir()
    for p in expected:
        (ws.root / p).write_bytes(b"")

    pages = []
    cursor = None
    while True:
        params = {"path": "many", "limit": 1000}
        if cursor:
            params["cursor"] = cursor
        r = ws.result("listFiles", params, timeout=20)
        pages.append(paths(r["entries"]))
        cursor = r.get("nextCursor")
        if cursor is None:
            break

    assert [len(p) for p in pages] == [1000, 1000, 500]
    assert sum(pages, []) == expected


def test_default_limit_is_1000(ws):
    (ws.root / "many").mkdir()
    for i in range(1200):
        (ws.root / f"many/{i:04d}").write_bytes(b"")

    r = ws.result("listFiles", {"path": "many"}, timeout=20)

    assert len(r["entries"]) == 1000 and r.get("nextCursor")


def test_recursive_pagination_over_nested_folders_returns_every_entry_once(ws):
    files = {f"nest/d{i:02d}/f{j:03d}": "" for i in range(25) for j in range(100)}
    make_tree(ws.root, files)
    expected = []
    for i in range(25):
        expected.append(f"nest/d{i:02d}")
        expected += [f"nest/d{i:02d}/f{j:03d}" for j in range(100)]

    got = paths(list_all(ws, path="nest", recursive=True, limit=333, timeout=20))

    assert got == expected


# -- deleteFile -------------------------------------------------------------------------

def test_delete_a_file(ws):
    save(ws, "d.txt", "x")

    r = ws.result("deleteFile", {"path": "d.txt"})

    assert r == {"path": "d.txt", "deleted": True}
    assert not (ws.root / "d.txt").exists()


def test_delete_an_empty_folder(ws):
    (ws.root / "empty").mkdir()

    ws.result("deleteFile", {"path": "empty"})

    assert not (ws.root / "empty").exists()


def test_delete_a_non_empty_folder_without_recursive_is_directory_not_empty(ws):
    save(ws, "full/f.txt", "x")

    domain_error(ws, "deleteFile", {"path": "full"}, "DirectoryNotEmpty")

    assert (ws.root / "full/f.txt").is_file()


def test_delete_a_non_empty_folder_recursively(ws):
    make_tree(ws.root, {"full/a/b/c.txt": "x", "full/d.txt": "y", "full/.hidden": "z"})

    ws.result("deleteFile", {"path": "full", "recursive": True})

    assert not (ws.root / "full").exists()


def test_delete_the_root_is_permission_denied(ws):
    for params in ({"path": ""}, {"path": "", "recursive": True}, {"path": "./"}):
        domain_error(ws, "deleteFile", params, "PermissionDenied")

    assert (ws.root / "context.md").is_file()


def test_delete_a_missing_path_is_not_found(ws):
    domain_error(ws, "deleteFile", {"path": "ghost.txt"}, "NotFound")


# -- moveFile -----------------------------------------------------------------------------

def test_move_a_file(ws):
    saved = save(ws, "m/a.txt", "content")

    r = ws.result("moveFile", {"from": "m/a.txt", "to": "m/b.txt"})

    assert (r["from"], r["to"], r["type"], r["size"]) == ("m/a.txt", "m/b.txt", "file", 7)
    assert not (ws.root / "m/a.txt").exists() and (ws.root / "m/b.txt").read_text() == "content"
    assert ETAG.match(r["etag"]) and saved["etag"]


def test_move_creates_missing_parents_of_the_destination(ws):
    save(ws, "a.txt", "x")

    ws.result("moveFile", {"from": "a.txt", "to": "new/deep/a.txt"})

    assert (ws.root / "new/deep/a.txt").read_text() == "x"


def test_move_onto_an_existing_file_without_overwrite_is_already_exists(ws):
    save(ws, "a.txt", "A")
    save(ws, "b.txt", "B")

    domain_error(ws, "moveFile", {"from": "a.txt", "to": "b.txt"}, "AlreadyExists")

    assert (ws.root / "a.txt").read_text() == "A" and (ws.root / "b.txt").read_text() == "B"


def test_move_onto_an_existing_file_with_overwrite_replaces_it(ws):
    save(ws, "a.txt", "A")
    save(ws, "b.txt", "B")

    ws.result("moveFile", {"from": "a.txt", "to": "b.txt", "overwrite": True})

    assert not (ws.root / "a.txt").exists() and (ws.root / "b.txt").read_text() == "A"


def test_move_a_folder_with_its_contents(ws):
    make_tree(ws.root, {"src/a.txt": "a", "src/sub/b.txt": "b"})

    r = ws.result("moveFile", {"from": "src", "to": "dst"})

    assert r["type"] == "directory"
    assert not (ws.root / "src").exists()
    assert (ws.root / "dst/a.txt").read_text() == "a" and (ws.root / "dst/sub/b.txt").read_text() == "b"


def test_move_a_folder_into_itself_is_invalid_argument(ws):
    make_tree(ws.root, {"src/a.txt": "a"})

    domain_error(ws, "moveFile", {"from": "src", "to": "src/inner"}, "InvalidArgument")
    domain_error(ws, "moveFile", {"from": "src", "to": "src/inner/deeper"}, "InvalidArgument")

    assert (ws.root / "src/a.txt").read_text() == "a" and not (ws.root / "src/inner").exists()


def test_move_a_missing_source_is_not_found(ws):
    domain_error(ws, "moveFile", {"from": "ghost", "to": "x"}, "NotFound")


def test_move_to_a_name_sharing_a_prefix_is_not_into_itself(ws):
    make_tree(ws.root, {"src/a.txt": "a"})

    ws.result("moveFile", {"from": "src", "to": "src2"})

    assert (ws.root / "src2/a.txt").is_file()


# -- copyFile -----------------------------------------------------------------------------

def test_copy_a_file(ws):
    save(ws, "c/a.txt", "content")

    r = ws.result("copyFile", {"from": "c/a.txt", "to": "c/b.txt"})

    assert (r["from"], r["to"], r["type"], r["size"]) == ("c/a.txt", "c/b.txt", "file", 7)
    assert (ws.root / "c/a.txt").read_text() == "content" and (ws.root / "c/b.txt").read_text() == "content"
    assert os.stat(ws.root / "c/a.txt").st_ino != os.stat(ws.root / "c/b.txt").st_ino


def test_copy_creates_missing_parents_of_the_destination(ws):
    save(ws, "a.txt", "x")

    ws.result("copyFile", {"from": "a.txt", "to": "new/deep/a.txt"})

    assert (ws.root / "new/deep/a.txt").read_text() == "x" and (ws.root / "a.txt").is_file()


def test_copy_onto_an_existing_file_without_overwrite_is_already_exists(ws):
    save(ws, "a.txt", "A")
    save(ws, "b.txt", "B")

    domain_error(ws, "copyFile", {"from": "a.txt", "to": "b.txt"}, "AlreadyExists")

    assert (ws.root / "b.txt").read_text() == "B"


def test_copy_onto_an_existing_file_with_overwrite_replaces_it(ws):
    save(ws, "a.txt", "A")
    save(ws, "b.txt", "B")

    ws.result("copyFile", {"from": "a.txt", "to": "b.txt", "overwrite": True})

    assert (ws.root / "a.txt").read_text() == "A" and (ws.root / "b.txt").read_text() == "A"


def test_copy_a_folder_with_its_contents(ws):
    make_tree(ws.root, {"src/a.txt": "a", "src/sub/b.bin": b"\x00\x01", "src/empty/": ""})

    r = ws.result("copyFile", {"from": "src", "to": "dst"})

    assert r["type"] == "directory"
    assert (ws.root / "dst/a.txt").read_text() == "a" and (ws.root / "dst/sub/b.bin").read_bytes() == b"\x00\x01"
    assert (ws.root / "dst/empty").is_dir()
    assert (ws.root / "src/a.txt").is_file()


def test_copy_a_folder_onto_an_existing_folder_is_already_exists_even_with_overwrite(ws):
    make_tree(ws.root, {"src/a.txt": "a", "dst/keep.txt": "k"})

    domain_error(ws, "copyFile", {"from": "src", "to": "dst"}, "AlreadyExists")
    domain_error(ws, "copyFile", {"from": "src", "to": "dst", "overwrite": True}, "AlreadyExists")

    assert sorted(os.listdir(ws.root / "dst")) == ["keep.txt"]


def test_copy_a_folder_into_itself_is_invalid_argument(ws):
    make_tree(ws.root, {"src/a.txt": "a"})

    domain_error(ws, "copyFile", {"from": "src", "to": "src/copy"}, "InvalidArgument")

    assert sorted(os.listdir(ws.root / "src")) == ["a.txt"]


def test_copy_a_folder_skips_links_inside(ws):
    make_tree(ws.root, {"src/a.txt": "a"})
    os.symlink("a.txt", ws.root / "src/link")

    ws.result("copyFile", {"from": "src", "to": "dst"})

    assert sorted(os.listdir(ws.root / "dst")) == ["a.txt"]


def test_copy_a_missing_source_is_not_found(ws):
    domain_error(ws, "copyFile", {"from": "ghost", "to": "x"}, "NotFound")


@pytest.mark.parametrize("method", ["copyFile", "moveFile"])
def test_copy_or_move_of_a_file_onto_itself_never_loses_its_content(ws, method):
    save(ws, "self.txt", "precious")

    r = ws.call(method, {"from": "self.txt", "to": "./self.txt", "overwrite": True})

    assert "result" in r or r["error"]["code"] == -32803, r
    assert (ws.root / "self.txt").read_text() == "precious"


# -- createFolder ---------------------------------------------------------------------------

def test_create_folder_makes_missing_parents_like_mkdir_p(ws):
    r = ws.result("createFolder", {"path": "x/y/z"})

    assert r["path"] == "x/y/z" and r["type"] == "directory"
    assert (ws.root / "x/y/z").is_dir()
    assert r["modified"] == iso_ms(os.stat(ws.root / "x/y/z").st_mtime_ns)


def test_create_folder_that_exists_succeeds_like_mkdir_p(ws):
    save(ws, "x/keep.txt", "k")

    ws.result("createFolder", {"path": "x"})

    assert (ws.root / "x/keep.txt").read_text() == "k"


def test_create_folder_below_a_file_is_not_a_directory(ws):
    domain_error(ws, "createFolder", {"path": "context.md/sub"}, "NotADirectory")

    assert (ws.root / "context.md").is_file()


def test_create_folder_where_a_file_is_fails(ws):
    err = ws.error("createFolder", {"path": "context.md"})

    assert err["code"] == -32803 and err["data"]["code"] in ("AlreadyExists", "NotADirectory")
    assert (ws.root / "context.md").is_file()


# -- getFileInfo ---------------------------------------------------------------------------------

def test_file_info_of_a_file(ws):
    save(ws, "Research/i.txt", "info")
    os.chmod(ws.root / "Research/i.txt", 0o640)
    st = os.stat(ws.root / "Research/i.txt")

    r = ws.result("getFileInfo", {"path": "Research/i.txt"})

    assert (r["path"], r["name"], r["type"], r["size"], r["mode"], r["state"]) == \
        ("Research/i.txt", "i.txt", "file", 4, "0640", "current")
    assert r["modified"] == iso_ms(st.st_mtime_ns)
    assert "sha256" not in r


def test_file_info_with_sha256_equals_hashlib(ws):
    data = os.urandom(3 * MiB + 17)
    (ws.root / "h.bin").write_bytes(data)

    r = ws.result("getFileInfo", {"path": "h.bin", "hash": "sha256"}, timeout=20)

    assert r["sha256"] == hashlib.sha256(data).hexdigest()


def test_file_info_sha256_of_an_empty_file(ws):
    (ws.root / "e").write_bytes(b"")

    assert ws.result("getFileInfo", {"path": "e", "hash": "sha256"})["sha256"] == hashlib.sha256(b"").hexdigest()


def test_file_info_of_a_folder_and_the_root(ws):
    folder = ws.result("getFileInfo", {"path": "Research"})
    root = ws.result("getFileInfo", {"path": ""})

    assert (folder["type"], folder["name"]) == ("directory", "Research")
    assert (root["type"], root["name"], root["path"]) == ("directory", "", "")


def test_file_info_of_a_missing_path_is_not_found(ws):
    domain_error(ws, "getFileInfo", {"path": "ghost"}, "NotFound")


# -- searchFiles ----------------------------------------------------------------------------------

@pytest.fixture
def corpus(ws):
    make_tree(ws.root, {
        "s/a.md": "alpha\nThe Needle is here\nno match\nneedle again, needle twice\n",
        "s/b.txt": "nothing\n",
        "s/sub/c.md": "xx needle\n",
        "s/bin.dat": b"needle\x00binary needle\n",
        "s/.hidden.md": "needle hidden\n",
        "s/u.txt": "héllo wörld ✓ Ünïcode NEEDLE\nÉcole\n",
    })
    return ws


def test_search_is_literal_and_case_insensitive_by_default(corpus):
    r = corpus.result("searchFiles", {"query": "needle", "path": "s"})

    got = [(m["path"], m["line"], m["column"]) for m in r["matches"]]
    assert got == [("s/a.md", 2, 5), ("s/a.md", 4, 1), ("s/sub/c.md", 1, 4), ("s/u.txt", 1, 23)]
    assert r["matches"][0]["text"] == "The Needle is here"
    assert r["truncated"] is False


def test_search_case_sensitive(corpus):
    r = corpus.result("searchFiles", {"query": "Needle", "path": "s", "caseSensitive": True})

    assert [(m["path"], m["line"]) for m in r["matches"]] == [("s/a.md", 2)]


def test_search_query_is_literal_without_regex(ws):
    make_tree(ws.root, {"q/a.txt": "a.c\nabc\n(x)+\n"})

    dot = ws.result("searchFiles", {"query": "a.c", "path": "q"})
    paren = ws.result("searchFiles", {"query": "(x)+", "path": "q"})

    assert [m["line"] for m in dot["matches"]] == [1]
    assert [m["line"] for m in paren["matches"]] == [3]


def test_search_with_regex(corpus):
    r = corpus.result("searchFiles", {"query": r"need\w+\s+(is|twice)", "path": "s", "regex": True})

    assert [(m["path"], m["line"], m["column"]) for m in r["matches"]] == [("s/a.md", 2, 5), ("s/a.md", 4, 15)]


def test_search_with_regex_reports_the_first_match_column(ws):
    make_tree(ws.root, {"q/a.txt": "xx foo12 foo34\n"})

    r = ws.result("searchFiles", {"query": r"foo\d+", "path": "q", "regex": True})

    assert [(m["line"], m["column"], m["text"]) for m in r["matches"]] == [(1, 4, "xx foo12 foo34")]


def test_search_with_an_invalid_regex_is_invalid_argument(corpus):
    domain_error(corpus, "searchFiles", {"query": "(unclosed", "path": "s", "regex": True}, "InvalidArgument")


def test_search_with_glob(corpus):
    r = corpus.result("searchFiles", {"query": "needle", "path": "s", "glob": "*.md"})

    assert sorted({m["path"] for m in r["matches"]}) == ["s/a.md", "s/sub/c.md"]


def test_search_skips_binary_files(corpus):
    r = corpus.result("searchFiles", {"query": "binary", "path": "s"})

    assert r["matches"] == []


def test_search_includes_hidden_files_only_when_asked(corpus):
    plain = corpus.result("searchFiles", {"query": "hidden", "path": "s"})
    hidden = corpus.result("searchFiles", {"query": "hidden", "path": "s", "includeHidden": True})

    assert plain["matches"] == []
    assert [m["path"] for m in hidden["matches"]] == ["s/.hidden.md"]


def test_search_columns_count_characters_not_bytes(corpus):
    r = corpus.result("searchFiles", {"query": "wörld", "path": "s/u.txt"})

    assert [(m["line"], m["column"], m["text"]) for m in r["matches"]] == \
        [(1, 7, "héllo wörld ✓ Ünïcode NEEDLE")]


def test_search_case_insensitive_folds_non_ascii_letters(corpus):
    r = corpus.result("searchFiles", {"query": "école", "path": "s"})

    assert [(m["path"], m["line"], m["column"]) for m in r["matches"]] == [("s/u.txt", 2, 1)]


def test_search_of_one_file(corpus):
    r = corpus.result("searchFiles", {"query": "needle", "path": "s/a.md"})

    assert [m["line"] for m in r["matches"]] == [2, 4] and r["filesSearched"] == 1


def test_search_max_results_truncates(ws):
    make_tree(ws.root, {"t/a.txt": "hit\n" * 50, "t/b.txt": "hit\n" * 50})

    r = ws.result("searchFiles", {"query": "hit", "path": "t", "maxResults": 10})

    assert len(r["matches"]) == 10 and r["truncated"] is True
    assert [(m["path"], m["line"]) for m in r["matches"]] == [("t/a.txt", i) for i in range(1, 11)]


def test_search_that_fits_in_max_results_is_not_truncated(ws):
    make_tree(ws.root, {"t/a.txt": "hit\n" * 10})

    r = ws.result("searchFiles", {"query": "hit", "path": "t", "maxResults": 10})

    assert len(r["matches"]) == 10 and r["truncated"] is False


def test_search_counts_files_searched(ws):
    make_tree(ws.root, {f"t/{i}.txt": "x\n" for i in range(7)})

    r = ws.result("searchFiles", {"query": "nothing-matches", "path": "t"})

    assert r["matches"] == [] and r["filesSearched"] == 7


def test_search_text_is_at_most_1000_characters(ws):
    make_tree(ws.root, {"t/long.txt": "é" * 2000 + "needle" + "x" * 3000 + "\n"})

    r = ws.result("searchFiles", {"query": "needle", "path": "t"})

    (m,) = r["matches"]
    assert len(m["text"]) <= 1000 and m["column"] == 2001


def test_search_handles_crlf_and_a_last_line_without_newline(ws):
    make_tree(ws.root, {"t/crlf.txt": b"one\r\ntwo needle\r\nthree needle"})

    r = ws.result("searchFiles", {"query": "needle", "path": "t"})

    assert [(m["line"], m["text"]) for m in r["matches"]] == [(2, "two needle"), (3, "three needle")]


def test_search_of_a_missing_path_is_not_found(ws):
    domain_error(ws, "searchFiles", {"query": "x", "path": "ghost"}, "NotFound")


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory):
    """2,000 files of 20 KiB (40 MB of text) in 40 folders, made once for the module."""
    root = tmp_path_factory.mktemp("bigtree") / "ws"
    line = b"lorem ipsum dolor sit amet consectetur adipiscing elit " * 2 + b"\n"
    body = line * 184
    for d in range(40):
        folder = root / "big" / f"d{d:03d}"
        folder.mkdir(parents=True)
        for f in range(50):
            (folder / f"f{f:03d}.txt").write_bytes(body)
    return root


def test_cancel_request_stops_a_long_search_with_32800(spawn, big_tree):
    b = spawn("--local-root", str(big_tree), framing="ndjson", init=True)
    rid = b.request("searchFiles", {"query": r"(?:[a-z]+ ?){1,5}[0-9]", "regex": True, "path": "big"})  # minutes: heavy backtracking on each line
    time.sleep(0.2)

    b.notify("$/cancelRequest", {"id": rid})
    r = b.response(rid, timeout=10)

    # The order is the claim: the cancel's answer, not the search's (10 s is a hang guard).
    assert "error" in r, f"the search finished before the cancel arrived: {r['result'].get('filesSearched')} files"
    assert r["error"]["code"] == -32800 and r["error"]["data"]["code"] == "RequestCancelled"
    assert b.result("ping") == {}


def test_search_with_work_done_token_reports_files_searched(spawn, big_tree):
    b = spawn("--local-root", str(big_tree), framing="ndjson", init=True)

    rid = b.request("searchFiles", {"query": "no-such-text", "path": "big", "workDoneToken": "search-1"})
    response = b.response_entry(rid, timeout=120)

    assert response.msg["result"]["filesSearched"] == 2000
    events = [e for e in b.log if isinstance(e.msg, dict) and e.msg.get("method") == "$/progress"
              and e.msg["params"]["token"] == "search-1"]
    kinds = [e.msg["params"]["value"]["kind"] for e in events]
    assert kinds and kinds[0] == "begin" and kinds[-1] == "end", kinds
    assert set(kinds[1:-1]) <= {"report"}
    assert events[-1].seq < response.seq
    reports = [e for e in events if e.msg["params"]["value"]["kind"] == "report"]
    # At most 10 a second over the whole search, from its begin to its end (a sliding one-second
    # window of arrival times would count a bunch that a busy machine delivered late).
    span = events[-1].t - events[0].t
    assert len(reports) <= 10 * span + 2, f"{len(reports)} reports in {span:.2f} s"
    percentages = [e.msg["params"]["value"].get("percentage") for e in events]
    known = [p for p in percentages if p is not None]
    assert known == sorted(known)
    b.notifications("$/progress")


# -- watchFiles / unwatchFiles (results; notifications are in test_files_watch.py) -----------------

def test_watch_and_unwatch_answer_watching(ws):
    assert ws.result("watchFiles", {}) == {"watching": True}
    assert ws.result("watchFiles", {"glob": "*.md"}) == {"watching": True}
    assert ws.result("unwatchFiles", {}) == {"watching": False}


# -- host-only methods ---------------------------------------------------------------------------------

def test_get_file_uri_is_a_file_uri_of_the_entry_on_the_host(ws):
    save(ws, "Research/a b#%?.md", "x")

    uri = ws.result("getFileUri", {"path": "Research/a b#%?.md"})["uri"]

    parsed = urllib.parse.urlparse(uri)
    assert parsed.scheme == "file" and parsed.netloc == "" and not parsed.query and not parsed.fragment
    assert urllib.parse.unquote(parsed.path) == str(ws.root / "Research/a b#%?.md")


def test_get_file_uri_of_the_root(ws):
    uri = ws.result("getFileUri", {"path": ""})["uri"]

    assert urllib.parse.unquote(urllib.parse.urlparse(uri).path).rstrip("/") == str(ws.root)


def test_import_file_copies_a_host_file_into_the_workspace(ws, tmp_path):
    src = tmp_path / "host" / "in.bin"
    src.parent.mkdir()
    data = os.urandom(2 * MiB + 3)
    src.write_bytes(data)

    r = ws.result("importFile", {"source": str(src), "path": "Research/in.bin"}, timeout=20)

    assert (ws.root / "Research/in.bin").read_bytes() == data and src.read_bytes() == data
    assert r["path"] == "Research/in.bin" and r["size"] == len(data)
    assert r["etag"] == ws.result("getFileInfo", {"path": "Research/in.bin"})["etag"]


def test_import_file_onto_an_existing_file_needs_overwrite(ws, tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("new")
    save(ws, "dst.txt", "old")

    domain_error(ws, "importFile", {"source": str(src), "path": "dst.txt"}, "AlreadyExists")
    assert (ws.root / "dst.txt").read_text() == "old"

    ws.result("importFile", {"source": str(src), "path": "dst.txt", "overwrite": True})
    assert (ws.root / "dst.txt").read_text() == "new"


def test_import_file_of_a_missing_source_is_not_found(ws, tmp_path):
    domain_error(ws, "importFile", {"source": str(tmp_path / "nope"), "path": "x.txt"}, "NotFound")

    assert not (ws.root / "x.txt").exists()


def test_import_file_leaves_no_temp_file(ws, tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("data")

    ws.result("importFile", {"source": str(src), "path": "Research/in.txt"})

    assert not [n for n in os.listdir(ws.root / "Research") if is_temp_name(n)]


def test_export_file_copies_a_workspace_file_to_the_host(ws, tmp_path):
    data = os.urandom(MiB + 5)
    (ws.root / "Research/out.bin").write_bytes(data)
    dest = tmp_path / "exported" / "out.bin"
    dest.parent.mkdir()

    r = ws.result("exportFile", {"path": "Research/out.bin", "destination": str(dest)}, timeout=20)

    assert dest.read_bytes() == data
    assert r == {"path": "Research/out.bin", "destination": str(dest), "size": len(data)}


def test_export_file_onto_an_existing_host_file_needs_overwrite(ws, tmp_path):
    save(ws, "out.txt", "new")
    dest = tmp_path / "out.txt"
    dest.write_text("old")

    domain_error(ws, "exportFile", {"path": "out.txt", "destination": str(dest)}, "AlreadyExists")
    assert dest.read_text() == "old"

    ws.result("exportFile", {"path": "out.txt", "destination": str(dest), "overwrite": True})
    assert dest.read_text() == "new"


def test_export_file_of_a_missing_path_is_not_found(ws, tmp_path):
    domain_error(ws, "exportFile", {"path": "ghost", "destination": str(tmp_path / "x")}, "NotFound")

    assert not (tmp_path / "x").exists()


# -- lexical path rules that are not escapes ---------------------------------------------------------------

def test_a_name_over_255_bytes_is_invalid_path(ws):
    domain_error(ws, "saveFile", {"path": "n" * 256, "data": "x"}, "InvalidPath")
    save(ws, "n" * 255, "x")

    assert (ws.root / ("n" * 255)).is_file()


def test_a_path_over_4096_bytes_is_invalid_path(ws):
    path = "/".join(["d" * 100] * 41)   # 4140 bytes

    domain_error(ws, "saveFile", {"path": path, "data": "x"}, "InvalidPath")

    assert not (ws.root / ("d" * 100)).exists()


def test_names_with_percent_signs_that_do_not_encode_separators_are_allowed(ws):
    save(ws, "100% done.txt", "x")
    save(ws, "a%20b.txt", "y")

    assert (ws.root / "100% done.txt").read_text() == "x" and (ws.root / "a%20b.txt").read_text() == "y"


def test_names_that_merely_start_with_dots_are_allowed(ws):
    save(ws, "...txt", "x")
    save(ws, "..a", "y")

    assert (ws.root / "...txt").is_file() and (ws.root / "..a").is_file()
