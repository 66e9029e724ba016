#!/usr/bin/env python3
"""Makes the tree `fs_bench gen-tree` wrote (DIR/dNNNN/fNNN.txt) a git repository with a
realistic .gitignore, for the ignore-file benchmark (Benchmarks/run.sh, 5b; issue 27).

The root .gitignore is the usual Node + Python template (rules that match nothing here, as in
most projects, and still cost every entry a test) plus rules that leave out part of the tree:
every folder whose number ends in 9 (`/d*9/`, 10% of the folders), the files f09x.txt of every
folder (`f09?.txt`) but one re-included (`!f099.txt`), and a nested .gitignore in d0000 (`f00*`).

Prints one JSON line: the tree's entries, and how many files git and `rg --files` keep (they
must agree, or the comparison would not be of the same work).

    python3 Benchmarks/ignore_tree.py DIR
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

TEMPLATE = """\
# Logs
logs
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
lerna-debug.log*
.pnpm-debug.log*

# Runtime data
pids
*.pid
*.seed
*.pid.lock

# Coverage
lib-cov
coverage
*.lcov
.nyc_output

# Dependencies
node_modules/
jspm_packages/
bower_components
.npm
.eslintcache
.stylelintcache

# Build output
dist/
build/
out/
.next
.nuxt
.cache
.parcel-cache
*.tsbuildinfo

# Environment
.env
.env.*
!.env.example

# Python
__pycache__/
*.py[cod]
*$py.class
*.so
.Python
develop-eggs/
eggs/
.eggs/
sdist/
wheels/
*.egg-info/
*.egg
.venv
venv/
ENV/
.pytest_cache/
.mypy_cache/
.tox/
htmlcov/
.coverage
.coverage.*

# Editors and systems
.idea/
.vscode/*
!.vscode/extensions.json
*.swp
*~
.DS_Store
Thumbs.db

# This tree
/d*9/
f09?.txt
!f099.txt
"""


def main() -> int:
    root = Path(sys.argv[1])
    (root / ".gitignore").write_text(TEMPLATE)
    if (root / "d0000").is_dir():
        (root / "d0000" / ".gitignore").write_text("f00*\n")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    entries = sum(len(dirs) + len(files) for _, dirs, files in os.walk(root)
                  if "/.git" not in _ and not _.endswith("/.git")) - 1  # less .git itself
    kept = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=root, env=env, check=True,
                          capture_output=True, text=True).stdout.splitlines()
    rg = None
    if shutil.which("rg"):
        rg = len(subprocess.run(["rg", "--files", str(root)], check=True, capture_output=True, text=True).stdout.splitlines())
    print(json.dumps({"test": "ignore_env", "entries": entries, "git_kept_files": len(kept), "rg_files": rg,
                      "gitignore_rules": sum(1 for line in TEMPLATE.splitlines() if line and not line.startswith("#"))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
