"""The reference MCP filesystem server's advisories of 2025-2026, replayed against this server
through both faces: the JSON-RPC file methods and the MCP face (`workspace-bridge mcp`,
`tools/call`, plus `resources/read` where the advisory names file resources).

| advisory            | what it was in @modelcontextprotocol/server-filesystem                      |
|---------------------|-----------------------------------------------------------------------------|
| CVE-2025-53109      | a link inside an allowed folder to a file or folder outside, read/written   |
| CVE-2025-53110      | a sibling whose path string starts with the allowed one (`ws_evil`, `ws2`)  |
| GHSA-53mr-w429-c597 | a parent folder swapped for a link between the check and the write         |
| GHSA-p9cv-8g75-4xcg | a folder swapped for a link between the check and the read (tools, resources)|
| GHSA-7m4x-rv66-mxhh | move_file's source folder swapped for a link: an outside file moved inside  |
| GHSA-7rgq-gccq-qphx | the check stripped a trailing quote/whitespace the operation kept           |
| GHSA-4gxg-m5jx-9j57 | a link spelled in another letter case passed the check for a new path       |

Every test id starts with the advisory it replays. Each case must be refused or harmless:
`wsfiles.Untouched` proves nothing outside the workspace was opened, read, listed, written,
created, deleted or moved (inotify + snapshots), no secret byte (nor its base64, nor an outside
file's name) appears in anything the server wrote, and the connection answers a `ping` within
PING_DEADLINE after each case.

The races run a thread that swaps a folder of the workspace with a link to an outside folder
(renameat2 RENAME_EXCHANGE, so the name always exists) while requests run, bounded by
RACE_ROUNDS requests and RACE_SECONDS; `WB_RACE_ROUNDS` changes the bound. Each race also checks
it saw both outcomes (some requests served, some refused), so it cannot pass without racing.

Special files (FIFOs, sockets, devices; GHSA-p9cv's second half) are tested with the other
special-file cases (NotARegularFile), not here.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from test_files_security import _secret, make_world
from wsfiles import SECRET_MARKER, SECRET_MARKER_B64, Untouched

OW, IP, SNF, NF = "OutsideWorkspace", "InvalidPath", "SymlinkNotFollowed", "NotFound"
PING_DEADLINE = 2.0
RACE_ROUNDS = int(os.environ.get("WB_RACE_ROUNDS", "150"))
RACE_SECONDS = 8.0
OUTSIDE_ONLY_NAME = "outside-only-name.txt"      # a name that exists only outside: never listed
INSIDE = b"inside content\n"


# -- the two faces ------------------------------------------------------------------------------

@dataclass
class Outcome:
    ok: bool
    value: Any          # the result (JSON-RPC) or structuredContent (MCP)
    code: str | None    # data.code of a refusal


class RpcFace:
    """The JSON-RPC file methods (ndjson)."""
    name = "jsonrpc"

    def __init__(self, b, root: Path):
        self.b, self.root = b, root

    def do(self, method: str, params: dict, timeout: float = 10.0) -> Outcome:
        r = self.b.call(method, params, timeout=timeout)
        if "result" in r:
            return Outcome(True, r["result"], None)
        err = r["error"]
        assert err["code"] == -32803 and "code" in err.get("data", {}), f"{method} {params}: not a typed refusal: {err}"
        return Outcome(False, err, err["data"]["code"])

    def ping(self) -> None:
        assert self.b.result("ping", timeout=PING_DEADLINE) == {}

    def output(self) -> bytes:
        return bytes(self.b.raw_out)


class McpFace:
    """`workspace-bridge mcp`: the same requests as tools/call (mcp_helpers.RawMCP, ndjson)."""
    name = "mcp"
    resource_error = -32803       # the JSON-RPC code of a refused resource (2025 era: the domain code)

    def __init__(self, r, root: Path, as_tool: Callable):
        self.r, self.root, self.as_tool = r, root, as_tool

    def _call(self, method: str, params: dict, timeout: float) -> dict:
        return self.r.call(method, params, timeout)

    def do(self, method: str, params: dict, timeout: float = 10.0) -> Outcome:
        tool = self.as_tool(method, params)
        assert tool is not None, f"{method} is host-only: no tool"
        name, args = tool
        r = self._call("tools/call", {"name": name, "arguments": args}, timeout)
        assert "result" in r, f"{name} {args}: {r}"
        res = r["result"]
        if res.get("isError"):
            sc = res.get("structuredContent") or {}
            assert "code" in sc, f"{name} {args}: an error without a code: {res}"
            return Outcome(False, res, sc["code"])
        return Outcome(True, res["structuredContent"], None)

    def read_resource(self, rel: str, timeout: float = 10.0) -> Outcome:
        from mcp_helpers import file_uri
        r = self._call("resources/read", {"uri": file_uri(self.root, rel)}, timeout)
        if "result" in r:
            return Outcome(True, r["result"], None)
        return Outcome(False, r["error"], (r["error"].get("data") or {}).get("code"))

    def subscribe(self, uri: str, timeout: float = 10.0) -> dict:
        return self._call("resources/subscribe", {"uri": uri}, timeout)

    def ping(self) -> None:
        assert self.r.result("ping", timeout=PING_DEADLINE) == {}

    def output(self) -> bytes:
        return b"\n".join(json.dumps(m).encode() for _, m in self.r.log)


class McpModernFace(McpFace):
    """The same tool calls in MCP's 2026-07-28 era: no handshake, every request carries `_meta`
    (mcp_modern.RawModern); liveness is `server/discover` (the revision has no ping)."""
    name = "mcp-modern"
    resource_error = -32602       # the revision's code for a resource that cannot be read

    def _call(self, method: str, params: dict, timeout: float) -> dict:
        return self.r.mcall(method, params, timeout=timeout)

    def subscribe(self, uri: str, timeout: float = 10.0) -> dict:
        """The revision's subscription: a listen whose only filter is the URI (refused at once)."""
        return self._call("subscriptions/listen", {"notifications": {"resourceSubscriptions": [uri]}}, timeout)

    def ping(self) -> None:
        assert self.r.mresult("server/discover", timeout=PING_DEADLINE)["resultType"] == "complete"


FACES = ["jsonrpc", "mcp", "mcp-modern"]


def case_insensitive(folder: Path) -> bool:
    probe = folder / "case-probe"
    probe.write_text("x")
    try:
        return (folder / "CASE-PROBE").exists()
    finally:
        probe.unlink()


class Adv:
    """One server on <tmp>/w/ws with the world of test_files_security around it, plus the
    siblings the advisories name: `ws-evil`, `ws2`, `ws"`, and (where names have case) `WS`."""

    def __init__(self, face, w: Path):
        self.face, self.w, self.root = face, w, face.root
        self.ci = case_insensitive(w)

    def fmt(self, value):
        if isinstance(value, str):
            return value.replace("{tmp}", str(self.w))
        if isinstance(value, dict):
            return {k: self.fmt(v) for k, v in value.items()}
        return value

    def guard(self, inside_unchanged: bool = False) -> Untouched:
        return Untouched(self.w, self.root, inside_unchanged=inside_unchanged, read_ok=("host",))

    def assert_nothing_leaked(self) -> None:
        out = self.face.output()
        assert SECRET_MARKER not in out, "secret content appeared in the server's output"
        assert SECRET_MARKER_B64 not in out, "base64 of secret content appeared in the server's output"
        assert OUTSIDE_ONLY_NAME.encode() not in out, "the name of an outside file appeared in the server's output"
        for p in self.w.rglob("*"):
            if p.is_file() and not p.is_symlink() and not p.is_relative_to(self.root) and SECRET_MARKER in p.read_bytes():
                assert hashlib.sha256(p.read_bytes()).hexdigest().encode() not in out, f"the sha256 of {p} leaked"


@pytest.fixture(params=FACES)
def adv(request, tmp_path, spawn, binary):
    """The world under <tmp>/w (the server's logs and config stay outside it), served through one face."""
    w = tmp_path / "w"
    w.mkdir()
    root = w / "ws"
    if request.param == "jsonrpc":
        b = spawn("--local-root", str(root), framing="ndjson", init=True)
        face = RpcFace(b, root)
    elif request.param == "mcp":
        pytest.importorskip("mcp")
        from mcp_helpers import RawMCP, server_args, server_env
        from test_mcp_security import as_tool
        r = RawMCP(binary, server_args(root, tmp_path / "cfg"), server_env(tmp_path), tmp_path / "mcp-stderr.log")
        request.addfinalizer(r.kill)
        r.initialize()
        face = McpFace(r, root, as_tool)
    else:
        pytest.importorskip("mcp")
        from mcp_helpers import server_args, server_env
        from mcp_modern import RawModern
        from test_mcp_security import as_tool
        r = RawModern(binary, server_args(root, tmp_path / "cfg"), server_env(tmp_path), tmp_path / "mcp-stderr.log")
        request.addfinalizer(r.kill)
        face = McpModernFace(r, root, as_tool)
        face.ping()                              # no handshake: the first request opens the workspace
    make_world(w, root)        # after the template was laid out (Research/ exists)
    for name in ("ws-evil", "ws2", 'ws"') + (() if case_insensitive(w) else ("WS",)):
        _secret(w / name / "secret.txt", name)
    os.symlink(w / "ws-evil", root / "evil_dash")
    return Adv(face, w)


# -- deterministic cases, one table --------------------------------------------------------------

# (id, method, params, expected): expected is a data.code (refused) or a callable(adv, Outcome)
# that checks a harmless success. {tmp} is the folder holding the workspace and its siblings.

def _exact_name_created(name: str, is_dir: bool = False):
    """The operation used the name exactly as given: that very entry exists inside the workspace."""
    def check(a: Adv, o: Outcome):
        assert o.ok, f"expected a harmless success, got {o.code}: {o.value}"
        p = a.root / name
        assert (p.is_dir() if is_dir else p.is_file()) and not p.is_symlink(), f"{name!r} was not created as spelled"
        stripped = name.strip().strip("'\"").strip()
        if stripped != name and not a.ci:
            assert not (a.root / stripped).exists() or stripped == "context.md", f"{stripped!r} was created instead"
    return check


def _case_variant(path: str):
    """A link's name in another letter case: where the volume ignores case it names the link, so
    it must be refused as one; where case matters it is another name of the workspace (served or
    NotFound), and the guard proves nothing outside was touched either way."""
    def check(a: Adv, o: Outcome):
        if a.ci:
            assert (o.ok, o.code) == (False, SNF), f"{path}: the link's other spelling was not refused: {o}"
        else:
            assert o.ok or o.code == NF, f"{path}: expected a plain workspace name, got {o.code}: {o.value}"
    return check


CASES = [
    # CVE-2025-53109: a link inside the workspace to outside, read, written, listed, searched, hashed
    ("CVE-2025-53109-read-link-to-file", "loadFile", {"path": "link_file"}, SNF),
    ("CVE-2025-53109-read-head-through-link", "loadFile", {"path": "link_file", "offset": 0, "length": 9}, SNF),
    ("CVE-2025-53109-read-media-through-link", "loadFile", {"path": "link_file", "encoding": "base64"}, SNF),
    ("CVE-2025-53109-write-through-link", "saveFile", {"path": "link_file", "data": "pwned"}, SNF),
    ("CVE-2025-53109-edit-through-link", "saveFile", {"path": "link_file", "data": "pwned", "ifMatch": "0123456789abcdef"}, SNF),
    ("CVE-2025-53109-append-through-link", "appendFile", {"path": "link_file", "data": "pwned"}, SNF),
    ("CVE-2025-53109-write-into-linked-folder", "saveFile", {"path": "evil/planted.txt", "data": "pwned"}, SNF),
    ("CVE-2025-53109-mkdir-in-linked-folder", "createFolder", {"path": "evil/newdir"}, SNF),
    ("CVE-2025-53109-list-linked-folder", "listFiles", {"path": "evil"}, SNF),
    ("CVE-2025-53109-tree-linked-folder", "listFiles", {"path": "evil", "recursive": True}, SNF),
    ("CVE-2025-53109-search-linked-folder", "searchFiles", {"query": "TOPSECRET", "path": "evil"}, SNF),
    ("CVE-2025-53109-info-through-link", "getFileInfo", {"path": "link_dir/secret.txt", "hash": "sha256"}, SNF),
    ("CVE-2025-53109-copy-out-through-link", "copyFile", {"from": "context.md", "to": "link_dir/copied.md"}, SNF),
    ("CVE-2025-53109-copy-in-through-link", "copyFile", {"from": "link_file", "to": "stolen.txt"}, SNF),
    ("CVE-2025-53109-move-into-linked-folder", "moveFile", {"from": "context.md", "to": "evil/moved.md"}, SNF),
    ("CVE-2025-53109-delete-through-link", "deleteFile", {"path": "link_dir/secret.txt"}, SNF),
    ("CVE-2025-53109-dangling-link-create", "saveFile", {"path": "dangling", "data": "pwned"}, SNF),
    # CVE-2025-53110: siblings whose path string starts with the root's
    ("CVE-2025-53110-abs-underscore-sibling", "loadFile", {"path": "{tmp}/ws_evil/secret.txt"}, OW),
    ("CVE-2025-53110-abs-dash-sibling", "loadFile", {"path": "{tmp}/ws-evil/secret.txt"}, OW),
    ("CVE-2025-53110-abs-digit-sibling", "saveFile", {"path": "{tmp}/ws2/planted.txt", "data": "pwned"}, OW),
    ("CVE-2025-53110-abs-root-then-dotdot", "loadFile", {"path": "{tmp}/ws/../ws2/secret.txt"}, OW),
    ("CVE-2025-53110-dotdot-sibling", "listFiles", {"path": "../ws2"}, OW),
    ("CVE-2025-53110-dotdot-sibling-search", "searchFiles", {"query": "TOPSECRET", "path": "../ws-evil"}, OW),
    ("CVE-2025-53110-link-to-sibling", "loadFile", {"path": "evil_dash/secret.txt"}, SNF),
    # GHSA-7rgq-gccq-qphx: trailing quotes and whitespace are part of the name, checked as used
    ("GHSA-7rgq-gccq-qphx-dotdot-quote-sibling", "loadFile", {"path": "../ws'/secret.txt"}, OW),
    ("GHSA-7rgq-gccq-qphx-dotdot-dquote-sibling", "loadFile", {"path": "../ws\"/secret.txt"}, OW),
    ("GHSA-7rgq-gccq-qphx-dotdot-space-sibling", "saveFile", {"path": "../ws /planted.txt", "data": "pwned"}, OW),
    ("GHSA-7rgq-gccq-qphx-abs-quote-sibling", "loadFile", {"path": "{tmp}/ws'/secret.txt"}, OW),
    ("GHSA-7rgq-gccq-qphx-abs-space-sibling", "listFiles", {"path": "{tmp}/ws "}, OW),
    ("GHSA-7rgq-gccq-qphx-quoted-abs-path", "loadFile", {"path": "\"{tmp}/ws_evil/secret.txt\""}, NF),
    ("GHSA-7rgq-gccq-qphx-single-quoted-abs-path", "loadFile", {"path": "'{tmp}/ws'/secret.txt"}, NF),
    ("GHSA-7rgq-gccq-qphx-space-before-abs-path", "loadFile", {"path": " {tmp}/secret.txt"}, NF),
    ("GHSA-7rgq-gccq-qphx-dotdot-with-space", "loadFile", {"path": ".. /secret.txt"}, NF),
    ("GHSA-7rgq-gccq-qphx-quoted-dotdot", "loadFile", {"path": "\"..\"/secret.txt"}, NF),
    ("GHSA-7rgq-gccq-qphx-quoted-name-read", "loadFile", {"path": "\"context.md\""}, NF),
    ("GHSA-7rgq-gccq-qphx-trailing-space-read", "loadFile", {"path": "context.md "}, NF),
    ("GHSA-7rgq-gccq-qphx-trailing-tab-read", "loadFile", {"path": "context.md\t"}, NF),
    ("GHSA-7rgq-gccq-qphx-quoted-link-name", "loadFile", {"path": "'link_file'"}, NF),
    ("GHSA-7rgq-gccq-qphx-quoted-name-write", "saveFile", {"path": "\"notes.md\"", "data": "n"},
     _exact_name_created("\"notes.md\"")),
    ("GHSA-7rgq-gccq-qphx-trailing-space-write", "saveFile", {"path": "notes.md ", "data": "n"},
     _exact_name_created("notes.md ")),
    ("GHSA-7rgq-gccq-qphx-single-quoted-write", "saveFile", {"path": "'notes.md'", "data": "n"},
     _exact_name_created("'notes.md'")),
    ("GHSA-7rgq-gccq-qphx-root-name-with-quote", "createFolder", {"path": "ws'"}, _exact_name_created("ws'", is_dir=True)),
    # GHSA-4gxg-m5jx-9j57: letter-case variants of links, of the root and of its siblings
    ("GHSA-4gxg-m5jx-9j57-upper-link-new-file", "saveFile", {"path": "EVIL/planted.txt", "data": "pwned"},
     _case_variant("EVIL/planted.txt")),
    ("GHSA-4gxg-m5jx-9j57-mixed-link-new-folder", "createFolder", {"path": "Evil/newdir"}, _case_variant("Evil/newdir")),
    ("GHSA-4gxg-m5jx-9j57-upper-link-read", "loadFile", {"path": "LINK_FILE"}, _case_variant("LINK_FILE")),
    ("GHSA-4gxg-m5jx-9j57-upper-link-append", "appendFile", {"path": "Link_File", "data": "pwned"}, _case_variant("Link_File")),
    ("GHSA-4gxg-m5jx-9j57-upper-link-move-into", "moveFile", {"from": "context.md", "to": "EVIL/moved.md"},
     _case_variant("EVIL/moved.md")),
    ("GHSA-4gxg-m5jx-9j57-upper-dangling", "saveFile", {"path": "DANGLING", "data": "pwned"}, _case_variant("DANGLING")),
    ("GHSA-4gxg-m5jx-9j57-upper-root-abs", "loadFile", {"path": "{tmp}/WS/context.md"}, OW),
    ("GHSA-4gxg-m5jx-9j57-upper-sibling-dotdot", "loadFile", {"path": "../WS/secret.txt"}, OW),
    ("GHSA-4gxg-m5jx-9j57-upper-sibling-prefix", "loadFile", {"path": "../WS_EVIL/secret.txt"}, OW),
    # GHSA-7m4x-rv66-mxhh: a move whose source is (or passes through) a link
    ("GHSA-7m4x-rv66-mxhh-source-through-linked-folder", "moveFile", {"from": "link_dir/secret.txt", "to": "stolen.txt"}, SNF),
    ("GHSA-7m4x-rv66-mxhh-source-through-mid-link", "moveFile", {"from": "Research/mid/sub", "to": "stolen"}, SNF),
    ("GHSA-7m4x-rv66-mxhh-source-outside", "moveFile", {"from": "../ws_secret/secret.txt", "to": "stolen.txt"}, OW),
    ("GHSA-7m4x-rv66-mxhh-source-abs-sibling", "moveFile", {"from": "{tmp}/ws2/secret.txt", "to": "stolen.txt"}, OW),
]


@pytest.mark.parametrize("method, params, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_advisory_case_is_refused_or_harmless(adv, method, params, expected):
    params = adv.fmt(params)
    refused = isinstance(expected, str)

    with adv.guard(inside_unchanged=refused):
        o = adv.face.do(method, params)

    if refused:
        assert not o.ok, f"{method} {params} was not refused: {o.value}"
        assert o.code == expected, f"{method} {params}: expected {expected}, got {o.code}: {o.value}"
    else:
        expected(adv, o)
    adv.assert_nothing_leaked()
    adv.face.ping()


def test_every_advisory_has_cases():
    ids = " ".join(c[0] for c in CASES) + " " + " ".join(n.replace("_", "-") for n in globals() if n.startswith("test_"))
    for advisory in ("CVE-2025-53109", "CVE-2025-53110", "GHSA-53mr-w429-c597", "GHSA-p9cv-8g75-4xcg",
                     "GHSA-7m4x-rv66-mxhh", "GHSA-7rgq-gccq-qphx", "GHSA-4gxg-m5jx-9j57"):
        assert advisory in ids, advisory
    assert len({c[0] for c in CASES}) == len(CASES)


def test_cve_2025_53109_no_method_or_tool_makes_a_link(adv):
    """EscapeRoute needs a link to outside inside the workspace: nothing the server offers makes one.
    Moving a link moves the link (still never followed); copying one is refused."""
    with adv.guard(inside_unchanged=False):
        moved = adv.face.do("moveFile", {"from": "link_file", "to": "moved/link"})
        assert moved.ok and moved.value["type"] == "symlink", moved
        assert adv.face.do("loadFile", {"path": "moved/link"}).code == SNF
        assert adv.face.do("copyFile", {"from": "moved/link", "to": "copy"}).code == SNF
        assert adv.face.do("copyFile", {"from": "Research", "to": "ResearchCopy"}).ok
    assert os.readlink(adv.root / "moved/link") == str(adv.w / "secret.txt")
    assert not os.path.lexists(adv.root / "ResearchCopy/mid"), "a link was copied"
    links = {p.relative_to(adv.root).as_posix() for p in adv.root.rglob("*") if p.is_symlink()}
    assert links == {"link_rel", "link_dir", "sib_rel", "evil", "quote", "space", "dangling", "dangling_dir",
                     "Research/mid", "inner_link", "root_link", "self_loop", "evil_dash", "moved/link"}, links
    adv.assert_nothing_leaked()
    adv.face.ping()


# -- MCP file resources: the same spellings as resource URIs ---------------------------------------

RESOURCE_CASES = [   # (id, where, data.code); None: SymlinkNotFollowed where names ignore case, else NotFound
    ("CVE-2025-53109-resource-link-to-file", "{root}/link_file", SNF),
    ("CVE-2025-53109-resource-through-linked-folder", "{root}/evil/secret.txt", SNF),
    ("CVE-2025-53110-resource-underscore-sibling", "{tmp}/ws_evil/secret.txt", OW),
    ("CVE-2025-53110-resource-dash-sibling", "{tmp}/ws-evil/secret.txt", OW),
    ("CVE-2025-53110-resource-digit-sibling", "{tmp}/ws2/secret.txt", OW),
    ("GHSA-7rgq-gccq-qphx-resource-quote-sibling", "{tmp}/ws'/secret.txt", OW),
    ("GHSA-7rgq-gccq-qphx-resource-encoded-quote-sibling", "{tmp}/ws%27/secret.txt", OW),
    ("GHSA-7rgq-gccq-qphx-resource-space-sibling", "{tmp}/ws%20/secret.txt", OW),
    ("GHSA-7rgq-gccq-qphx-resource-dquote-sibling", "{tmp}/ws%22/secret.txt", OW),
    ("GHSA-4gxg-m5jx-9j57-resource-upper-root", "{tmp}/WS/secret.txt", OW),
    ("GHSA-4gxg-m5jx-9j57-resource-upper-link", "{root}/EVIL/secret.txt", None),
]


@pytest.mark.parametrize("adv", ["mcp", "mcp-modern"], indirect=True)
@pytest.mark.parametrize("where, code", [c[1:] for c in RESOURCE_CASES], ids=[c[0] for c in RESOURCE_CASES])
def test_advisory_resource_uri_is_refused(adv, where, code):
    """resources/read and resources/subscribe of the advisories' spellings as file:// URIs."""
    uri = "file://" + where.replace("{root}", str(adv.root)).replace("{tmp}", str(adv.w))
    code = code or (SNF if adv.ci else NF)
    face = adv.face

    with adv.guard(inside_unchanged=True):
        read = face._call("resources/read", {"uri": uri}, 10.0)
        sub = face.subscribe(uri)

    for res in (read, sub):
        assert "error" in res and res["error"]["code"] == face.resource_error, f"{uri}: {res}"
        assert res["error"]["data"]["code"] == code, f"{uri}: expected {code}: {res}"
    adv.assert_nothing_leaked()
    adv.face.ping()


# -- the races ------------------------------------------------------------------------------------

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2


class Swapper(threading.Thread):
    """Swaps `a` and `b` (a folder and a link) atomically, over and over, until stopped; ends with
    both where they started."""

    def __init__(self, a: Path, b: Path):
        super().__init__(daemon=True)
        self.a, self.b = os.fsencode(str(a)), os.fsencode(str(b))
        self.stop = threading.Event()
        self.swaps = 0
        self.error: str | None = None

    def _swap(self) -> bool:
        if _libc.renameat2(AT_FDCWD, self.a, AT_FDCWD, self.b, RENAME_EXCHANGE) != 0:
            self.error = os.strerror(ctypes.get_errno())
            return False
        self.swaps += 1
        return True

    def run(self) -> None:
        while not self.stop.is_set() and self._swap():
            time.sleep(0.0002)
        if self.swaps % 2:
            self._swap()

    def __enter__(self):
        if not hasattr(_libc, "renameat2"):
            pytest.skip("renameat2 is not available in this C library")
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.join(10)
        assert not self.is_alive(), "the swapping thread did not stop"
        assert self.error is None, f"renameat2 failed: {self.error}"
        assert self.swaps % 2 == 0


def race(adv: Adv, folder: str, outside: Path, one_round: Callable[[int], list[tuple[str, Outcome]]]) -> dict[str, int]:
    """Runs `one_round(i)` while `folder` (a real folder) and a link to `outside` swap places;
    returns how many requests were served and refused. Every refusal must be SymlinkNotFollowed
    (the name always exists, as a folder or a link), and a ping answers after every round."""
    link = adv.root / (folder + ".link")
    os.symlink(outside, link)
    counts = {"ok": 0, "refused": 0}
    refusals: dict[str, int] = {}
    deadline = time.monotonic() + RACE_SECONDS
    with adv.guard(inside_unchanged=False):
        with Swapper(adv.root / folder, link) as swapper:
            i = 0
            while i < RACE_ROUNDS and time.monotonic() < deadline:
                for what, o in one_round(i):
                    if o.ok:
                        counts["ok"] += 1
                    else:
                        counts["refused"] += 1
                        refusals[o.code] = refusals.get(o.code, 0) + 1
                        assert o.code == SNF, f"{what}: unexpected refusal {o.code}: {o.value}"
                adv.face.ping()
                i += 1
    assert os.path.isdir(adv.root / folder) and not os.path.islink(adv.root / folder)
    adv.assert_nothing_leaked()
    assert swapper.swaps >= 20, f"only {swapper.swaps} swaps: the race did not run"
    assert counts["ok"] and counts["refused"], f"the race never hit both states: {counts} {refusals}"
    counts["swaps"], counts["rounds"] = swapper.swaps, i
    counts.update({f"refused {c}": n for c, n in refusals.items()})
    return counts


def _outside(adv: Adv, name: str, files: dict[str, bytes]) -> Path:
    d = adv.w / name
    d.mkdir()
    for n, data in files.items():
        (d / n).write_bytes(data)
    (d / OUTSIDE_ONLY_NAME).write_bytes(SECRET_MARKER + b"-only\n")
    return d


def test_GHSA_53mr_w429_c597_a_parent_swapped_for_a_link_during_writes(adv):
    """Writes (save, replace, append, create folder, move and copy destinations, delete) while
    their parent folder is swapped for a link to outside: every one lands inside or is refused."""
    out = _outside(adv, "race_out", {"f": SECRET_MARKER + b"-race\n",
                                      **{f"del-{i}": SECRET_MARKER + b"-del\n" for i in range(RACE_ROUNDS)}})
    (adv.root / "d").mkdir()
    (adv.root / "d/f").write_bytes(INSIDE)
    for i in range(RACE_ROUNDS):
        (adv.root / f"d/del-{i}").write_bytes(INSIDE)
    (adv.root / "m").mkdir()
    for i in range(RACE_ROUNDS):
        (adv.root / f"m/{i}.txt").write_bytes(INSIDE)
    f = adv.face

    def one_round(i: int):
        return [
            ("save", f.do("saveFile", {"path": f"d/new-{i}.txt", "data": "w"})),
            ("replace", f.do("saveFile", {"path": "d/f", "data": "inside content\n"})),
            ("append", f.do("appendFile", {"path": "d/f", "data": ""})),
            ("mkdir", f.do("createFolder", {"path": f"d/sub-{i}/deeper"})),
            ("move-to", f.do("moveFile", {"from": f"m/{i}.txt", "to": f"d/moved-{i}.txt"})),
            ("copy-to", f.do("copyFile", {"from": "context.md", "to": f"d/copied-{i}.md"})),
            ("delete", f.do("deleteFile", {"path": f"d/del-{i}"})),
        ]

    counts = race(adv, "d", out, one_round)
    assert sorted(os.listdir(out)) == sorted(["f", OUTSIDE_ONLY_NAME] + [f"del-{i}" for i in range(RACE_ROUNDS)]), \
        "something was written into or deleted from the outside folder"
    assert (out / "f").read_bytes() == SECRET_MARKER + b"-race\n"
    assert (adv.root / "d/f").read_bytes() == INSIDE
    print(f"{adv.face.name}: {counts}")


def test_GHSA_p9cv_8g75_4xcg_a_folder_swapped_for_a_link_during_reads(adv):
    """Reads (whole, head and tail ranges, hash, list, tree, searches, copy source; resources/read on
    the MCP face) while the folder is swapped for a link to outside: only inside bytes come back."""
    out = _outside(adv, "race_out", {"f": SECRET_MARKER + b"-race\n"})
    (adv.root / "d").mkdir()
    (adv.root / "d/f").write_bytes(INSIDE)
    inside_sha = hashlib.sha256(INSIDE).hexdigest()
    f = adv.face

    def data_of(o: Outcome) -> Outcome:
        if o.ok:
            assert o.value["data"] in (INSIDE.decode(), INSIDE.decode()[:6], INSIDE.decode()[-4:]), o.value
        return o

    def one_round(i: int):
        rounds = [
            ("read", data_of(f.do("loadFile", {"path": "d/f"}))),
            ("head", data_of(f.do("loadFile", {"path": "d/f", "offset": 0, "length": 6}))),
            ("tail", data_of(f.do("loadFile", {"path": "d/f", "offset": len(INSIDE) - 4}))),
        ]
        info = f.do("getFileInfo", {"path": "d/f", "hash": "sha256"})
        assert not info.ok or info.value["sha256"] == inside_sha, info
        listing = f.do("listFiles", {"path": "d"})
        assert not listing.ok or [e["name"] for e in listing.value["entries"]] == ["f"], listing
        found = f.do("searchFiles", {"query": "TOPSECRET", "path": "d"})
        assert not found.ok or found.value["matches"] == [], found
        everywhere = f.do("searchFiles", {"query": "TOPSECRET", "path": ""})
        assert everywhere.ok and everywhere.value["matches"] == [], everywhere
        tree = f.do("listFiles", {"path": "", "recursive": True})
        # the real folder is `d` or `d.link` at any moment; nothing of the outside one is listed
        assert tree.ok and {e["name"] for e in tree.value["entries"] if e["path"].startswith(("d/", "d.link/"))} <= {"f"}, tree
        copied = f.do("copyFile", {"from": "d/f", "to": f"copies/{i}"})
        assert not copied.ok or (adv.root / f"copies/{i}").read_bytes() == INSIDE
        rounds += [("info", info), ("list", listing), ("search", found), ("search-all", everywhere), ("tree", tree),
                   ("copy-from", copied)]
        if isinstance(f, McpFace):
            res = f.read_resource("d/f")
            assert not res.ok or res.value["contents"][0]["text"] == INSIDE.decode(), res
            assert res.ok or res.value["code"] == f.resource_error, res
            rounds.append(("resource", res))
        return rounds

    counts = race(adv, "d", out, one_round)
    tree = f.do("listFiles", {"path": "", "recursive": True, "includeHidden": True})
    assert tree.ok and not [e for e in tree.value["entries"] if e["path"].startswith("d.link/")]
    print(f"{adv.face.name}: {counts}")


def test_GHSA_7m4x_rv66_mxhh_a_move_source_swapped_for_a_link(adv):
    """moveFile src/fN -> got/fN while `src` is swapped for a link to an outside folder holding
    files of the same names: only inside files are ever moved in, the outside keeps all of its."""
    n = RACE_ROUNDS
    out = _outside(adv, "race_out", {f"f{i}": SECRET_MARKER + f"-{i}\n".encode() for i in range(n)})
    (adv.root / "src").mkdir()
    for i in range(n):
        (adv.root / f"src/f{i}").write_bytes(INSIDE)
    f = adv.face

    def one_round(i: int):
        return [("move-from", f.do("moveFile", {"from": f"src/f{i}", "to": f"got/f{i}"}))]

    counts = race(adv, "src", out, one_round)
    got = sorted(os.listdir(adv.root / "got"))
    assert len(got) == counts["ok"]
    for name in got:
        assert (adv.root / "got" / name).read_bytes() == INSIDE, f"got/{name} came from outside"
    assert len(os.listdir(out)) == n + 1, "an outside file was moved"
    print(f"{adv.face.name}: {counts}")


# -- MCP roots: the prefix and suffix siblings of a client's root ------------------------------------

@pytest.mark.parametrize("path", [
    "projA_evil/secret.md", "projA2/secret.md", "projA-x/secret.md", "projA'/secret.md", "projA /secret.md",
    "projA\"/secret.md", "PROJA/secret.md", "\"projA\"/secret.md", "projA/../projA2/secret.md",
], ids=lambda p: "CVE-2025-53110/GHSA-7rgq/GHSA-4gxg-" + p.replace("/", "|"))
def test_mcp_roots_siblings_of_a_client_root_are_outside_it(binary, tmp_path, path):
    """With a client root ws/projA, the advisories' sibling spellings are outside the client's roots."""
    pytest.importorskip("mcp")
    from mcp_helpers import RawMCP, file_uri, server_args, server_env
    root = tmp_path / "ws"
    for d in ("projA", "projA_evil", "projA2", "projA-x", "projA'", "projA ", "projA\"", "PROJA", "\"projA\""):
        (root / d).mkdir(parents=True, exist_ok=True)
        (root / d / "secret.md").write_bytes(SECRET_MARKER + b" " + d.encode() + b"\n")
    (root / "projA/secret.md").write_text("mine\n")
    r = RawMCP(binary, server_args(root, tmp_path / "cfg"), server_env(tmp_path), tmp_path / "mcp-stderr.log")
    try:
        r.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                                "clientInfo": {"name": "adv", "version": "1"}})
        r.notify("notifications/initialized")
        ask = r.wait_for(lambda m: m.get("method") == "roots/list")
        r.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": file_uri(root, "projA")}]}})
        deadline = time.monotonic() + 5
        while True:      # the scope applies once the answer is read
            probe = r.result("tools/call", {"name": "read_file", "arguments": {"path": "top-level-probe"}})
            if probe["structuredContent"]["code"] == OW or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        mine = r.result("tools/call", {"name": "read_file", "arguments": {"path": "projA/secret.md"}})
        assert mine["isError"] is False and mine["structuredContent"]["data"] == "mine\n"
        for tool, args in (("read_file", {"path": path}), ("write_file", {"path": path, "content": "pwned"}),
                           ("list_files", {"path": path.rsplit("/", 1)[0]}),
                           ("search_files", {"query": "TOPSECRET", "path": path.rsplit("/", 1)[0]})):
            res = r.result("tools/call", {"name": tool, "arguments": args})
            assert res["isError"] is True and res["structuredContent"]["code"] == OW, (tool, args, res)
        res = r.call("resources/read", {"uri": file_uri(root, path)})
        assert "error" in res, res
        assert r.result("ping", timeout=PING_DEADLINE) == {}
        out = b"\n".join(json.dumps(m).encode() for _, m in r.log)
        assert SECRET_MARKER not in out and SECRET_MARKER_B64 not in out
    finally:
        r.kill()
    for d in ("projA_evil", "projA2", "projA'", "projA "):
        assert (root / d / "secret.md").read_bytes().startswith(SECRET_MARKER), d
