"""`make test`'s runner (scripts/run-suites.sh): every suite runs even when an earlier one failed,
each suite's own output reaches the log whole, and the end names every failed suite."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts/run-suites.sh"


def run(tmp_path, suites: str, swift_fails: bool, make_fails_on: tuple[str, ...] = ()):
    """Runs the script with stand-ins for swift and make that print what they were asked and fail as told."""
    swift = tmp_path / "swift"
    swift.write_text(f"#!/bin/sh\necho \"swift $*: 3 tests, closing line\"\nexit {1 if swift_fails else 0}\n")
    make = tmp_path / "make"
    cases = "".join(f"  *{t}*) echo \"make $t failed\"; exit 2;;\n" for t in make_fails_on)
    make.write_text(f"#!/bin/sh\necho \"make $*\"\ncase \"$*\" in\n{cases}esac\nexit 0\n")
    for f in (swift, make):
        f.chmod(0o755)
    env = {**os.environ, "SWIFT": str(swift), "MAKE": str(make), "SUITES": suites}
    return subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)


def test_every_suite_runs_after_a_failure_and_the_end_names_each_failed_one(tmp_path):
    r = run(tmp_path, "unit clients dist fuzz", swift_fails=True, make_fails_on=("dist-test", "fuzz"))
    out = r.stdout
    assert r.returncode == 1, out
    assert "swift test: 3 tests, closing line" in out, "the suite's own output must reach the log"
    for name in ("unit", "clients", "dist", "fuzz"):
        assert f"=== suite {name}: started" in out, out
    assert "make --no-print-directory clients" in out and "=== suite clients: passed" in out
    assert "make --no-print-directory dist-test" in out, "dist-test runs after dist"
    assert out.rstrip().splitlines()[-1] == "=== make test: 3 of 4 suites failed: unit dist fuzz", out


def test_all_passing_exits_0(tmp_path):
    r = run(tmp_path, "unit clients", swift_fails=False)
    assert r.returncode == 0, r.stdout
    assert r.stdout.rstrip().splitlines()[-1] == "=== make test: all 2 suites passed: unit clients"


def test_a_failed_dist_skips_its_tests_and_is_named(tmp_path):
    r = run(tmp_path, "dist", swift_fails=False, make_fails_on=("directory dist",))
    assert r.returncode == 1
    assert "make --no-print-directory dist-test" not in r.stdout, "dist-test needs what dist makes"
    assert "=== make test: 1 of 1 suites failed: dist" in r.stdout


def test_the_makefile_runs_the_suites_through_it_after_setup_and_build():
    makefile = (SCRIPT.parents[1] / "Makefile").read_text()
    recipe = makefile.split("\ntest:\n", 1)[1].split("\n\n", 1)[0]
    lines = [line.strip() for line in recipe.splitlines()]
    assert lines == ["bash scripts/setup.sh --test", "$(SWIFT) build --build-tests",
                     'SWIFT="$(SWIFT)" MAKE="$(MAKE)" bash scripts/run-suites.sh'], lines
