"""README.md's install routes that need `make dist`, read from its table (Tests/e2e/readme_snippets.py)
and run as written, with the prefix in the test's folder: `make install PREFIX=$HOME/.local` then
`make uninstall`, and the release archive unpacked with the README's `tar` line (the same line in
a Debian root with only libc, libjansson4, libpcre2-8-0 and libpq5 is test_archive.py's fresh root)."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest

from conftest import REPO
from readme_snippets import routes


def route(prefix: str) -> list[str]:
    (found,) = [cmds for name, cmds in routes().items() if name.startswith(prefix)]
    return found


def user_env(home) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env["HOME"] = str(home)
    return env


def test_from_a_clone_make_install_and_uninstall(tmp_path):
    install, uninstall = route("From a clone")
    assert install.startswith("make install PREFIX=") and uninstall.startswith("make uninstall PREFIX="), (install, uninstall)
    home = tmp_path / "home"
    home.mkdir()
    env = user_env(home)
    p = subprocess.run(["bash", "-c", install], cwd=REPO, env=env, capture_output=True, text=True, timeout=3600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    prefix = home / ".local"
    version = subprocess.run([str(prefix / "bin/workspace-bridge"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.strip(), version
    for rel in ("bin/workspace-bridge-web", "share/man/man1/workspace-bridge.1",
                "share/doc/workspace-bridge/licenses/workspace-bridge.txt", "share/workspace-bridge/clients/js/index.js"):
        assert (prefix / rel).is_file(), rel
    installed = (prefix / "share/workspace-bridge/installed-files").read_text().split()
    assert "bin/workspace-bridge" in installed
    p = subprocess.run(["bash", "-c", uninstall], cwd=REPO, env=env, capture_output=True, text=True, timeout=3600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    # Every file install wrote is gone (the build may leave other things under ~/.local, not ours).
    assert [rel for rel in installed if (prefix / rel).exists()] == []


def test_release_archive_route_in_a_fresh_root(archive, tmp_path):
    """The archive the README names is the one `make dist` wrote, and its `tar` line lays out a prefix
    whose binary, man page and web launcher are where the README's next commands find them."""
    step, man, web = route("Release archive")
    apt, tar = step.split(" && ")
    assert shlex.split(apt) == ["sudo", "apt-get", "install", "-y", "libjansson4", "libpcre2-8-0", "libpq5"]
    argv = shlex.split(tar)
    assert argv[:2] == ["sudo", "tar"] and argv[-1] == archive.name, f"README names {argv[-1]}, make dist wrote {archive.name}"
    local = tmp_path / "usr" / "local"
    local.mkdir(parents=True)
    argv = [str(local) if a == "/usr/local" else a for a in argv[1:]]
    argv[-1] = str(archive)
    subprocess.run(argv, check=True, timeout=120)
    assert os.access(local / "bin" / web, os.X_OK), web
    assert (man.split() == ["man", "workspace-bridge"]) and (local / "share/man/man1/workspace-bridge.1").is_file()
    p = subprocess.run([str(local / "bin/workspace-bridge"), "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p
    if shutil.which("man") is None:
        pytest.skip("`man` is not installed here: the page is in place, not rendered")
    page = subprocess.run(["man", "-M", str(local / "share/man"), "workspace-bridge"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "MANPAGER": "cat", "PAGER": "cat"})
    assert page.returncode == 0 and "doctor" in page.stdout, page
