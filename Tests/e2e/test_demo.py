"""`make demo`'s tour (scripts/tour.py) run against the binary: it exits 0, and each section
prints its own requests and the answers and notifications they cause, nothing left over from
another (no stray `$/logTrace`); the timed loop counts every one of its 1,000 answers."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from contract import REPO

# Notifications a section may show: those its own requests cause.
NOTIFICATIONS = {
    "An agent session": {"session/didChangeState"},
    "Tracing": {"$/logTrace"},
    "Long work": {"$/progress"},
}
# The head of a printed message (a long one is cut after 400 characters): its id, its method.
ID_RE = re.compile(r'^\{"jsonrpc": ?"2\.0", ?"id": ?("[^"]*"|\d+)')
METHOD_RE = re.compile(r'^\{"jsonrpc": ?"2\.0", ?(?:"id": ?(?:"[^"]*"|\d+), ?)?"method": ?"([^"]+)"')


@pytest.fixture(scope="module")
def tour(binary, tmp_path_factory) -> subprocess.CompletedProcess:
    home = tmp_path_factory.mktemp("tour-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env["HOME"] = str(home)
    # A hang guard only: the tour takes seconds (it sleeps once, until its own cancel).
    return subprocess.run([sys.executable, str(REPO / "scripts" / "tour.py"), str(binary)], env=env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)


def sections(out: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        if line.startswith("== "):
            current = line[3:]
            assert current not in found, f"section {current!r} twice"
            found[current] = []
        elif current is not None:
            found[current].append(line)
    return found


def allowed(title: str) -> set[str]:
    return set().union(*(methods for prefix, methods in NOTIFICATIONS.items() if title.startswith(prefix)))


def test_the_tour_exits_0_without_a_traceback(tour):
    assert tour.returncode == 0, tour.stdout[-3000:] + tour.stderr
    assert "Traceback" not in tour.stderr + tour.stdout


def test_each_section_shows_only_its_own_exchange(tour):
    found = sections(tour.stdout)
    assert len(found) >= 10, list(found)
    for title, lines in found.items():
        sent, answered, notified = [], [], []
        for line in lines:
            if line.startswith("→ ["):
                sent += [json.dumps(m["id"]) for m in json.loads(line[2:]) if "id" in m]
            elif line.startswith("→ "):
                m = ID_RE.match(line[2:])  # a notification has none
                sent += [m.group(1)] if m else []
            elif line.startswith("$ printf "):  # the shell script's requests
                sent += re.findall(r'"id":(\d+)', line)
            elif line.startswith("← ["):
                answered += [json.dumps(m["id"]) for m in json.loads(line[2:])]
            elif line.startswith("← "):
                method = METHOD_RE.match(line[2:])
                if method:
                    notified.append(method.group(1))
                else:
                    m = ID_RE.match(line[2:])
                    assert m, f"section {title!r}: neither an answer nor a notification: {line}"
                    answered.append(m.group(1))
        assert sorted(answered) == sorted(sent), f"section {title!r}: sent {sent}, answers {answered}"
        stray = [n for n in notified if n not in allowed(title)]
        assert stray == [], f"section {title!r} shows notifications it did not cause: {stray}"


def test_traces_appear_only_where_tracing_is_on_and_are_read_there(tour):
    found = sections(tour.stdout)
    traced = {t: [x for x in lines if '"$/logTrace"' in x] for t, lines in found.items()}
    (title,) = [t for t, lines in traced.items() if lines]
    assert title.startswith("Tracing"), traced
    lines = traced[title]
    assert len(lines) == 2 and any("'$/setTrace'" in x for x in lines) and any("request 'ping'" in x for x in lines), lines


def test_the_ping_figure_counts_every_answer(tour):
    (line,) = [x for x in tour.stdout.splitlines() if "1,000 pings" in x]
    assert re.fullmatch(r"   1,000 pings: 1,000 answers, \d+ µs per round trip \(Python client included\)", line), line


def test_shutdown_exits_0_and_the_shell_section_answers_both_lines(tour):
    found = sections(tour.stdout)
    (shutdown,) = [lines for t, lines in found.items() if t.startswith("Shutdown and exit")]
    assert "   server exited with status 0" in shutdown
    (shell,) = [lines for t, lines in found.items() if t.startswith("The same server from a shell script")]
    answers = [json.loads(x[2:]) for x in shell if x.startswith("← ") and not x.endswith(" …")]
    assert [a.get("id") for a in answers] == [2] and answers[0]["result"] == {}, shell
    assert any(x.startswith('← {"jsonrpc":"2.0","id":1,"result":{"serverInfo"') for x in shell), shell
