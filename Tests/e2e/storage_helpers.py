"""Helpers for the storage tests (docs/protocol.md, "Storage: local and cloud roots").

Every server here runs with --local-root, --cloud-root and --config-dir under pytest's
tmp_path, so nothing touches the real home folder. `Roots` names the three folders; `start`
spawns (and initializes) a server on them through the `spawn` fixture, so the harness checks
every message against schema/openrpc.json.
"""
from __future__ import annotations

import hashlib
import os
import plistlib
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from wsfiles import list_all, sha256_file

STAGING = ".wb-staging.nosync"
PRIVATE = ".workspace"
TEMPLATE_FILES = {"context.md", "README.txt"}
ENGINE_INTERNAL = {".stfolder", ".stignore", ".stversions", ".sync-exclude.lst", ".dropbox", ".dropbox.cache",
                   ".dropbox.attr", ".unison", ".rclone-bisync", "RCLONE_TEST"}


@dataclass
class Roots:
    base: Path
    local: Path
    cloud: Path
    config: Path

    @classmethod
    def under(cls, tmp_path: Path, make_cloud: bool = True, marker: str | None = None) -> "Roots":
        r = cls(tmp_path, tmp_path / "local", tmp_path / "cloud", tmp_path / "config")
        if make_cloud:
            r.cloud.mkdir(parents=True, exist_ok=True)
            if marker:
                make_marker(r.cloud, marker)
        return r

    def root(self, where: str) -> Path:
        return self.local if where == "local" else self.cloud


def make_marker(root: Path, marker: str) -> None:
    """An engine's root marker: `.stfolder` is a folder (as Syncthing makes it), the rest files."""
    if marker == ".stfolder":
        (root / marker).mkdir(exist_ok=True)
    else:
        (root / marker).write_bytes(b"")


def start(spawn, roots: Roots, *, cloud: bool = True, init: Any = True, debug: bool = False,
          watch: bool = False, extra: tuple[str, ...] = ()):
    """A server on `roots` (ndjson). `cloud=False` leaves out --cloud-root."""
    args = ["--local-root", str(roots.local), "--config-dir", str(roots.config)]
    if cloud:
        args += ["--cloud-root", str(roots.cloud)]
    init_params = init
    if watch:
        init_params = {**(init if isinstance(init, dict) else {}),
                       "capabilities": {"workspace": {"didChangeFiles": True}}}
    b = spawn(*args, *extra, framing="ndjson", debug=debug, init=init_params)
    b.roots = roots
    return b


def info(b, timeout: float = 10.0) -> dict:
    return b.result("getStorageInfo", {}, timeout)


def choose(b, location: str, timeout: float = 10.0) -> dict:
    return b.result("chooseStorage", {"location": location}, timeout)


def wait_until(pred: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = pred()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")
        time.sleep(interval)


# -- the disk -----------------------------------------------------------------

def user_files(root: Path, skip_names: set[str] = ENGINE_INTERNAL) -> dict[str, tuple[int, str]]:
    """Every regular file under `root` a user would see (rel path -> (size, sha256)), leaving out
    the server's private folder and staging folder and the engines' own markers."""
    out: dict[str, tuple[int, str]] = {}
    if not root.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in (PRIVATE, STAGING) and d not in skip_names]
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if rel_dir == "." and name in skip_names:
                continue
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                continue
            out[rel] = (p.stat().st_size, sha256_file(p))
    return out


def user_folders(root: Path) -> set[str]:
    out = set()
    for dirpath, dirnames, _ in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in (PRIVATE, STAGING) and d not in ENGINE_INTERNAL]
        for d in dirnames:
            out.add(d if rel_dir == "." else f"{rel_dir}/{d}")
    return out


def usage_on_disk(root: Path) -> tuple[int, int]:
    files = user_files(root, skip_names=set())
    return len(files), sum(size for size, _ in files.values())


def make_tree(root: Path, count: int, size: int, seed: int, folder: str = "data", per_folder: int = 100,
              jitter: bool = True) -> dict[str, str]:
    """`count` files of random content (about `size` bytes each) in sub-folders of `folder`.
    Returns rel path -> sha256."""
    rng = random.Random(seed)
    out = {}
    for i in range(count):
        rel = f"{folder}/d{i // per_folder:03d}/f{i:05d}.bin"
        n = size if not jitter else max(1, size + rng.randint(-size // 8, size // 8))
        data = rng.randbytes(n)
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        out[rel] = hashlib.sha256(data).hexdigest()
    return out


def copy_tree(src: Path, dst: Path) -> None:
    """Copy the contents of src into dst (dst may exist)."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in os.listdir(src):
        s, d = src / name, dst / name
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        else:
            shutil.copy2(s, d)


def icloud_stub(real_name: str, size: int) -> bytes:
    """An iCloud Drive placeholder (`.name.icloud`): a binary plist with NSURLNameKey and NSURLFileSizeKey."""
    return plistlib.dumps({"NSURLNameKey": real_name, "NSURLFileSizeKey": size,
                           "NSURLFileResourceTypeKey": "NSURLFileResourceTypeRegular"}, fmt=plistlib.FMT_BINARY)


def listed(b, path: str = "", timeout: float = 20.0, **kw) -> dict[str, dict]:
    """Every entry under `path` (recursive, hidden included), by path."""
    return {e["path"]: e for e in list_all(b, timeout, path=path, recursive=True, includeHidden=True, **kw)}
