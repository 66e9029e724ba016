"""README.md's commands, read from README.md itself: its fenced blocks and its install-route table,
each given a kind by what it says, so the tests run what the README shows (never a copy of it).

`blocks()` are the fenced blocks, `routes()` the rows of "Install: one step per route". `kind_of`
names the one kind a block is; a block of no kind, or of two, is an error the README test reports.
`localize` points a snippet's placeholders at what a test made: the binary, a workspace folder.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"

FENCE_RE = re.compile(r"^```([\w-]*)\n(.*?)^```$", re.M | re.S)


@dataclass(frozen=True)
class Block:
    lang: str
    text: str
    line: int  # where the block starts in README.md (1-based), for messages

    def lines(self) -> list[str]:
        return self.text.splitlines()


# Each kind: the block's language and a pattern its text matches. A new snippet matches none
# and fails the README test until it is given a kind (and a test that runs it).
KINDS: dict[str, tuple[str, str]] = {
    "quickstart": ("sh", r"^make run\b.*\n^make test\b"),
    "doctor": ("sh", r"^workspace-bridge --version\n^workspace-bridge doctor"),
    "shell-printf": ("sh", r"^printf [^\n]*\\\n[^\n]*\| \.build/release/workspace-bridge"),
    "mcp-config": ("json", r'^\{"mcpServers"'),
    "mcp-sdk-auto": ("python", r'mode="auto"'),
    "mcp-configs-2025": ("jsonc", r"Claude Desktop.*\n.*\n// VS Code"),
    "claude-code": ("sh", r"^claude mcp add "),
    "mcp-sdk-tasks": ("python", r"TasksExtension\(\)"),
    "mcp-approval": ("sh", r"^workspace-bridge mcp .*--approval-policy"),
    "acp-zed": ("json", r'"agent_servers"'),
    "acp-codecompanion": ("lua", r'require\("codecompanion"\)'),
    "acp-agent-shell": ("elisp", r"agent-shell-anthropic-claude-command"),
    "js-client": ("js", r"WorkspaceBridgeClient\.spawn"),
    "python-client": ("python", r"from workspace_bridge import spawn"),
    "vscode-dev": ("sh", r"code --extensionDevelopmentPath"),
    "usage": ("", r"^workspace-bridge \[serve\]"),
}


def blocks(text: str | None = None) -> list[Block]:
    text = README.read_text() if text is None else text
    return [Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE_RE.finditer(text)]


def kinds_of(block: Block) -> list[str]:
    return [k for k, (lang, pattern) in KINDS.items() if lang == block.lang and re.search(pattern, block.text, re.M)]


def block(kind: str) -> Block:
    """The one README block of `kind` (the classification test fails first when there is not one)."""
    found = [b for b in blocks() if kinds_of(b) == [kind]]
    assert len(found) == 1, f"README.md has {len(found)} blocks of kind {kind}"
    return found[0]


def section(title: str, text: str | None = None) -> str:
    """The text of the `## title` section (up to the next `## `)."""
    text = README.read_text() if text is None else text
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def routes() -> dict[str, list[str]]:
    """The install-route table: route → the backticked commands of its step."""
    rows = {}
    for line in section("Install: one step per route").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("route", "---"):
            rows[cells[0]] = re.findall(r"`([^`]+)`", cells[1])
    return rows


def localize(text: str, binary: Path, notes: Path) -> str:
    """The snippet with its placeholders pointing at this test's binary and workspace folder."""
    for placeholder in ("/path/to/workspace-bridge", ".build/release/workspace-bridge"):
        text = text.replace(placeholder, str(binary))
    for placeholder in ("/path/to/notes", "/tmp/notes"):
        text = text.replace(placeholder, str(notes))
    return text
