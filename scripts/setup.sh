#!/usr/bin/env bash
# Installs what building and testing need, only when missing: jansson, PCRE2 and libpq (with pkg-config)
# and the Python test packages and PostgreSQL (--test), or what `make bench` compares with (--bench).
# Safe to run again; used by `make` and `.ci/run`.
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
pkg-config --exists jansson 2>/dev/null || missing+=(libjansson-dev)
# libpq, PostgreSQL's C client: the session hub (Sources/SessionHub). Homebrew's is keg-only:
# its pkg-config folder must be on PKG_CONFIG_PATH (brew --prefix libpq)/lib/pkgconfig.
pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
pkg-config --exists libpcre2-8 2>/dev/null || missing+=(libpcre2-dev)
if ((${#missing[@]})); then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "setup: installing ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  elif command -v brew >/dev/null 2>&1; then
    brew install jansson pcre2 libpq pkg-config
    echo "setup: export PKG_CONFIG_PATH=\"$(brew --prefix libpq)/lib/pkgconfig:\$PKG_CONFIG_PATH\" before swift build" >&2
  else
    echo "setup: please install jansson, pcre2, libpq and pkg-config" >&2
    exit 1
  fi
fi

# LangGraph (Tests/e2e/test_langgraph_saver.py, Benchmarks/langgraph_bench.py): the graph runtime,
# its checkpoint conformance suite, and the SQLite saver measured beside ours; pinned.
langgraph_packages() {
  python3 -c "import importlib.metadata as m, sys; want = {'langgraph': '1.2.24', 'langgraph-checkpoint': '4.3.2', 'langgraph-checkpoint-conformance': '0.0.2', 'langgraph-checkpoint-sqlite': '3.1.2'}; sys.exit(any(m.version(k) != v for k, v in want.items()))" 2>/dev/null ||
    python3 -m pip install -q --root-user-action=ignore langgraph==1.2.24 langgraph-checkpoint==4.3.2 \
      langgraph-checkpoint-conformance==0.0.2 langgraph-checkpoint-sqlite==3.1.2
}

if [ "${1:-}" = "--test" ]; then
  python3 -c "import pytest, jsonschema, mcp, mypy" 2>/dev/null || python3 -m pip install -q --root-user-action=ignore pytest jsonschema mcp mypy
  # Real LSP client libraries drive the server in Tests/e2e/test_lsp_clients.py.
  python3 -c "import pygls, lsprotocol, pylspclient, sansio_lsp_client, pylsp_jsonrpc" 2>/dev/null ||
    python3 -m pip install -q --root-user-action=ignore pygls==2.1.1 pylspclient==0.1.2 sansio-lsp-client==0.13.0 python-lsp-jsonrpc==1.1.2
  # The ACP SDK plays the editor and the downstream agents in Tests/e2e/test_acp*.py.
  python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('agent-client-protocol') != '0.12.1')" 2>/dev/null ||
    python3 -m pip install -q --root-user-action=ignore agent-client-protocol==0.12.1
  langgraph_packages
  # The Python client's framework adapters run their frameworks' own suites and runners
  # (clients/python/tests/test_claude_session_store.py, test_openai_session.py).
  python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('claude-agent-sdk') != '0.2.184' or m.version('openai-agents') != '0.24.0')" 2>/dev/null ||
    python3 -m pip install -q --root-user-action=ignore claude-agent-sdk==0.2.184 openai-agents==0.24.0
  # The clients' tests: headless Chromium drives the web front end; tsc checks the JS types.
  extra=()
  command -v chromium >/dev/null 2>&1 || extra+=(chromium)
  command -v tsc >/dev/null 2>&1 || extra+=(node-typescript)
  # The idle-memory test runs the server under a tracer (strace), where it must release nothing.
  command -v strace >/dev/null 2>&1 || extra+=(strace)
  # Two real Syncthing devices on loopback (Tests/e2e/two-syncthing.sh, test_*syncthing.py).
  command -v syncthing >/dev/null 2>&1 || extra+=(syncthing)
  command -v curl >/dev/null 2>&1 || extra+=(curl)
  # The editor setups of docs/editors.md, run headless as pasted (Tests/e2e/test_editors.py):
  # Neovim, and Emacs with Eglot (built in from Emacs 29; Debian's elpa-eglot before).
  command -v nvim >/dev/null 2>&1 || extra+=(neovim)
  command -v emacs >/dev/null 2>&1 || extra+=(emacs-nox)
  emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1 || extra+=(elpa-eglot)
  # Real git decides what .gitignore ignores in Tests/e2e/test_ignore_files.py.
  command -v git >/dev/null 2>&1 || extra+=(git)
  # The release archive's test root (Tests/dist): apt-get download + dpkg -x, unshare (util-linux).
  command -v unshare >/dev/null 2>&1 || extra+=(util-linux)
  # A real PostgreSQL the session-hub tests start themselves (Tests/e2e/hub_cluster.py: initdb
  # in a temp folder as `nobody` through runuser, on a loopback port).
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 || extra+=(postgresql)
  if ((${#extra[@]})) && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "setup: installing ${extra[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${extra[@]}" >/dev/null
  fi
fi

# `make bench`: every tool Benchmarks/run.sh times or needs beside the server (grep the script for
# them): gcc for its C drivers, rg and grep for search (and git for the ignore-file tree), rsync, cp and sha256sum for migrate, dd,
# cat, base64, find, wc, taskset for the pinned placements, ps for the load samples, and Python's
# venv for the PyPI peers it installs itself (the MCP filesystem server, matplotlib).
if [ "${1:-}" = "--bench" ]; then
  extra=()
  need() {  # need COMMAND DEBIAN-PACKAGE [BREW-FORMULA] (each package once; bash 3 has no sets)
    command -v "$1" >/dev/null 2>&1 && return
    local pkg="$2"
    command -v apt-get >/dev/null 2>&1 || pkg="${3:-}"
    [ -n "$pkg" ] || return 0
    case " ${extra[*]-} " in *" $pkg "*) ;; *) extra+=("$pkg") ;; esac
  }
  need gcc gcc
  need rg ripgrep ripgrep
  need git git git  # the ignore-file tree is a git repository (Benchmarks/ignore_tree.py), as rg needs
  need rsync rsync rsync
  need grep grep
  need dd coreutils
  need sha256sum coreutils coreutils
  need find findutils
  need taskset util-linux
  need ps procps
  need lscpu util-linux
  need inotifywait inotify-tools  # Benchmarks/watch_bench.py's baseline (Linux only: no brew formula)
  langgraph_packages  # Benchmarks/langgraph_bench.py (issue 25)
  if command -v apt-get >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    extra+=(python3-venv)
  fi
  if ((${#extra[@]})); then
    echo "setup: installing ${extra[*]} for the benchmarks" >&2
    if command -v apt-get >/dev/null 2>&1; then
      sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${extra[@]}" >/dev/null
    elif command -v brew >/dev/null 2>&1; then
      brew install "${extra[@]}"
    fi
  fi
fi
