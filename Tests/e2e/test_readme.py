"""Every command README.md shows runs here against the built binary, read from README.md itself
(readme_snippets.py parses its fenced blocks and its install-route table; nothing is copied).

Placeholders (`/path/to/workspace-bridge`, `/path/to/notes`, `/tmp/notes`) become this test's
binary and folders, and HOME points into the test's folder, so nothing lands in the real home.
What needs a host that is not here (Claude Desktop, Claude Code, VS Code, Homebrew) is skipped
saying why; the install routes that need `make dist` run in Tests/dist/test_readme_routes.py.
A block or a route of no known kind fails `test_every_snippet_has_a_kind`.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from readme_snippets import KINDS, REPO, block, blocks, kinds_of, localize, routes

E2E = Path(__file__).resolve().parent
# A hang guard only: a snippet answers in about a second, but a busy machine (load 30 on 2 cores)
# has taken a minute and a half to start an MCP session.
RUN_TIMEOUT = 600

# The install-route table: each route's step, run where its artefact is built, or skipped with why.
ROUTES = {
    "From a clone": ("Tests/dist/test_readme_routes.py", "test_from_a_clone_make_install_and_uninstall"),
    "Release archive": ("Tests/dist/test_readme_routes.py", "test_release_archive_route_in_a_fresh_root"),
    "MCP bundle": (None, "needs an MCPB host (Claude Desktop); the bundle is run as a host runs it by "
                         "Tests/dist/test_mcp_dist.py::test_the_bundle_runs_as_a_host_runs_it"),
    "VS Code": (None, "needs VS Code (`code`); the packaged extension runs its binary in Tests/dist/vsix.test.mjs"),
    "Neovim": ("Tests/e2e/test_editors.py", "docs/editors.md's blocks"),
    "Emacs": ("Tests/e2e/test_editors.py", "docs/editors.md's blocks"),
    "macOS": (None, "needs macOS with Homebrew (`brew`); not built here"),
}


@pytest.fixture
def home(tmp_path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def env(home, binary) -> dict:
    """The user's environment: HOME in the test's folder, no XDG overrides, the binary on PATH."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    e.update(HOME=str(home), PATH=f"{binary.parent}{os.pathsep}{e.get('PATH', '')}", WB_BIN=str(binary))
    return e


@pytest.fixture
def notes(tmp_path) -> Path:
    n = (tmp_path / "notes").resolve()
    n.mkdir()
    return n


def sh(script: str, env: dict, cwd: Path = REPO, timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", script], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def commands(text: str) -> list[str]:
    """The command lines of a shell block: comments and `# →` output lines dropped, `\\` lines joined."""
    out, pending = [], ""
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        line = re.sub(r"\s+#.*$", "", line)
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        if (pending + line).strip():
            out.append(pending + line)
        pending = ""
    return out


def run_python(code: str, env: dict, cwd: Path, extra_path: list[Path] = ()) -> subprocess.CompletedProcess:
    script = cwd / "snippet.py"
    script.write_text(code)
    e = {**env, "PYTHONPATH": os.pathsep.join(str(p) for p in extra_path)}
    return subprocess.run([sys.executable, str(script)], env=e, cwd=cwd, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)


def as_async_main(code: str, before: str = "", after: str = "") -> str:
    """A snippet written as a notebook would run it (top-level `async with`), in an asyncio main."""
    body = textwrap.indent("\n".join(x for x in (before, code, after) if x), "    ")
    return f"import asyncio\n\nasync def _main():\n{body}\n\nasyncio.run(_main())\n"


MCP_CHECK = """
import asyncio, json, sys
from mcp import Client, StdioServerParameters

async def main(command, args):
    async with Client(StdioServerParameters(command=command, args=args), mode="auto") as c:
        tools = {t.name for t in (await c.list_tools()).tools}
        listed = (await c.call_tool("list_files", {"path": ""})).structured_content
        print(json.dumps({"era": c.protocol_version, "tools": sorted(tools), "listed": listed}))

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
"""


def mcp_serves(command: str, args: list[str], env: dict, cwd: Path) -> dict:
    """Starts `command args` as an MCP client would, lists the tools and the workspace's root."""
    script = cwd / "mcp_check.py"
    script.write_text(MCP_CHECK)
    p = subprocess.run([sys.executable, str(script), command, json.dumps(args)], env=env, cwd=cwd,
                       capture_output=True, text=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads(p.stdout.splitlines()[-1])
    assert {"list_files", "read_file", "write_file"} <= set(out["tools"]), out["tools"]
    assert "entries" in out["listed"], out
    return out


# -- the classification ---------------------------------------------------------------------------

def test_every_snippet_has_a_kind():
    """A new README block, or a new install route, fails here until a test runs it (or skips it saying why)."""
    found = {}
    for b in blocks():
        kinds = kinds_of(b)
        assert len(kinds) == 1, f"README.md line {b.line}: a ```{b.lang} block of kinds {kinds}:\n{b.text}"
        found[kinds[0]] = found.get(kinds[0], 0) + 1
    assert found == {k: 1 for k in KINDS}, f"kinds no README block has, or has twice: {found}"
    for route in routes():
        known = [r for r in ROUTES if route.startswith(r)]
        assert len(known) == 1, f"README.md install route {route!r} has no test (ROUTES in {__file__})"
    assert len(routes()) == len(ROUTES), f"ROUTES names a route the README no longer has: {sorted(routes())}"


def test_the_routes_said_tested_have_their_test():
    for route, (where, what) in ROUTES.items():
        if where is None:
            continue
        text = (REPO / where).read_text()
        if what.startswith("test_"):
            assert f"def {what}(" in text, f"{route}: {where} has no {what}"
    editors = (REPO / "Tests/e2e/test_editors.py").read_text()
    assert "editors.md" in editors


# -- each block -----------------------------------------------------------------------------------

def test_quickstart_make_run_serves_the_web_front_end(env, tmp_path):
    """`make run` (its port 0 here, so it never meets another run): builds, prints `Open …?token=…`, serves the page."""
    lines = commands(block("quickstart").text)
    assert lines[0] == "make run" and lines[1] == "make test", lines
    env = {**env, "XDG_DATA_HOME": str(tmp_path / "data")}
    p = subprocess.Popen(["make", "--no-print-directory", "run", "PORT=0"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        url, seen, deadline = None, [], time.monotonic() + 900  # a build may run first
        while url is None and time.monotonic() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            seen.append(line)
            m = re.match(r"Open (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
            url = m and m.group(1)
        assert url, "".join(seen[-30:])
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(url, timeout=30) as r:
            body = r.read().decode()
            assert r.status == 200 and body.lower().startswith("<!doctype html") and "WorkspaceBridge" in body, body
    finally:
        os.killpg(p.pid, signal.SIGINT)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_quickstart_make_test_is_this_suite():
    assert commands(block("quickstart").text)[1] == "make test"
    pytest.skip("`make test` is the command running this test (Tests/e2e is one of its suites)")


def test_doctor_block(env, home, binary):
    """`--version`, `doctor`, and `doctor` with the roots the README gives: each runs, writes nothing;
    doctor exits 0, or 1 with each problem followed by its fix."""
    lines = commands(block("doctor").text)
    assert [shlex.split(x)[:2] for x in lines] == [["workspace-bridge", "--version"], ["workspace-bridge", "doctor"],
                                                  ["workspace-bridge", "doctor"]], lines
    version = sh(lines[0], env)
    assert version.returncode == 0 and re.fullmatch(r"\d+\.\d+\.\d+\n", version.stdout), version
    for line in lines[1:]:
        p = sh(line, env)
        assert p.returncode in (0, 1), p
        out = p.stdout.splitlines()
        problems = [i for i, x in enumerate(out) if x.startswith("PROBLEM")]
        assert (p.returncode == 1) == bool(problems), p.stdout
        for i in problems:
            assert any(x.strip().startswith("fix:") for x in out[i + 1:i + 4]), p.stdout
        if not problems:
            assert out[-1] == "No problem found.", p.stdout
    assert list(home.rglob("*")) == [], "doctor writes nothing"


def test_shell_printf_example(env, binary, notes):
    """The `printf … | workspace-bridge` pipe gives the answers the block shows (`...`: the part left out),
    in either order (unrelated requests run in parallel, as the block says), and exits 0."""
    text = block("shell-printf").text
    expected = [line.split("# → ", 1)[1] for line in text.splitlines() if "# → " in line]
    (script,) = commands(text)
    p = sh(localize(script, binary, notes), env)
    assert p.returncode == 0, p.stderr
    got = p.stdout.splitlines()
    assert len(got) == len(expected), p.stdout
    for want in expected:
        pattern = ".*".join(re.escape(part) for part in want.split("..."))
        assert [line for line in got if re.fullmatch(pattern, line)], (got, want)


def test_mcp_config_block_starts_a_working_server(env, binary, notes, tmp_path):
    config = json.loads(localize(block("mcp-config").text, binary, notes))
    (server,) = config["mcpServers"].values()
    mcp_serves(server["command"], server["args"], env, tmp_path)


def test_mcp_configs_of_the_2025_era(env, binary, notes, tmp_path):
    """Claude Desktop's and VS Code's entries: valid JSON (`//` lines are comments), each starts a server."""
    text = localize(block("mcp-configs-2025").text, binary, notes)
    entries = [json.loads(line) for line in text.splitlines() if line.strip() and not line.lstrip().startswith("//")]
    assert [list(e) for e in entries] == [["mcpServers"], ["servers"]]
    for entry in entries:
        (server,) = next(iter(entry.values())).values()
        assert server.get("type", "stdio") == "stdio"
        mcp_serves(server["command"], server["args"], env, tmp_path)


def test_mcp_sdk_snippet_in_auto_mode(env, binary, notes, tmp_path):
    """The official SDK snippet as written: `mode="auto"` ends up in the 2026 era, prints the listing."""
    (notes / "hello.md").write_text("hi")
    code = as_async_main(localize(block("mcp-sdk-auto").text, binary, notes))
    p = run_python(code, env, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "'entries'" in p.stdout and "hello.md" in p.stdout, p.stdout


def test_mcp_sdk_tasks_snippet(env, binary, notes, tmp_path):
    """The tasks-and-listen snippet: the search is answered, and a change to the subscribed file arrives.
    Its `...` (the reader's code) records the event and stops; the file is changed while it listens."""
    site = notes / "projects" / "site"
    site.mkdir(parents=True)
    (site / "index.md").write_text("TODO: a page\n")
    text = localize(block("mcp-sdk-tasks").text, binary, notes)
    assert text.count("...") == 1
    text = text.replace("...", 'print("EVENT", type(event).__name__); break')
    touch = textwrap.dedent(f"""
        async def _touch():
            for i in range(600):  # until the listener takes it (hang guard: 60 s)
                await asyncio.sleep(0.1)
                open({str(site / "index.md")!r}, "a").write("edit\\n")
        _toucher = asyncio.ensure_future(_touch())""")
    code = as_async_main(text, before="from mcp import Client, StdioServerParameters\n"
                                       "from mcp_modern import TasksExtension\n" + touch,
                         after='print("HITS", json.dumps(hits.structured_content))\n_toucher.cancel()')
    code = "import json\n" + code
    p = run_python(code, env, tmp_path, extra_path=[E2E])
    assert p.returncode == 0, p.stdout + p.stderr
    assert "EVENT ResourceUpdated" in p.stdout, p.stdout
    hits = json.loads(p.stdout.split("HITS ", 1)[1].splitlines()[0])
    assert [m["path"] for m in hits["matches"]] == ["projects/site/index.md"], hits


def test_mcp_with_an_approval_policy(env, binary, notes, tmp_path):
    (line,) = commands(block("mcp-approval").text)
    argv = shlex.split(localize(line, binary, notes))
    assert argv[0] == "workspace-bridge" and "--approval-policy" in argv
    mcp_serves(str(binary), argv[1:], env, tmp_path)


def test_claude_code_mcp_add():
    (line,) = commands(block("claude-code").text)
    assert shlex.split(line)[:4] == ["claude", "mcp", "add", "workspace"]
    if shutil.which("claude") is None:
        pytest.skip("needs Claude Code (`claude`), not installed here; the command it adds is "
                    "test_mcp_config_block_starts_a_working_server's")
    pytest.fail("Claude Code is installed: give this route a real run")


def acp_argv(kind: str) -> list[str]:
    """The argv an editor config of `kind` gives the proxy."""
    text = block(kind).text
    if kind == "acp-zed":
        (server,) = json.loads(text)["agent_servers"].values()
        return [server["command"], *server["args"]]
    if kind == "acp-codecompanion":
        return json.loads("[" + re.search(r"default = \{ (.*?) \}", text).group(1) + "]")
    return json.loads("[" + re.search(r"'\((.*?)\)\)", text, re.S).group(1).replace('" "', '", "') + "]")


def test_acp_zed_config_starts_a_working_proxy(env, binary, notes, tmp_path):
    """Zed's entry: valid JSON; its proxy command line, with the agent after `--` swapped for a
    test agent (Gemini is not here), serves an ACP editor: initialize, session/new, a prompt."""
    argv = acp_argv("acp-zed")
    cut = argv.index("--")
    assert argv[0] == "/path/to/workspace-bridge" and argv[1] == "acp" and argv[cut + 1:] == ["gemini", "--experimental-acp"]
    proxy = [localize(a, binary, notes) for a in argv[:cut]]
    agent = [sys.executable, str(E2E / "acp_agents" / "stream_agent.py")]
    code = textwrap.dedent(f"""
        import asyncio, json, os
        import acp
        from acp import schema as S

        class Editor:
            def __init__(self): self.updates = 0
            def on_connect(self, conn): pass
            async def session_update(self, session_id, update, **kw): self.updates += 1
            async def request_permission(self, session_id, tool_call, options, **kw):
                return S.RequestPermissionResponse(outcome=S.AllowedOutcome(outcome="selected", option_id=options[0].option_id))

        async def main():
            e = Editor()
            argv = {json.dumps(proxy + ["--"] + agent)}
            async with acp.spawn_agent_process(e, *argv, env=dict(os.environ)) as (conn, process):
                await conn.initialize(protocol_version=1, client_capabilities=S.ClientCapabilities())
                sid = (await conn.new_session(cwd={str(notes)!r}, mcp_servers=[])).session_id
                r = await conn.prompt(session_id=sid, prompt=[acp.text_block("hello")])
                print(json.dumps({{"session": sid, "stop": r.stop_reason, "updates": e.updates}}))

        asyncio.run(main())
        """)
    p = run_python(code, env, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads(p.stdout.splitlines()[-1])
    assert out["stop"] == "end_turn" and out["updates"] > 0, out
    journals = list(notes.rglob(f"*{out['session']}*"))
    assert journals, "the session was journaled in the workspace"


@pytest.mark.parametrize("kind, host", [("acp-codecompanion", "Neovim with CodeCompanion"),
                                        ("acp-agent-shell", "Emacs with agent-shell")])
def test_acp_editor_configs_give_the_same_proxy(kind, host):
    """The Neovim and Emacs configs give the proxy the command line Zed's does (which runs above)
    but for the agent they name; the editors themselves are not here."""
    zed, argv = acp_argv("acp-zed"), acp_argv(kind)
    assert argv[:argv.index("--")] == zed[:zed.index("--")], argv
    assert argv[argv.index("--") + 1:], "an agent after --"
    pytest.skip(f"needs {host}; the proxy command line it gives is test_acp_zed_config_starts_a_working_proxy's")


def test_js_client_snippet(env, binary, notes, tmp_path):
    text = localize(block("js-client").text, binary, notes)
    text = text.replace("'./clients/js/index.js'", json.dumps((REPO / "clients/js/index.js").as_uri()))
    script = tmp_path / "snippet.mjs"
    script.write_text(text)
    p = subprocess.run(["node", str(script)], env=env, cwd=tmp_path, capture_output=True, text=True,
                       timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (notes / "Research/idea.md").read_text() == "# An idea\n"
    assert "# An idea" in p.stdout and "Research/idea.md" in p.stdout, p.stdout
    assert p.stdout.rstrip().endswith("{ code: 0, signal: null }"), p.stdout


def test_python_client_snippet(env, binary, notes, tmp_path):
    code = localize(block("python-client").text, binary, notes)
    p = run_python(code, env, tmp_path, extra_path=[REPO / "clients" / "python"])
    assert p.returncode == 0, p.stdout + p.stderr
    assert (notes / "hello.md").read_text() == "# Hello\n"
    assert "hello.md" in p.stdout.splitlines()[-1], p.stdout
    assert p.stdout.splitlines()[0].startswith("begin"), p.stdout


def test_vscode_development_host():
    assert "code --extensionDevelopmentPath" in block("vscode-dev").text
    pytest.skip("needs VS Code (`code`), not here; the extension is driven by clients/vscode/test and, packaged, "
                "by Tests/dist/vsix.test.mjs")


def test_usage_block_names_only_options_the_binary_takes(env):
    """Every option of the synopsis is in the `--help` of its subcommand; `--version` and `--help` run."""
    current = None
    for line in block("usage").lines():
        words = line.split()
        if words[0] == "workspace-bridge":
            current = {"[serve]": "serve", "mcp": "mcp", "doctor": "doctor"}.get(words[1])
            if current is None:
                assert words[1:4] == ["--version", "|", "--help"], line
                for flag in ("--version", "--help"):
                    assert sh(f"workspace-bridge {flag}", env).returncode == 0
                continue
        help_text = sh(f"workspace-bridge help {current}", env).stdout
        for option in re.findall(r"--[a-z-]+", line.split("#")[0]):
            assert option in help_text, f"{option} (README usage, {current}) is not in `workspace-bridge help {current}`"
