"""Helpers for the special-file tests (docs/protocol.md, "Workspace files", special files):
named pipes, Unix sockets and devices made on disk, and the promptness every answer about
them must have.
"""
from __future__ import annotations

import contextlib
import os
import socket
import stat
from pathlib import Path

import pytest

# Every answer about a special file, and the ping after it, comes within this (the server never
# waits on one; a hang would show as a timeout here rather than after the default deadline).
PROMPT = 2.0

SPECIAL_TYPES = ["fifo", "socket", "charDevice", "blockDevice"]


def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_socket(path: Path) -> None:
    """A Unix socket bound at `path` (bound through a relative name: tmp paths can be longer than
    sun_path's 108 bytes). Nobody listens; the socket file stays after the close."""
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path.name)
        s.close()
    finally:
        os.chdir(cwd)


def make_device(path: Path, kind: str) -> None:
    """/dev/null's numbers as a character device, loop0's as a block device; skips the test
    where device nodes cannot be made (not root, or a user namespace without CAP_MKNOD)."""
    mode, dev = (stat.S_IFCHR, os.makedev(1, 3)) if kind == "charDevice" else (stat.S_IFBLK, os.makedev(7, 0))
    try:
        os.mknod(path, mode | 0o600, dev)
    except PermissionError:
        pytest.skip(f"cannot make a {kind} node here (needs CAP_MKNOD)")


def make_special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    {"fifo": make_fifo, "socket": make_socket}.get(kind, lambda p: make_device(p, kind))(path)


def type_of(path: Path) -> str:
    m = os.lstat(path).st_mode
    for test, name in ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "charDevice"),
                       (stat.S_ISBLK, "blockDevice"), (stat.S_ISREG, "file"), (stat.S_ISDIR, "directory"),
                       (stat.S_ISLNK, "symlink")):
        if test(m):
            return name
    return "other"


@contextlib.contextmanager
def fifo_reader(path: Path):
    """Holds the read end of a FIFO open (non-blocking), yielding its descriptor."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        yield fd
    finally:
        os.close(fd)


def pending_bytes(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return b""


def assert_not_regular(err: dict, path: str, kind: str) -> None:
    assert err["code"] == -32803, err
    assert err["data"]["code"] == "NotARegularFile", err
    assert err["data"]["path"] == path and err["data"]["type"] == kind, err
