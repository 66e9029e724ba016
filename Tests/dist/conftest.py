"""Fixtures for the tests of what `make dist` wrote (dist/ and .build/dist/stage).

These tests need `make dist` first (`make test` runs it; `make dist-test` runs only them).
The e2e harness (Tests/e2e: Bridge, Contract) drives and checks the servers started here.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))

from contract import Contract  # noqa: E402

DIST = Path(os.environ.get("WB_DIST") or REPO / "dist")


def artefact(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    if len(found) != 1:
        pytest.fail(f"expected one {pattern} in {DIST}, found {[p.name for p in found]}: run `make dist` first",
                    pytrace=False)
    return found[0]


@pytest.fixture(scope="session")
def archive() -> Path:
    return artefact("workspace-bridge-*.tar.gz")


@pytest.fixture(scope="session")
def contract() -> Contract:
    return Contract()


@pytest.fixture(scope="session")
def fresh_root(tmp_path_factory, archive) -> Path:
    """A Debian root with only libc, libjansson4, libpcre2-8-0 and libpq5 (scripts/fresh-root.sh), the archive unpacked
    into its /usr/local as the README says (`tar -C /usr/local --strip-components=1 -xzf …`)."""
    root = tmp_path_factory.mktemp("fresh-root") / "root"
    subprocess.run(["bash", str(REPO / "scripts" / "fresh-root.sh"), str(root)], check=True)
    subprocess.run(["tar", "-C", str(root / "usr" / "local"), "--strip-components=1", "-xzf", str(archive)], check=True)
    (root / "proc").mkdir(exist_ok=True)
    return root


def in_root(root: Path) -> list[str]:
    """The command prefix that runs a program inside `root`: its own mount and PID namespaces
    with a /proc of its own (a Debian system has one), killed with the test's process."""
    user = [] if os.geteuid() == 0 else ["--map-root-user"]
    return ["unshare", *user, "--mount", "--pid", "--fork", "--kill-child", f"--root={root}", "--mount-proc"]
