#!/usr/bin/env python3
"""Release packaging (issue 26): `make dist`, `make install`, `make uninstall`.

  scripts/dist.py stage BINARY MANPAGE   lays out .build/dist/stage/<name>/ (an installation prefix)
  scripts/dist.py archive                the stage as dist/<name>.tar.gz, then dist/SHA256SUMS
  scripts/dist.py sums                   dist/SHA256SUMS again (after the .vsix and .mcpb are written)
  scripts/dist.py install PREFIX         copies the stage into PREFIX, listing what it wrote
  scripts/dist.py uninstall PREFIX       removes exactly what install listed

<name> is workspace-bridge-<version>-<os>-<arch>; the version is the binary's `--version`.
The archive is reproducible: entries sorted, owner root, mode 0755 or 0644, every mtime the
last commit's time (or $SOURCE_DATE_EPOCH), gzip without a name or time.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import os
import platform
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / ".build" / "dist"
OUT = REPO / "dist"
# What each client folder ships (tests, generators and screenshots stay in the repository).
CLIENT_SKIP = {"test", "tests", "scripts", "screenshots", "__pycache__", "node_modules"}
# The project's own licence (Apache 2.0, LICENSE), then those of what the binary carries
# statically: the Swift runtime and the two packages.
LICENCES = {
    "workspace-bridge.txt": "LICENSE",
    "swift-runtime.txt": "/opt/swift/usr/share/swift/LICENSE.txt",
    "swift-argument-parser.txt": ".build/checkouts/swift-argument-parser/LICENSE.txt",
    "swift-log.txt": ".build/checkouts/swift-log/LICENSE.txt",
}
INSTALLED_LIST = "share/workspace-bridge/installed-files"
WEB_LAUNCHER = """#!/bin/sh
# The web front end on the demo workspace (what `make run` starts in a clone); needs Node 18+.
here=$(dirname "$(readlink -f "$0")")
exec node "$here/../share/workspace-bridge/clients/web/run.mjs" --bin "$here/workspace-bridge" "$@"
"""


def version(binary: Path) -> str:
    return subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True).stdout.strip()


def platform_name() -> str:
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    return f"{platform.system().lower()}-{machine}"


def dist_name(ver: str) -> str:
    return f"workspace-bridge-{ver}-{platform_name()}"


def source_date() -> int:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return int(out.stdout.strip() or 0)


def help_text(binary: Path) -> str:
    """`--help` of the command and of each subcommand, as the user sees them."""
    parts = []
    for args in (["--help"], ["help", "serve"], ["help", "mcp"], ["help", "doctor"]):
        out = subprocess.run([str(binary), *args], capture_output=True, text=True, check=True).stdout
        parts.append(f"$ workspace-bridge {' '.join(args)}\n{out}")
    return "\n".join(parts)


def copy_tree(src: Path, dst: Path) -> None:
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if any(part in CLIENT_SKIP for part in rel.parts) or path.suffix == ".pyc":
            continue
        if path.is_file() and not path.is_symlink():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dst / rel)


def stage(binary: Path, manpage: Path) -> Path:
    ver = version(binary)
    root = BUILD / "stage" / dist_name(ver)
    shutil.rmtree(BUILD / "stage", ignore_errors=True)
    (root / "bin").mkdir(parents=True)
    shutil.copyfile(binary, root / "bin" / "workspace-bridge")
    (root / "bin" / "workspace-bridge-web").write_text(WEB_LAUNCHER)
    for name in ("workspace-bridge", "workspace-bridge-web"):
        (root / "bin" / name).chmod(0o755)
    man = root / "share" / "man" / "man1"
    man.mkdir(parents=True)
    shutil.copyfile(manpage, man / "workspace-bridge.1")
    doc = root / "share" / "doc" / "workspace-bridge"
    (doc / "licenses").mkdir(parents=True)
    shutil.copyfile(REPO / "README.md", doc / "README.md")
    (doc / "help.txt").write_text(help_text(binary))
    for name, src in LICENCES.items():
        shutil.copyfile(REPO / src, doc / "licenses" / name)
    share = root / "share" / "workspace-bridge"
    for client in ("web", "js", "python"):
        copy_tree(REPO / "clients" / client, share / "clients" / client)
    (share / "schema").mkdir()
    shutil.copyfile(REPO / "schema" / "openrpc.json", share / "schema" / "openrpc.json")
    # Last: the sums of every file above, relative to the prefix (`sha256sum -c` from there).
    sums = [f"{sha256(p)}  {p.relative_to(root)}" for p in files(root)]
    (doc / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    return root


def files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def staged() -> Path:
    roots = sorted((BUILD / "stage").glob("workspace-bridge-*")) if (BUILD / "stage").is_dir() else []
    if len(roots) != 1:
        sys.exit("dist: nothing staged: run `make dist` first")
    return roots[0]


def archive() -> Path:
    root = staged()
    OUT.mkdir(exist_ok=True)
    target = OUT / (root.name + ".tar.gz")
    mtime = source_date()
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in [root, *sorted(root.rglob("*"))]:
            info = tar.gettarinfo(str(path), arcname=str(path.relative_to(root.parent)))
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mtime = mtime
            info.mode = 0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644
            if path.is_file():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    with open(target, "wb") as out, gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    write_sums()
    return target


def write_sums() -> None:
    """dist/SHA256SUMS: every artefact in dist/ (`sha256sum -c SHA256SUMS` there)."""
    lines = [f"{sha256(p)}  {p.name}" for p in sorted(OUT.iterdir()) if p.is_file() and p.name != "SHA256SUMS"]
    (OUT / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def install(prefix: Path) -> None:
    root = staged()
    written = []
    for path in files(root):
        rel = path.relative_to(root)
        dest = prefix / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".installing")
        shutil.copyfile(path, tmp)
        tmp.chmod(0o755 if os.access(path, os.X_OK) else 0o644)
        os.replace(tmp, dest)
        written.append(str(rel))
    listing = prefix / INSTALLED_LIST
    listing.write_text("\n".join(written + [INSTALLED_LIST]) + "\n")
    print(f"installed {len(written)} files under {prefix} (listed in {listing})")


def uninstall(prefix: Path) -> None:
    listing = prefix / INSTALLED_LIST
    if not listing.is_file():
        sys.exit(f"uninstall: {listing} not found: nothing was installed under {prefix} by make install")
    removed = 0
    for rel in listing.read_text().splitlines():
        if not rel or rel.startswith("/") or ".." in Path(rel).parts:
            continue  # only what install wrote, never outside the prefix
        path = prefix / rel
        if path.is_file() or path.is_symlink():
            path.unlink()
            removed += 1
        # Then the folders install created and left empty, innermost first.
        for parent in path.parents:
            if parent == prefix or prefix not in parent.parents:
                break
            try:
                parent.rmdir()
            except OSError:
                break
    print(f"removed {removed} files from {prefix}")


def main(argv: list[str]) -> None:
    match argv:
        case ["stage", binary, manpage]:
            print(stage(Path(binary), Path(manpage)))
        case ["archive"]:
            print(archive())
        case ["sums"]:
            write_sums()
        case ["install", prefix]:
            install(Path(prefix).resolve())
        case ["uninstall", prefix]:
            uninstall(Path(prefix).resolve())
        case _:
            sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
