"""Helpers for the workspace file tests: encodings, calls that expect a domain error, paging,
snapshots of the disk, and a guard that proves nothing outside the workspace was touched.

The guard (`Untouched`) combines two checks:
- inotify watches on every folder next to the workspace (and the files in them): any open,
  read, listing (getdents), write, attribute change, create, delete or move the server causes
  there while the guard is armed is reported;
- a snapshot (type, size, inode, mtime, content hash, link target) of everything outside the
  workspace and of the workspace itself, before and after.
"""
from __future__ import annotations

import base64
import ctypes
import ctypes.util
import datetime as _dt
import hashlib
import os
import struct
import time
from pathlib import Path
from typing import Any, Iterable

MiB = 1 << 20
LOAD_LIMIT = 16 * MiB
SECRET_MARKER = b"TOPSECRET"
SECRET_MARKER_B64 = base64.b64encode(SECRET_MARKER)[:12]   # "VE9QU0VDUkVU": base64 of any data starting with it
TEMP_PREFIX = ".syncthing."


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def iso_ms(ns: int) -> str:
    """An mtime in nanoseconds as the server formats it (ISO 8601 UTC, milliseconds)."""
    secs, rest = divmod(ns, 1_000_000_000)
    t = _dt.datetime.fromtimestamp(secs, _dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{rest // 1_000_000:03d}Z"


def is_temp_name(name: str) -> bool:
    return name.startswith(TEMP_PREFIX) and name.endswith(".tmp")


# -- calls ------------------------------------------------------------------

def domain_error(b, method: str, params: dict, code: str, timeout: float = 10.0) -> dict:
    """Call and expect -32803 with data.code == code; returns the error object."""
    err = b.error(method, params, timeout)
    assert err["code"] == -32803 and err["data"]["code"] == code, \
        f"{method} {_short(params)}: expected -32803 {code}, got {err}"
    return err


def save(b, path: str, data: bytes | str, timeout: float = 10.0, **kw) -> dict:
    params = {"path": path, **kw}
    if isinstance(data, bytes):
        params.update(data=b64(data), encoding="base64")
    else:
        params["data"] = data
    return b.result("saveFile", params, timeout)


def load_bytes(b, path: str, timeout: float = 10.0) -> bytes:
    return unb64(b.result("loadFile", {"path": path, "encoding": "base64"}, timeout)["data"])


def list_all(b, timeout: float = 10.0, **params) -> list[dict]:
    """Every entry, following nextCursor."""
    entries, cursor = [], None
    for _ in range(10000):
        p = dict(params)
        if cursor is not None:
            p["cursor"] = cursor
        r = b.result("listFiles", p, timeout)
        entries += r["entries"]
        cursor = r.get("nextCursor")
        if cursor is None:
            return entries
    raise AssertionError("listFiles never stopped returning nextCursor")


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


# -- the disk ---------------------------------------------------------------

def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def snapshot(base: Path, skip: Iterable[str] = ()) -> dict[str, tuple]:
    """Everything under `base` (not following links): relative path -> facts."""
    skip = set(skip)
    out: dict[str, tuple] = {}

    def visit(d: Path, rel: str) -> None:
        for name in sorted(os.listdir(d)):
            r = f"{rel}/{name}" if rel else name
            if r in skip or (not rel and name.startswith("stderr-")):
                continue
            p = d / name
            st = os.lstat(p)
            if os.path.islink(p):
                out[r] = ("link", os.readlink(p), st.st_ino)
            elif os.path.isdir(p):
                out[r] = ("dir", st.st_ino, st.st_mode & 0o7777)
                visit(p, r)
            else:
                out[r] = ("file", st.st_size, st.st_ino, st.st_mtime_ns, st.st_mode & 0o7777, sha256_file(p))
    visit(base, "")
    return out


def diff(before: dict, after: dict) -> list[str]:
    out = []
    for k in sorted(set(before) | set(after)):
        if before.get(k) != after.get(k):
            out.append(f"{k}: {before.get(k)} -> {after.get(k)}")
    return out


# -- inotify ------------------------------------------------------------------

IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_CLOSE_NOWRITE, IN_OPEN = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVE_SELF = 0x40, 0x80, 0x100, 0x200, 0x400, 0x800
IN_ALL_EVENTS = 0xFFF
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
_NAMES = {IN_ACCESS: "ACCESS", IN_MODIFY: "MODIFY", IN_ATTRIB: "ATTRIB", IN_CLOSE_WRITE: "CLOSE_WRITE",
          IN_CLOSE_NOWRITE: "CLOSE_NOWRITE", IN_OPEN: "OPEN", IN_MOVED_FROM: "MOVED_FROM", IN_MOVED_TO: "MOVED_TO",
          IN_CREATE: "CREATE", IN_DELETE: "DELETE", IN_DELETE_SELF: "DELETE_SELF", IN_MOVE_SELF: "MOVE_SELF"}

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


class Inotify:
    def __init__(self):
        self.fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.paths: dict[int, Path] = {}

    def watch(self, path: Path, mask: int = IN_ALL_EVENTS) -> None:
        wd = _libc.inotify_add_watch(self.fd, os.fsencode(str(path)), mask | IN_DONT_FOLLOW)
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
        self.paths[wd] = path

    def read(self) -> list[tuple[Path, str, list[str]]]:
        """(watched path, child name or "", event names) for every queued event."""
        out = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            i = 0
            while i < len(data):
                wd, mask, _cookie, length = struct.unpack_from("iIII", data, i)
                name = data[i + 16:i + 16 + length].rstrip(b"\0").decode("utf-8", "replace")
                i += 16 + length
                names = [n for bit, n in _NAMES.items() if mask & bit]
                if mask & IN_ISDIR:
                    names.append("ISDIR")
                out.append((self.paths.get(wd, Path("?")), name, names))

    def close(self) -> None:
        os.close(self.fd)


class Untouched:
    """with Untouched(tmp_path, root): ... -- asserts the server neither touched anything next
    to the workspace (inotify, snapshot) nor, when `inside_unchanged`, changed the workspace.

    `root` is the workspace; `quiet` are names directly under `base` whose own events are
    ignored (the workspace itself, which the server opens; host folders a test reads on purpose).
    """

    def __init__(self, base: Path, root: Path, inside_unchanged: bool = False, read_ok: Iterable[str] = ()):
        self.base, self.root = base, root
        self.inside_unchanged = inside_unchanged
        self.root_name = root.name
        self.read_ok = set(read_ok)      # top-level names the server may read (not change)

    def _outside(self) -> dict:
        return snapshot(self.base, skip={self.root_name})

    def _inside(self) -> dict:
        return snapshot(self.root, skip={".workspace"})

    def __enter__(self):
        self.before_out = self._outside()
        self.before_in = self._inside() if self.inside_unchanged else None
        self.ino = Inotify()
        self.ino.watch(self.base)
        for dirpath, dirnames, _ in os.walk(self.base):
            d = Path(dirpath)
            rel = d.relative_to(self.base)
            top = rel.parts[0] if rel.parts else ""
            if top == self.root_name:
                dirnames[:] = []
                continue
            if d != self.base and top not in self.read_ok:
                self.ino.watch(d)
            if d == self.base:
                dirnames[:] = [n for n in dirnames if n != self.root_name]
        self.ino.read()   # drop anything queued while arming
        return self

    def events(self) -> list[tuple[Path, str, list[str]]]:
        found = []
        for path, name, names in self.ino.read():
            if path == self.base and (name == self.root_name or name.startswith("stderr-")):
                continue                      # the workspace root itself; the harness's stderr logs
            if path == self.base and name in self.read_ok and not set(names) - {"OPEN", "ACCESS", "CLOSE_NOWRITE", "ISDIR"}:
                continue
            found.append((path, name, names))
        return found

    def __exit__(self, exc_type, exc, tb):
        time.sleep(0.05)
        events = self.events()
        self.ino.close()
        if exc_type is not None:
            return False
        assert not events, "the server touched files outside the workspace:\n" + "\n".join(
            f"  {p / n if n else p}: {' '.join(e)}" for p, n, e in events)
        changed = diff(self.before_out, self._outside())
        assert not changed, "files outside the workspace changed:\n  " + "\n  ".join(changed)
        if self.inside_unchanged:
            changed = diff(self.before_in, self._inside())
            assert not changed, "a refused operation changed the workspace:\n  " + "\n  ".join(changed)
        return False
