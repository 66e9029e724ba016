"""The Neovim and Emacs (Eglot) setups of docs/editors.md, as pasted, in the real editors from
Debian's packages, headless, driving the real binary (issue 26).

Each test copies the page's code block into a fresh init file, starts the editor in a fresh
workspace with the server on PATH, lists the workspace with the setup's command (`listFiles`),
changes a file from outside the editor and waits for the setup's report of the
`workspace/didChangeFiles` notification. The drivers (editors/) only do what a user would type.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bridge import server_binary

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def block(lang: str) -> str:
    [code] = re.findall(rf"```{lang}\n(.*?)```", (REPO / "docs" / "editors.md").read_text(), re.S)
    return code


def editor(name: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} is not installed: run scripts/setup.sh --test", pytrace=False)
    return path


def environment(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"), "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_CACHE_HOME": str(home / ".cache"), "PATH": f"{server_binary().parent}:{os.environ['PATH']}"}


def pasted(tmp_path: Path, lang: str, init_name: str) -> tuple[Path, Path]:
    """The page's `lang` block as the init file `init_name`, and a workspace holding notes.txt."""
    init = tmp_path / init_name
    init.write_text(block(lang))
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("hello")
    return init, ws


def test_neovim_lists_the_workspace_and_reports_changes(tmp_path):
    nvim = editor("nvim")
    init, ws = pasted(tmp_path, "lua", "init.lua")
    out = tmp_path / "notified.txt"
    env = {**environment(tmp_path), "OUT": str(out)}
    p = subprocess.run([nvim, "--headless", "-u", str(init), "-c", f"luafile {HERE / 'editors' / 'driver.lua'}"],
                       cwd=ws, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    notified = out.read_text() if out.exists() else ""
    assert p.returncode == 0 and notified.endswith("DONE\n"), f"{p.stdout}\n{p.stderr}\n{notified}"
    listing = notified.split("workspace-bridge: created", 1)[0].splitlines()
    assert "notes.txt" in listing and "context.md" in listing, notified
    assert "workspace-bridge: created made-outside.txt" in notified.splitlines()


def test_emacs_eglot_lists_the_workspace_and_reports_changes(tmp_path):
    emacs = editor("emacs")
    init, ws = pasted(tmp_path, "elisp", "init.el")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)  # a project, as project.el sees one
    env = {**environment(tmp_path), "WS": str(ws)}
    p = subprocess.run([emacs, "--batch", "-l", str(init), "-l", str(HERE / "editors" / "driver.el")],
                       env=env, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    lines = p.stderr.splitlines()
    assert p.returncode == 0 and "DONE" in lines, p.stdout + p.stderr
    assert f"workspace-bridge: watching {ws}/" in lines
    assert "notes.txt" in lines and "context.md" in lines
    assert "workspace-bridge: created made-outside.txt" in lines
