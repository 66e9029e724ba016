"""Fixtures: the server binary ($WB_BIN, else <repo>/.build/debug/workspace-bridge) and fresh folders.

Tests are plain functions that run their scenario with asyncio.run (no pytest plugin needed).
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterator

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
REPO = PACKAGE_ROOT.parents[1]
if str(PACKAGE_ROOT) not in sys.path:  # the tests run against this checkout, installed or not
    sys.path.insert(0, str(PACKAGE_ROOT))


@pytest.fixture(scope="session")
def binary() -> Path:
    path = Path(os.environ.get("WB_BIN") or REPO / ".build" / "debug" / "workspace-bridge")
    if not path.is_file():
        pytest.fail(f"server binary not found at {path} (build it, or set WB_BIN)", pytrace=False)
    return path


@dataclass
class Place:
    """A workspace and a configuration folder of their own, and the server's options for them."""
    root: Path
    config: Path
    stderr: Path
    binary: Path
    opened: list[IO[bytes]] = field(default_factory=list)

    def options(self, **extra: Any) -> dict[str, Any]:
        """spawn() options: this place's folders, the server's log appended to `stderr`."""
        log = open(self.stderr, "ab")
        self.opened.append(log)
        return {"binary": self.binary, "local_root": self.root, "config_dir": self.config, "stderr": log, **extra}


@pytest.fixture
def place(tmp_path: Path, binary: Path) -> Iterator[Place]:
    p = Place(tmp_path / "ws", tmp_path / "config", tmp_path / "stderr.log", binary)
    yield p
    for f in p.opened:
        f.close()
