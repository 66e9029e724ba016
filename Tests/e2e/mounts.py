"""Small file systems for fault-injection tests: a tmpfs of a given size (and inode count) that
the test can fill, grow, or turn read-only, mounted under pytest's tmp_path and unmounted at
teardown.

Mounting needs root (CAP_SYS_ADMIN), as on the CI machines; where it is impossible the tests
that need it are skipped, saying why.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


class Tmpfs:
    def __init__(self, path: Path):
        self.path = path
        self.mounted = False

    def mount(self, size: str, inodes: int | None = None) -> "Tmpfs":
        self.path.mkdir(parents=True, exist_ok=True)
        opts = f"size={size}" + (f",nr_inodes={inodes}" if inodes else "")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(self.path)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): {r.stderr.strip()}")
        self.mounted = True
        return self

    def remount(self, *options: str) -> None:
        """E.g. remount("ro"), remount("rw"), remount("size=64m", "nr_inodes=10000")."""
        subprocess.run(["mount", "-o", ",".join(("remount", *options)), str(self.path)], check=True,
                       capture_output=True)

    def free_bytes(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def unmount(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True)
            self.mounted = False


@pytest.fixture
def tmpfs(tmp_path):
    """tmpfs.mount(size, inodes=None) mounts a fresh tmpfs at <tmp_path>/mnt; unmounted at teardown."""
    fs = Tmpfs(tmp_path / "mnt")
    yield fs
    fs.unmount()


def without_dac_override(tmp_path: Path, binary: Path) -> Path:
    """A launcher that runs `binary` without the capabilities that let root ignore file
    permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER), so permission bits apply to
    it as to any user. Not needed when the tests do not run as root."""
    if os.geteuid() != 0:
        return binary
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root and setpriv (util-linux) is missing: permission bits cannot be enforced")
    launcher = tmp_path / "run-without-dac-override"
    launcher.write_text("#!/bin/sh\n"
                        f"exec {setpriv} --inh-caps=-dac_override,-dac_read_search,-fowner "
                        f"--bounding-set=-dac_override,-dac_read_search,-fowner {binary} \"$@\"\n")
    launcher.chmod(0o755)
    return launcher
