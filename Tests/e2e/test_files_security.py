"""Containment: no path, spelling or link gets the server outside its workspace.

The world of every test (tmp_path):

    secret.txt                 outside, next to the root
    ws/                        the workspace root (--local-root)
    ws_secret/secret.txt       a sibling whose name starts with the root's name (prefix bypass)
    ws_secret/sub/deep.txt
    ws_evil/secret.txt         CVE-2025-53109/53110 style: its path string starts with the root's
    ws'/secret.txt             siblings differing from the root only by a trailing quote / space
    ws /secret.txt
    host/in.txt                a host file that importFile may read

and links inside the workspace (made after the server laid out its template):

    ws/link_file   -> <tmp>/secret.txt          ws/link_rel  -> ../secret.txt
    ws/link_dir    -> <tmp>/ws_secret           ws/sib_rel   -> ../ws_secret
    ws/evil        -> <tmp>/ws_evil             ws/quote     -> <tmp>/ws'     ws/space -> <tmp>/ws 
    ws/dangling    -> <tmp>/ws_secret/created_by_link.txt (missing)
    ws/dangling_dir-> <tmp>/ws_newdir (missing)
    ws/Research/mid-> <tmp>/ws_secret (a link in the middle of a path)
    ws/inner_link  -> context.md (inside, still never followed)
    ws/root_link   -> <tmp>/ws (the root itself, by absolute path)
    ws/self_loop   -> self_loop

Every refusal is checked for its data.code, and for what did not happen: inotify watches on
every folder outside the workspace must see no open, read, listing, write, attribute change,
create, delete or move; a snapshot of the outside and of the workspace must be unchanged; and no
byte of the secrets (nor their base64) may appear in anything the server wrote.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from wsfiles import SECRET_MARKER, SECRET_MARKER_B64, Untouched, b64, domain_error, iso_ms, list_all, save

OW, IP, SNF, PD = "OutsideWorkspace", "InvalidPath", "SymlinkNotFollowed", "PermissionDenied"


class World:
    def __init__(self, tmp: Path, b):
        self.tmp, self.b = tmp, b
        self.root = tmp / "ws"
        self.secret = tmp / "secret.txt"

    def fmt(self, value):
        if isinstance(value, str):
            return value.replace("{tmp}", str(self.tmp))
        if isinstance(value, dict):
            return {k: self.fmt(v) for k, v in value.items()}
        return value

    def guard(self, inside_unchanged=True, read_ok=("host",)):
        return Untouched(self.tmp, self.root, inside_unchanged=inside_unchanged, read_ok=read_ok)

    def assert_no_secret_leaked(self):
        out = bytes(self.b.raw_out)
        assert SECRET_MARKER not in out, "secret content appeared in the server's output"
        assert SECRET_MARKER_B64 not in out, "base64 of secret content appeared in the server's output"
        for p in (self.secret, self.tmp / "ws_secret/secret.txt", self.tmp / "ws_evil/secret.txt"):
            digest = hashlib.sha256(p.read_bytes()).hexdigest().encode()
            assert digest not in out, f"the sha256 of {p} appeared in the server's output"


def _secret(path: Path, label: str, mtime: int = 1_000_000_000):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(SECRET_MARKER + f"-{label}-".encode() + b"x" * 4000 + b"\n")
    os.utime(path, ns=(mtime * 10**9, mtime * 10**9))


def make_world(t: Path, r: Path) -> None:
    """Secrets beside the workspace root r (inside t) and links from r to them and to itself."""
    _secret(t / "secret.txt", "file")
    _secret(t / "ws_secret/secret.txt", "ws_secret")
    _secret(t / "ws_secret/sub/deep.txt", "deep")
    _secret(t / "ws_evil/secret.txt", "ws_evil")
    _secret(t / "ws'/secret.txt", "quote")
    _secret(t / "ws /secret.txt", "space")
    (t / "host").mkdir()
    (t / "host/in.txt").write_text("host data\n")
    links = {
        "link_file": str(t / "secret.txt"),
        "link_rel": "../secret.txt",
        "link_dir": str(t / "ws_secret"),
        "sib_rel": "../ws_secret",
        "evil": str(t / "ws_evil"),
        "quote": str(t / "ws'"),
        "space": str(t / "ws "),
        "dangling": str(t / "ws_secret/created_by_link.txt"),
        "dangling_dir": str(t / "ws_newdir"),
        "Research/mid": str(t / "ws_secret"),
        "inner_link": "context.md",
        "root_link": str(r),
        "self_loop": "self_loop",
    }
    for name, target in links.items():
        os.symlink(target, r / name)


@pytest.fixture
def world(tmp_path, ws) -> World:
    make_world(tmp_path, ws.root)
    return World(tmp_path, ws)


# (id, method, params, data.code); {tmp} is the folder holding the workspace and its neighbours.
ATTACKS = [
    # absolute paths, drive letters, home
    ("abs-load", "loadFile", {"path": "{tmp}/secret.txt"}, OW),
    ("abs-save", "saveFile", {"path": "{tmp}/created.txt", "data": "pwned"}, OW),
    ("abs-append", "appendFile", {"path": "{tmp}/secret.txt", "data": "pwned"}, OW),
    ("abs-inside-root", "loadFile", {"path": "{tmp}/ws/context.md"}, OW),
    ("abs-prefix-bypass-cve-2025-53110", "loadFile", {"path": "{tmp}/ws_evil/secret.txt"}, OW),
    ("abs-prefix-bypass-list", "listFiles", {"path": "{tmp}/ws_secret"}, OW),
    ("drive-letter", "loadFile", {"path": "C:/secret.txt"}, OW),
    ("drive-letter-lower", "saveFile", {"path": "c:/created.txt", "data": "pwned"}, OW),
    ("tilde", "loadFile", {"path": "~/secret.txt"}, OW),
    ("tilde-save", "saveFile", {"path": "~/created.txt", "data": "pwned"}, OW),
    # dot-dot in many spellings
    ("dotdot", "loadFile", {"path": "../secret.txt"}, OW),
    ("dotdot-nested", "loadFile", {"path": "a/../../secret.txt"}, OW),
    ("dot-dotdot", "loadFile", {"path": "./../secret.txt"}, OW),
    ("dotdot-inside-then-out", "loadFile", {"path": "Research/../../secret.txt"}, OW),
    ("dotdot-staying-inside", "loadFile", {"path": "Research/../context.md"}, OW),
    ("dotdot-only", "listFiles", {"path": ".."}, OW),
    ("dotdot-trailing-slash", "listFiles", {"path": "../"}, OW),
    ("dotdot-double-slash", "loadFile", {"path": "..//secret.txt"}, OW),
    ("dotdot-save", "saveFile", {"path": "Research/../../created.txt", "data": "pwned"}, OW),
    ("dotdot-sibling-prefix", "loadFile", {"path": "../ws_secret/secret.txt"}, OW),
    ("dotdot-sibling-quote", "loadFile", {"path": "../ws'/secret.txt"}, OW),
    ("dotdot-sibling-space", "loadFile", {"path": "../ws /secret.txt"}, OW),
    ("dotdot-info-sha256", "getFileInfo", {"path": "../secret.txt", "hash": "sha256"}, OW),
    ("dotdot-search", "searchFiles", {"query": "TOPSECRET", "path": ".."}, OW),
    ("dotdot-move-out", "moveFile", {"from": "context.md", "to": "../moved.md"}, OW),
    ("dotdot-move-in", "moveFile", {"from": "../secret.txt", "to": "stolen.txt"}, OW),
    ("dotdot-copy-out", "copyFile", {"from": "context.md", "to": "../ws_secret/copied.md"}, OW),
    ("dotdot-copy-in", "copyFile", {"from": "../secret.txt", "to": "stolen.txt"}, OW),
    ("dotdot-delete", "deleteFile", {"path": "../ws_secret", "recursive": True}, OW),
    ("dotdot-mkdir", "createFolder", {"path": "../ws_newdir"}, OW),
    ("dotdot-uri", "getFileUri", {"path": "../secret.txt"}, OW),
    ("dotdot-export", "exportFile", {"path": "../secret.txt", "destination": "{tmp}/host/exported.txt"}, OW),
    ("dotdot-import", "importFile", {"source": "{tmp}/host/in.txt", "path": "../ws_secret/imported.txt"}, OW),
    # bytes and encodings the kernel must never see
    ("nul", "loadFile", {"path": "context.md\u0000.txt"}, IP),
    ("nul-save", "saveFile", {"path": "x\u0000y", "data": "pwned"}, IP),
    ("pct-dotdot", "loadFile", {"path": "%2e%2e/secret.txt"}, IP),
    ("pct-dotdot-upper", "loadFile", {"path": "%2E%2E/secret.txt"}, IP),
    ("pct-slash", "loadFile", {"path": "..%2fsecret.txt"}, IP),
    ("pct-slash-upper", "loadFile", {"path": "Research%2F..%2F..%2Fsecret.txt"}, IP),
    ("pct-double-encoded", "loadFile", {"path": "%252e%252e/secret.txt"}, IP),
    ("pct-mixed", "loadFile", {"path": ".%2e/secret.txt"}, IP),
    ("backslash", "loadFile", {"path": "..\\secret.txt"}, IP),
    ("backslash-nested", "saveFile", {"path": "Research\\..\\..\\created.txt", "data": "pwned"}, IP),
    # links to outside, used directly
    ("link-load", "loadFile", {"path": "link_file"}, SNF),
    ("link-load-base64-range", "loadFile", {"path": "link_file", "encoding": "base64", "offset": 0, "length": 9}, SNF),
    ("link-rel-load", "loadFile", {"path": "link_rel"}, SNF),
    ("link-save", "saveFile", {"path": "link_file", "data": "pwned"}, SNF),
    ("link-save-exclusive-false", "saveFile", {"path": "link_file", "data": "pwned", "exclusive": False, "createParents": False}, SNF),
    ("link-append", "appendFile", {"path": "link_file", "data": "pwned"}, SNF),
    ("link-info-sha256", "getFileInfo", {"path": "link_file", "hash": "sha256"}, SNF),
    ("link-search-file", "searchFiles", {"query": "TOPSECRET", "path": "link_file"}, SNF),
    ("link-copy-from", "copyFile", {"from": "link_file", "to": "copied.txt"}, SNF),
    ("link-uri", "getFileUri", {"path": "link_file"}, SNF),
    ("link-export", "exportFile", {"path": "link_file", "destination": "{tmp}/host/exported.txt"}, SNF),
    # links to outside folders, passed through
    ("linkdir-load", "loadFile", {"path": "link_dir/secret.txt"}, SNF),
    ("linkdir-load-deep", "loadFile", {"path": "link_dir/sub/deep.txt"}, SNF),
    ("linkdir-save", "saveFile", {"path": "link_dir/created.txt", "data": "pwned"}, SNF),
    ("linkdir-save-over", "saveFile", {"path": "link_dir/secret.txt", "data": "pwned"}, SNF),
    ("linkdir-append", "appendFile", {"path": "link_dir/secret.txt", "data": "pwned"}, SNF),
    ("linkdir-list", "listFiles", {"path": "link_dir"}, SNF),
    ("linkdir-list-recursive", "listFiles", {"path": "link_dir/sub", "recursive": True}, SNF),
    ("linkdir-info", "getFileInfo", {"path": "link_dir/secret.txt"}, SNF),
    ("linkdir-info-sha256", "getFileInfo", {"path": "link_dir/secret.txt", "hash": "sha256"}, SNF),
    ("linkdir-search", "searchFiles", {"query": "TOPSECRET", "path": "link_dir"}, SNF),
    ("linkdir-copy-from", "copyFile", {"from": "link_dir", "to": "copied_dir"}, SNF),
    ("linkdir-copy-through", "copyFile", {"from": "link_dir/secret.txt", "to": "copied.txt"}, SNF),
    ("linkdir-copy-into", "copyFile", {"from": "context.md", "to": "link_dir/copied.md"}, SNF),
    ("linkdir-move-into", "moveFile", {"from": "context.md", "to": "link_dir/moved.md"}, SNF),
    ("linkdir-move-out-of", "moveFile", {"from": "link_dir/secret.txt", "to": "stolen.txt"}, SNF),
    ("linkdir-delete-through", "deleteFile", {"path": "link_dir/secret.txt"}, SNF),
    ("linkdir-delete-through-recursive", "deleteFile", {"path": "link_dir/sub", "recursive": True}, SNF),
    ("linkdir-mkdir-through", "createFolder", {"path": "link_dir/newdir/sub"}, SNF),
    ("linkdir-import-into", "importFile", {"source": "{tmp}/host/in.txt", "path": "link_dir/imported.txt"}, SNF),
    ("linkdir-uri-through", "getFileUri", {"path": "link_dir/secret.txt"}, SNF),
    # dangling links: a write through them would create a file outside
    ("dangling-save", "saveFile", {"path": "dangling", "data": "pwned"}, SNF),
    ("dangling-save-exclusive", "saveFile", {"path": "dangling", "data": "pwned", "exclusive": True}, SNF),
    ("dangling-append", "appendFile", {"path": "dangling", "data": "pwned"}, SNF),
    ("dangling-dir-save", "saveFile", {"path": "dangling_dir/f.txt", "data": "pwned"}, SNF),
    ("dangling-dir-mkdir", "createFolder", {"path": "dangling_dir/sub"}, SNF),
    ("dangling-import", "importFile", {"source": "{tmp}/host/in.txt", "path": "dangling", "overwrite": True}, SNF),
    # a link in the middle of a path
    ("mid-load", "loadFile", {"path": "Research/mid/secret.txt"}, SNF),
    ("mid-save-with-parents", "saveFile", {"path": "Research/mid/sub/new.txt", "data": "pwned"}, SNF),
    ("mid-list", "listFiles", {"path": "Research/mid/sub"}, SNF),
    ("mid-search", "searchFiles", {"query": "TOPSECRET", "path": "Research/mid"}, SNF),
    # path-prefix sibling, quote / space siblings, CVE-2025-53109 style link
    ("sibling-prefix-link", "loadFile", {"path": "sib_rel/secret.txt"}, SNF),
    ("sibling-prefix-link-save", "saveFile", {"path": "sib_rel/created.txt", "data": "pwned"}, SNF),
    ("sibling-quote-link", "loadFile", {"path": "quote/secret.txt"}, SNF),
    ("sibling-space-link", "loadFile", {"path": "space/secret.txt"}, SNF),
    ("cve-2025-53109-load", "loadFile", {"path": "evil/secret.txt"}, SNF),
    ("cve-2025-53109-save", "saveFile", {"path": "evil/planted.txt", "data": "pwned"}, SNF),
    ("cve-2025-53109-list", "listFiles", {"path": "evil"}, SNF),
    ("cve-2025-53109-info", "getFileInfo", {"path": "evil/secret.txt", "hash": "sha256"}, SNF),
    # links that point back inside are still never followed
    ("inner-link-load", "loadFile", {"path": "inner_link"}, SNF),
    ("inner-link-save", "saveFile", {"path": "inner_link", "data": "pwned"}, SNF),
    ("root-link-load", "loadFile", {"path": "root_link/context.md"}, SNF),
    ("root-link-list", "listFiles", {"path": "root_link"}, SNF),
    ("self-loop-load", "loadFile", {"path": "self_loop"}, SNF),
    ("self-loop-through", "loadFile", {"path": "self_loop/x"}, SNF),
]


@pytest.mark.parametrize("method, params, code", [a[1:] for a in ATTACKS], ids=[a[0] for a in ATTACKS])
def test_escape_attempt_is_refused_and_touches_nothing_outside(world, method, params, code):
    params = world.fmt(params)

    with world.guard():                      # checked first: nothing outside was touched
        response = world.b.call(method, params, timeout=10)

    world.assert_no_secret_leaked()
    assert "error" in response, f"{method} {params} was not refused: {response}"
    err = response["error"]
    assert (err["code"], err["data"]["code"]) == (-32803, code), f"{method} {params}: expected {code}, got {err}"
    assert "path" in err["data"], err
    assert world.b.result("ping") == {}


def test_the_attack_table_has_at_least_30_cases():
    assert len(ATTACKS) >= 30 and len({a[0] for a in ATTACKS}) == len(ATTACKS)


# -- operations on links that act on the link itself ----------------------------------------

def test_listing_shows_a_link_as_symlink_with_the_links_own_facts(world):
    root = world.root

    with world.guard():
        entries = {e["name"]: e for e in world.b.result("listFiles", {"path": ""})["entries"]}

    for name in ("link_file", "link_dir", "evil", "dangling", "self_loop"):
        e = entries[name]
        st = os.lstat(root / name)
        assert e["type"] == "symlink", e
        assert e["size"] == st.st_size == len(os.readlink(root / name)), e
        assert e["modified"] == iso_ms(st.st_mtime_ns), e
        assert not e["modified"].startswith("2001-"), "the target's mtime leaked"
    assert entries["link_file"]["size"] != world.secret.stat().st_size
    world.assert_no_secret_leaked()


def test_recursive_listing_never_descends_into_links(world):
    with world.guard():
        entries = list_all(world.b, path="", recursive=True, includeHidden=True)

    listed = {e["path"] for e in entries}
    assert "link_dir" in listed and "Research/mid" in listed
    assert not [p for p in listed if p.split("/")[0] in ("link_dir", "evil", "sib_rel", "quote", "space", "root_link")
                and "/" in p]
    assert not [p for p in listed if p.startswith("Research/mid/")]
    assert not [p for p in listed if "secret" in p or "deep" in p]


def test_recursive_listing_with_a_glob_never_reveals_outside_names(world):
    with world.guard():
        entries = list_all(world.b, path="", recursive=True, glob="**/secret*")

    assert entries == []


def test_file_info_of_a_link_never_describes_the_target(world):
    with world.guard():
        r = world.b.call("getFileInfo", {"path": "link_file"})

    if "error" in r:
        assert r["error"]["data"]["code"] == SNF
    else:
        info = r["result"]
        st = os.lstat(world.root / "link_file")
        assert info["type"] == "symlink" and info["size"] == st.st_size
        assert info["modified"] == iso_ms(st.st_mtime_ns) and "sha256" not in info
    world.assert_no_secret_leaked()


def test_search_of_the_whole_workspace_never_reads_through_links(world):
    with world.guard():
        r = world.b.result("searchFiles", {"query": "TOPSECRET", "path": "", "includeHidden": True})

    assert r["matches"] == []
    world.assert_no_secret_leaked()


def test_search_with_a_regex_never_reads_through_links(world):
    with world.guard():
        r = world.b.result("searchFiles", {"query": "TOP.*", "regex": True, "path": ""})

    assert not [m for m in r["matches"] if "SECRET" in m["text"]]


def test_moving_a_link_moves_the_link_not_the_target(world):
    target = os.readlink(world.root / "link_file")

    with world.guard(inside_unchanged=False):
        r = world.b.result("moveFile", {"from": "link_file", "to": "moved/link"})

    assert r["type"] == "symlink"
    assert not os.path.lexists(world.root / "link_file")
    assert os.path.islink(world.root / "moved/link") and os.readlink(world.root / "moved/link") == target
    assert world.secret.read_bytes().startswith(SECRET_MARKER)


def test_moving_a_link_to_a_folder_moves_the_link(world):
    with world.guard(inside_unchanged=False):
        world.b.result("moveFile", {"from": "link_dir", "to": "Chats/link_dir"})

    assert os.path.islink(world.root / "Chats/link_dir")
    assert (world.tmp / "ws_secret/secret.txt").is_file()


def test_moving_a_file_onto_a_link_never_writes_the_target(world):
    save(world.b, "plain.txt", "plain")
    before = world.secret.read_bytes()

    with world.guard(inside_unchanged=False):
        r = world.b.call("moveFile", {"from": "plain.txt", "to": "link_file", "overwrite": True})

    if "error" in r:     # refusing a link as the destination is fine too
        assert r["error"]["data"]["code"] == SNF and os.path.islink(world.root / "link_file")
    else:                # else the link itself is replaced
        assert not os.path.islink(world.root / "link_file")
        assert (world.root / "link_file").read_text() == "plain"
    assert world.secret.read_bytes() == before


def test_deleting_a_link_to_a_file_removes_the_link_and_the_target_survives(world):
    with world.guard(inside_unchanged=False):
        world.b.result("deleteFile", {"path": "link_file"})

    assert not os.path.lexists(world.root / "link_file")
    assert world.secret.read_bytes().startswith(SECRET_MARKER)


@pytest.mark.parametrize("recursive", [False, True])
def test_deleting_a_link_to_a_folder_removes_the_link_and_the_folder_survives(world, recursive):
    with world.guard(inside_unchanged=False):
        world.b.result("deleteFile", {"path": "link_dir", "recursive": recursive})

    assert not os.path.lexists(world.root / "link_dir")
    assert sorted(os.listdir(world.tmp / "ws_secret")) == ["secret.txt", "sub"]
    assert (world.tmp / "ws_secret/sub/deep.txt").is_file()


def test_deleting_a_folder_holding_a_link_keeps_the_links_target(world):
    with world.guard(inside_unchanged=False):
        world.b.result("deleteFile", {"path": "Research", "recursive": True})

    assert not os.path.lexists(world.root / "Research")
    assert (world.tmp / "ws_secret/secret.txt").is_file() and (world.tmp / "ws_secret/sub/deep.txt").is_file()


def test_copying_a_folder_holding_links_skips_them(world):
    with world.guard(inside_unchanged=False):
        world.b.result("copyFile", {"from": "Research", "to": "ResearchCopy"})

    assert (world.root / "ResearchCopy").is_dir()
    assert not os.path.lexists(world.root / "ResearchCopy/mid")
    world.assert_no_secret_leaked()


def test_moving_a_folder_holding_links_keeps_them_as_links(world):
    with world.guard(inside_unchanged=False):
        world.b.result("moveFile", {"from": "Research", "to": "Moved"})

    assert os.path.islink(world.root / "Moved/mid")
    assert sorted(os.listdir(world.tmp / "ws_secret")) == ["secret.txt", "sub"]


def test_dangling_link_is_never_written_through(world):
    with world.guard():
        for method in ("saveFile", "appendFile"):
            domain_error(world.b, method, {"path": "dangling", "data": "pwned"}, SNF)

    assert not (world.tmp / "ws_secret/created_by_link.txt").exists()
    assert os.path.islink(world.root / "dangling")


@pytest.mark.parametrize("cursor", ["../ws_secret/secret.txt", "{tmp}/ws_secret/zzz", "link_dir/zzz", "Research/mid/a"])
def test_a_crafted_cursor_never_lists_outside(world, cursor):
    with world.guard():
        r = world.b.call("listFiles", {"path": "", "recursive": True, "cursor": world.fmt(cursor)})

    if "result" in r:
        for e in r["result"]["entries"]:
            assert (world.root / e["path"]).exists() or os.path.lexists(world.root / e["path"]), e
            assert not e["path"].startswith(("link_dir/", "Research/mid/", "evil/")), e
    else:
        assert r["error"]["code"] in (-32602, -32803), r
    world.assert_no_secret_leaked()


# -- TOCTOU: a component swapped for a link between two calls ------------------------------------------

def test_a_folder_swapped_for_a_link_between_calls_is_refused(world):
    b = world.b
    save(b, "d/f", "inside")
    assert b.result("loadFile", {"path": "d/f"})["data"] == "inside"
    outside = world.tmp / "ws_secret"
    (outside / "f").write_bytes(SECRET_MARKER + b"-swapped\n")
    os.rename(world.root / "d", world.root / "d.old")
    os.symlink(outside, world.root / "d")

    with world.guard():
        domain_error(b, "loadFile", {"path": "d/f"}, SNF)
        domain_error(b, "saveFile", {"path": "d/f", "data": "pwned"}, SNF)
        domain_error(b, "appendFile", {"path": "d/f", "data": "pwned"}, SNF)

    assert (outside / "f").read_bytes() == SECRET_MARKER + b"-swapped\n"
    world.assert_no_secret_leaked()


@pytest.mark.parametrize("method, params", [
    ("getFileInfo", {"path": "d/f", "hash": "sha256"}),
    ("deleteFile", {"path": "d/f"}),
    ("listFiles", {"path": "d"}),
    ("searchFiles", {"query": "TOPSECRET", "path": "d"}),
    ("copyFile", {"from": "d/f", "to": "copied"}),
])
def test_a_folder_swapped_for_a_link_between_calls_is_refused_for_other_methods(world, method, params):
    b = world.b
    save(b, "d/f", "inside")
    b.result("getFileInfo", {"path": "d/f", "hash": "sha256"})
    (world.tmp / "ws_secret/f").write_bytes(SECRET_MARKER + b"-swapped\n")
    os.rename(world.root / "d", world.root / "d.old")
    os.symlink(world.tmp / "ws_secret", world.root / "d")

    with world.guard():
        response = b.call(method, params)

    world.assert_no_secret_leaked()
    assert "error" in response and response["error"]["data"]["code"] == SNF, response


def test_a_file_swapped_for_a_link_between_calls_is_refused(world):
    b = world.b
    save(b, "g.txt", "inside")
    os.unlink(world.root / "g.txt")
    os.symlink(world.secret, world.root / "g.txt")

    with world.guard():
        domain_error(b, "loadFile", {"path": "g.txt"}, SNF)
        domain_error(b, "saveFile", {"path": "g.txt", "data": "pwned"}, SNF)
        domain_error(b, "appendFile", {"path": "g.txt", "data": "pwned"}, SNF)

    world.assert_no_secret_leaked()


def test_links_made_by_another_process_during_a_session_are_refused_at_once(world):
    b = world.b
    save(b, "later/x.txt", "x")
    b.result("listFiles", {"path": "later"})
    os.symlink(world.tmp / "ws_secret", world.root / "later/new_link")

    with world.guard():
        domain_error(b, "loadFile", {"path": "later/new_link/secret.txt"}, SNF)
        domain_error(b, "saveFile", {"path": "later/new_link/y.txt", "data": "pwned"}, SNF)


# -- the escape must not work through host-only methods either ------------------------------------------

def test_import_file_reads_only_the_given_host_file(world):
    with world.guard(inside_unchanged=False):
        world.b.result("importFile", {"source": str(world.tmp / "host/in.txt"), "path": "Research/in.txt"})

    assert (world.root / "Research/in.txt").read_text() == "host data\n"


def test_get_file_uri_never_resolves_links(world):
    with world.guard():
        domain_error(world.b, "getFileUri", {"path": "Research/mid"}, SNF)


# -- the guard itself: it must see what it is meant to catch ----------------------------------------------

@pytest.mark.parametrize("action", ["read", "list", "write", "create", "delete", "chmod"])
def test_the_guard_catches_a_process_touching_the_outside(world, action):
    import subprocess
    secret, folder = str(world.secret), str(world.tmp / "ws_secret")
    commands = {
        "read": ["cat", secret], "list": ["ls", folder], "write": ["sh", "-c", f"echo x >> '{secret}'"],
        "create": ["touch", folder + "/new"], "delete": ["rm", folder + "/secret.txt"], "chmod": ["chmod", "600", secret],
    }

    with pytest.raises(AssertionError, match="touched files outside|changed"):
        with world.guard():
            subprocess.run(commands[action], check=True, capture_output=True)
