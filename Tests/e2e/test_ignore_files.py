"""Ignore files honoured (issue 27, docs/protocol.md "Ignore files"): listFiles, searchFiles and
the MCP tools leave out what .gitignore (git's rules, nested), .ignore and the root's .stignore
(Syncthing's rules) ignore, unless includeIgnored.

The git cases are gitignore(5)'s own (nested files, negation, anchored, folder-only, `**`,
escapes): each tree is written into the workspace, which is also made a git repository, and the
server's answer is compared with `git ls-files --others --exclude-standard` (what git does not
ignore) and `git ls-files --others --ignored --exclude-standard` (what it does).
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from mcp_helpers import place, raw  # noqa: F401 (fixtures)
from wsfiles import list_all

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
WORD = "zebracorn"

# Each case: the tree (path -> content; None makes a folder) of files and ignore files.
CASES = {
    "name-anywhere-and-anchored": {
        ".gitignore": "*.log\n/todo.txt\ndoc/frotz\n",
        "a.log": WORD, "x/y/b.log": WORD, "todo.txt": WORD, "sub/todo.txt": WORD,
        "doc/frotz": WORD, "a/doc/frotz": WORD, "keep.txt": WORD,
    },
    "folder-only": {
        ".gitignore": "frotz/\ndoc/build/\n",
        "frotz/f.txt": WORD, "a/frotz/g.txt": WORD, "b/frotz": WORD,       # a file named frotz stays
        "doc/build/x.txt": WORD, "other/doc/build/y.txt": WORD,
    },
    "negation-and-parents": {
        ".gitignore": "*.log\n!keep.log\nbuild/\n!build/keep.txt\n",
        "a.log": WORD, "keep.log": WORD, "d/keep.log": WORD, "build/keep.txt": WORD, "build/x.o": WORD,
    },
    "only-foo-bar": {                                                       # gitignore(5)'s own example
        ".gitignore": "/*\n!/foo\n/foo/*\n!/foo/bar\n",
        "top.txt": WORD, "foo/x.txt": WORD, "foo/bar/y.txt": WORD, "foo/baz/z.txt": WORD, "other/w.txt": WORD,
    },
    "foo-star": {
        ".gitignore": "foo/*\n",
        "foo/test.json": WORD, "foo/bar/hello.c": WORD, "a/foo/kept.c": WORD,
    },
    "double-star": {
        ".gitignore": "**/logs\nabc/**\na/**/b\nx**y\n",
        "logs/1.txt": WORD, "deep/er/logs/2.txt": WORD, "abc/def/g.txt": WORD, "abcd/g.txt": WORD,
        "a/b": WORD, "a/q/r/b": WORD, "a/bb": WORD, "xzy": WORD, "x/z/y": WORD,
    },
    "nested-and-escapes": {
        ".gitignore": "*.tmp\n\\#hash\n\\!bang\nspace\\ \ntrail   \n# comment\n",
        "sub/.gitignore": "!keep.tmp\n/local.txt\n*.gen\n",
        "a.tmp": WORD, "sub/keep.tmp": WORD, "sub/drop.tmp": WORD, "other/keep.tmp": WORD,
        "sub/local.txt": WORD, "sub/deeper/local.txt": WORD, "local.txt": WORD, "sub/x.gen": WORD, "x.gen": WORD,
        "#hash": WORD, "!bang": WORD, "space ": WORD, "space": WORD, "trail": WORD, "{a,b}": WORD,
    },
    "classes-and-question-marks": {
        ".gitignore": "f[0-9].txt\ng[!a-c].txt\nh?.md\n",
        "f1.txt": WORD, "fx.txt": WORD, "ga.txt": WORD, "gz.txt": WORD, "h1.md": WORD, "h12.md": WORD,
    },
}


def _write(root, tree: dict) -> None:
    for rel, content in tree.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            p.mkdir(exist_ok=True)
        else:
            p.write_text(content + ("\n" if not rel.endswith("ignore") else ""))


def _git(root, *args: str) -> set[str]:
    env = {**os.environ, "HOME": str(root.parent), "XDG_CONFIG_HOME": str(root.parent / "xdg"),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    out = subprocess.run(["git", "-c", "core.quotePath=false", *args], cwd=root, env=env, check=True,
                         capture_output=True, text=True).stdout
    return {line for line in out.splitlines() if line}


def _ours(paths) -> set[str]:
    """The case's own paths (not the workspace's template, its private folder, or .git)."""
    return {p for p in paths if p.split("/")[0] not in (".git", ".workspace", "Journal", "Research", "Chats")
            and p not in ("context.md", "README.txt")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_listing_and_search_agree_with_git(ws, case):
    root = ws.root
    _write(root, CASES[case])
    _git(root, "init", "-q")
    kept_by_git = _ours(_git(root, "ls-files", "--others", "--exclude-standard"))
    ignored_by_git = _ours(_git(root, "ls-files", "--others", "--ignored", "--exclude-standard"))
    assert ignored_by_git, "the case ignores nothing: it tests nothing"

    listed = list_all(ws, recursive=True, includeHidden=True)
    files = _ours(e["path"] for e in listed if e["type"] == "file")
    assert files == kept_by_git

    everything = _ours(e["path"] for e in list_all(ws, recursive=True, includeHidden=True, includeIgnored=True)
                       if e["type"] == "file")
    assert everything - files == ignored_by_git

    found = ws.result("searchFiles", {"query": WORD, "includeHidden": True, "maxResults": 10000})
    assert _ours(m["path"] for m in found["matches"]) == {p for p in kept_by_git if not p.endswith("ignore")}
    assert found["ignored"] > 0
    every = ws.result("searchFiles", {"query": WORD, "includeHidden": True, "includeIgnored": True, "maxResults": 10000})
    assert _ours(m["path"] for m in every["matches"]) == {p for p in kept_by_git | ignored_by_git if not p.endswith("ignore")}
    assert every["ignored"] == 0


def test_a_page_boundary_and_cursor_skip_ignored_entries(ws):
    """Paging counts only what is listed: small pages over a folder where most entries are
    ignored concatenate to the whole listing."""
    root = ws.root
    (root / "big").mkdir()
    (root / "big" / ".gitignore").write_text("*.skip\n")
    for i in range(300):
        (root / "big" / f"f{i:03d}.{'skip' if i % 3 else 'keep'}").write_text("x")
    pages = list_all(ws, path="big", limit=7)
    assert [e["name"] for e in pages] == [f"f{i:03d}.keep" for i in range(0, 300, 3)]


def test_dot_ignore_wins_over_gitignore_and_stignore_is_the_engines(ws):
    root = ws.root
    _write(root, {
        ".gitignore": "*.bak\n!keep.md\n",
        ".ignore": "!wanted.bak\nnotes/\n",
        ".stignore": "// Syncthing's list: the first match decides\n!/top.part\n(?i)*.PART\nsecret\n",
        "a.bak": WORD, "wanted.bak": WORD, "notes/n.txt": WORD, "keep.md": WORD,
        "x/big.Part": WORD, "top.part": WORD, "deep/secret/s.txt": WORD, "secret": WORD, "plain.txt": WORD,
    })
    names = {e["path"] for e in list_all(ws, recursive=True)}
    assert {"wanted.bak", "keep.md", "top.part", "plain.txt"} <= names
    assert not names & {"a.bak", "notes", "notes/n.txt", "x/big.Part", "deep/secret", "secret"}
    assert "deep" in names and "x" in names
    found = ws.result("searchFiles", {"query": WORD})
    assert {m["path"] for m in found["matches"]} == {"wanted.bak", "keep.md", "top.part", "plain.txt"}
    assert found["ignored"] == 5          # a.bak, notes/, x/big.Part, deep/secret/, secret


def test_an_ignored_folder_named_as_the_path_is_listed(ws):
    root = ws.root
    _write(root, {".gitignore": "build/\n", "build/out.o": WORD, "build/sub/x.o": WORD})
    assert {e["path"] for e in list_all(ws, path="build", recursive=True)} == {"build/out.o", "build/sub", "build/sub/x.o"}
    assert "build" not in {e["path"] for e in list_all(ws)}


def test_an_ignore_file_that_is_a_link_or_too_large_is_not_honoured(ws, tmp_path):
    root = ws.root
    outside = tmp_path / "outside-ignore"
    outside.write_text("*\n")
    (root / "l").mkdir()
    (root / "l" / ".gitignore").symlink_to(outside)
    (root / "l" / "a.txt").write_text(WORD)
    (root / "big").mkdir()
    (root / "big" / ".gitignore").write_text("*.txt\n" + "#" * (1 << 20))
    (root / "big" / "b.txt").write_text(WORD)
    names = {e["path"] for e in list_all(ws, recursive=True)}
    assert {"l/a.txt", "big/b.txt"} <= names


def test_mcp_tools_honour_ignore_files(raw, place):
    _write(place.root, {".gitignore": "node_modules/\n*.log\n", "node_modules/m/index.js": WORD,
                        "app.log": WORD, "src/main.js": WORD})
    r = raw()
    r.initialize("2025-11-25")
    listed = r.result("tools/call", {"name": "list_files", "arguments": {"recursive": True}})["structuredContent"]
    paths = {e["path"] for e in listed["entries"]}
    assert "src/main.js" in paths and not paths & {"node_modules", "app.log"}
    found = r.result("tools/call", {"name": "search_files", "arguments": {"query": WORD}})["structuredContent"]
    assert {m["path"] for m in found["matches"]} == {"src/main.js"} and found["ignored"] == 2
    every = r.result("tools/call", {"name": "search_files", "arguments": {"query": WORD, "includeIgnored": True}})
    assert {m["path"] for m in every["structuredContent"]["matches"]} == {"src/main.js", "app.log", "node_modules/m/index.js"}
