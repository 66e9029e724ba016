"""Fixtures for the end-to-end suite: the schema contract and server processes.

The binary is $WB_BIN, or .build/debug/workspace-bridge under the repository root.
"""
from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bridge import Bridge, server_binary  # noqa: E402
from contract import Contract  # noqa: E402

DEBUG_FLAG = "--enable-debug-methods"


@pytest.fixture(scope="session")
def contract() -> Contract:
    return Contract()


@pytest.fixture(scope="session")
def binary() -> Path:
    path = server_binary()
    if not path.is_file():
        pytest.fail(f"server binary not found at {path} (build it, or set WB_BIN)", pytrace=False)
    return path


@pytest.fixture
def spawn(binary, contract, tmp_path):
    """spawn(*args, framing="ndjson", debug=True, init=False|True|dict) -> Bridge.

    framing is the client's framing (replies must use it); None when the test frames by hand.
    Every process is killed at teardown. XDG_DATA_HOME points into tmp_path, so a server started
    without --local-root lays out its default workspace there, not in the real home folder.
    """
    bridges: list[Bridge] = []
    counter = itertools.count()

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg-data")}

    def _spawn(*args: str, framing: str | None = "ndjson", debug: bool = True, init=False) -> Bridge:
        argv = list(args)
        if debug and DEBUG_FLAG not in argv:
            argv.append(DEBUG_FLAG)
        b = Bridge(argv, framing, contract, tmp_path / f"stderr-{next(counter)}.log", binary=binary, env=env)
        bridges.append(b)
        if init is True or isinstance(init, dict):
            b.initialize(**(init if isinstance(init, dict) else {}))
        return b

    yield _spawn
    for b in bridges:
        b.kill()


@pytest.fixture(params=["lsp", "ndjson"])
def framing(request) -> str:
    return request.param


@pytest.fixture
def server(spawn, framing) -> Bridge:
    """An initialized server with debug methods, spoken to in the parametrized framing."""
    return spawn(framing=framing, init=True)


@pytest.fixture
def nd(spawn) -> Bridge:
    """An initialized server with debug methods, spoken to in ndjson (for tests where framing does not matter)."""
    return spawn(framing="ndjson", init=True)


@pytest.fixture
def ws_root(tmp_path) -> Path:
    """Where the workspace of `ws` lives: <tmp_path>/ws (the server creates it)."""
    return tmp_path / "ws"


@pytest.fixture
def ws(spawn, ws_root) -> Bridge:
    """An initialized server on a fresh workspace at <tmp_path>/ws, spoken to in ndjson.

    `ws.root` is the workspace's Path.
    """
    b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    b.root = ws_root
    return b
