#!/usr/bin/env python3
"""Finds the crash points of product code: `try!`, `as!` and every postfix `!` (a force unwrap,
or an implicitly unwrapped optional in a declaration such as `var x: Int!`), plus
`.unsafelyUnwrapped`, in the Swift files under Sources/ (generated files included).

Product code may not trap on a value it was handed: an absent value is made impossible by its type,
or is a typed error (docs/decisions.md, "No crash points (issue 23)"). Tests/e2e/test_no_crash_points.py
runs this over Sources/ and tests the scanner itself.

The scanner reads Swift, not lines: comments (nested block comments too) and the text of string
literals (single-line, multi-line, raw `#"…"#`) are blanked first, while the code inside a string
interpolation `\\(…)` is kept, so `!=`, `!==`, a prefix `!`, and a `!` in a string or a comment are
not findings, and `"\\(x!)"` is. A string left open (which would hide the code after it) is an error,
not a pass.

    python3 scripts/check_crash_points.py [ROOT ...]    (default: Sources/ of this repository)

Prints `path:line:column: kind` per finding; exit status 1 when there is one, 2 on a file it cannot read.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = REPO / "Sources"

# Files (relative to the repository) allowed to keep crash points, each with its reason. Empty:
# every case found so far could be made impossible or a typed error.
EXCLUSIONS: dict[str, str] = {}


class ScanError(Exception):
    """The file is not Swift this scanner can read to the end (say, an unterminated string)."""


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    column: int
    kind: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.kind}"


_STRING_OPEN = re.compile(r'(#*)("""|")')
# Where code can change state: a comment, a string, or (inside an interpolation) a parenthesis.
_CODE_STOP = re.compile(r'[/"#()]')
# Where string text can end or hold code: an escape, a quote, a newline.
_STRING_STOP = re.compile(r'[\\"\n]')


def code_only(src: str) -> str:
    """`src` with comments and the text of string literals replaced by spaces (newlines kept, so
    line and column numbers still hold). String delimiters stay; interpolated code stays."""
    out = list(src)
    n = len(src)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    # The stack of what encloses the cursor: ("string", hashes, multiline, start) or
    # ["code", paren depth] for an interpolation. Empty: top-level code.
    stack: list = []
    i = 0
    while i < n:
        top = stack[-1] if stack else None
        if top is None or top[0] == "code":
            m = _CODE_STOP.search(src, i)
            if not m:
                break
            i = m.start()
            c = src[i]
            if src.startswith("//", i):
                j = src.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
                continue
            if src.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if src.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif src.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                if depth:
                    raise ScanError(f"unterminated block comment at offset {i}")
                blank(i, j)
                i = j
                continue
            if c in '#"':
                m = _STRING_OPEN.match(src, i)
                if m:
                    stack.append(("string", len(m.group(1)), m.group(2) == '"""', i))
                    i = m.end()
                    continue
            if top is not None:
                if c == "(":
                    top[1] += 1
                elif c == ")":
                    if top[1] == 0:
                        stack.pop()
                        blank(i, i + 1)
                        i += 1
                        continue
                    top[1] -= 1
            i += 1
            continue
        _, hashes, multiline, start = top
        m = _STRING_STOP.search(src, i)
        j = m.start() if m else n
        blank(i, j)
        i = j
        if i >= n:
            break
        escape = "\\" + "#" * hashes
        if src.startswith(escape, i):
            k = i + len(escape)
            if k < n and src[k] == "(":
                blank(i, k + 1)
                stack.append(["code", 0])
                i = k + 1
            else:
                blank(i, k + 1)
                i = k + 1
            continue
        close = ('"""' if multiline else '"') + "#" * hashes
        if src.startswith(close, i):
            stack.pop()
            i += len(close)
            continue
        if src[i] == "\n" and not multiline:
            raise ScanError(f"unterminated string literal at offset {start}")
        blank(i, i + 1)
        i += 1
    if stack:
        raise ScanError("unterminated string literal or interpolation at end of file")
    return "".join(out)


# A `!` bound to what precedes it (a name, a call, a subscript, a generic or optional type) and not
# the start of `!=` / `!==`: postfix. A prefix `!` follows a space, `(`, `[`, `=`, an operator...
_POSTFIX_BANG = re.compile(r"(?<=[\w)\]>}?`\"])!(?!=)")
_KEYWORD_BANG = re.compile(r"\b(try|as)!")
_UNSAFELY_UNWRAPPED = re.compile(r"\.unsafelyUnwrapped\b")


def scan_text(src: str, path: str = "<text>") -> list[Finding]:
    code = code_only(src)
    line_starts = [0] + [m.end() for m in re.finditer("\n", code)]

    def where(offset: int) -> tuple[int, int]:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - line_starts[lo] + 1

    found: dict[int, str] = {}
    for m in _POSTFIX_BANG.finditer(code):
        found[m.start()] = "force unwrap or implicitly unwrapped optional (postfix `!`)"
    for m in _KEYWORD_BANG.finditer(code):
        found[m.end() - 1] = f"`{m.group(1)}!`"
    for m in _UNSAFELY_UNWRAPPED.finditer(code):
        found[m.start()] = "`.unsafelyUnwrapped`"
    return [Finding(path, *where(at), kind) for at, kind in sorted(found.items())]


def scan_tree(root: Path, relative_to: Path = REPO, exclusions: dict[str, str] = EXCLUSIONS) -> list[Finding]:
    findings: list[Finding] = []
    for file in sorted(root.rglob("*.swift")):
        try:
            rel = str(file.relative_to(relative_to))
        except ValueError:
            rel = str(file)
        if rel in exclusions:
            continue
        try:
            findings += scan_text(file.read_text(encoding="utf-8"), rel)
        except ScanError as e:
            raise ScanError(f"{rel}: {e}") from None
    return findings


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [SOURCES]
    try:
        findings = [f for root in roots for f in scan_tree(root.resolve())]
    except (ScanError, OSError, UnicodeDecodeError) as e:
        print(f"check_crash_points: {e}", file=sys.stderr)
        return 2
    for f in findings:
        print(f)
    if findings:
        print(f"{len(findings)} crash point(s): make the case impossible by type, or a typed error", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
