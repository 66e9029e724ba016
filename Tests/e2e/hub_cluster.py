"""A throwaway PostgreSQL server for the session-hub tests (Tests/e2e/test_hub.py).

`initdb` in a temp folder, as a non-root user (PostgreSQL refuses to run as root: as root the
cluster belongs to `nobody`, run through `runuser`), password authentication only (scram), the
server on a free loopback port with its socket in the data folder. Stopped at teardown.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from storage_helpers import wait_until  # noqa: F401 (test_hub imports it from here)

SUPERUSER = "postgres"
SUPERPASS = "hub-admin-pw"


def bindir() -> Path | None:
    for pattern in ("/usr/lib/postgresql/*/bin", "/opt/homebrew/opt/postgresql*/bin", "/usr/local/opt/postgresql*/bin"):
        found = sorted(glob.glob(pattern))
        if found and Path(found[-1], "initdb").exists():
            return Path(found[-1])
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, bin: Path):
        self.bin = bin
        self.base = Path(tempfile.mkdtemp(prefix="wb-hub-"))
        self.data = self.base / "data"
        self.port = free_port()
        self.user = "nobody" if os.geteuid() == 0 else None
        if self.user:
            pw = pwd.getpwnam(self.user)
            os.chown(self.base, pw.pw_uid, pw.pw_gid)
        pwfile = self.base / "pw"
        pwfile.write_text(SUPERPASS + "\n")
        if self.user:
            os.chown(pwfile, pwd.getpwnam(self.user).pw_uid, -1)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=scram-sha-256", f"--pwfile={pwfile}",
                  "-E", "UTF8", "--locale=C")
        self.start()

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        argv = [str(self.bin / tool), *args]
        if self.user:
            argv = ["runuser", "-u", self.user, "--", *argv]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=check, cwd=self.base)

    def start(self) -> None:
        opts = f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.data} -c fsync=off"
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.base / "log"), "-o", opts)

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "stop", "-w", "-t", "60", "-D", str(self.data), "-m", mode, check=False)

    def psql(self, sql: str, user: str = SUPERUSER, password: str = SUPERPASS, db: str = "postgres",
             check: bool = True) -> subprocess.CompletedProcess:
        env = {**os.environ, "PGPASSWORD": password}
        r = subprocess.run([str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", user, "-d", db,
                            "-v", "ON_ERROR_STOP=1", "-Atq", "-c", sql], capture_output=True, text=True, env=env,
                           timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"psql as {user} failed: {r.stderr}")
        return r

    def uri(self, user: str, db: str = "hub") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{db}"

    def add_user(self, name: str, password: str, db: str = "hub") -> None:
        """A login role that may create its own schema in `db` (the binary creates it there)."""
        self.psql(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
        self.psql(f"GRANT CREATE ON DATABASE {db} TO {name}")

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)
