"""The benchmark report (Benchmarks/report.py) never prints a ratio against a baseline that did
not run: a baseline that was not installed (run.sh's "skipped" line) or whose runs failed (an
`fs_bench exec` row with bad_exits: a command that fails at once takes microseconds, which once
showed as a 720x ratio) says "not measured" and why, in its table cells, in the summary and in a
list of its own. The report is run as run.sh runs it, on results written here."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REPORT = REPO / "Benchmarks" / "report.py"

WORD = "zqxjfrobnicate"
MISSING = "`rg` is not installed (scripts/setup.sh --bench installs it)"


def exec_row(label: str, p50_ms: float, command: str, bad: int = 0, runs: int = 2) -> dict:
    row = {"target": label, "test": "exec", "n": runs, "mean_ms": p50_ms, "p50_ms": p50_ms, "p90_ms": p50_ms,
           "p99_ms": p50_ms, "min_ms": p50_ms, "max_ms": p50_ms, "warmup": 1, "bad_exits": bad,
           "last_bad_status": (127 << 8) if bad else 0, "command": command}
    return row


def search_row(target: str, seconds: float) -> dict:
    return {"target": target, "framing": "ndjson", "test": "search", "seconds": seconds, "matches": 20,
            "files_searched": 20000, "errors": 0}


def skipped(label: str) -> dict:
    return {"test": "skipped", "what": f"the `rg` baseline ({label})", "reason": MISSING, "baseline": label, "tool": "rg"}


def base_rows() -> list[dict]:
    return [
        {"test": "files_env", "dir": "/tmp/wb-bench.x", "fs": "ext2/ext3", "free_gib": 20.0, "setup_seconds": 10.0,
         "tree_seconds": 5.0, "big": False, "word": WORD},
        search_row("server-files", 0.36), search_row("server-files-i", 0.40),
        exec_row("grep", 180.0, f"grep -rn {WORD} /tmp/x"), exec_row("grep-i", 900.0, f"grep -rn -i {WORD} /tmp/x"),
        {"test": "storage_env", "dir": "/tmp/wb-store.x", "fs": "ext2/ext3", "free_gib": 20.0, "mig_seconds": 3.0,
         "tree_seconds": 4.0, "rsync": ""},
        {"target": "server-migrate", "framing": "ndjson", "test": "migrate", "seconds": 3.6, "copied": 2002, "verified": 2002,
         "bytes": 1073741824, "switched": 1, "errors": 0, "init_ms": 3.0, "duration_ms": 3500},
        exec_row("cp-sha256", 6000.0, "sh -c cp -a ...", runs=1),
    ]


def render(tmp_path: Path, rows: list[dict]) -> str:
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    readme = tmp_path / "README.md"
    env = {k: v for k, v in os.environ.items() if k != "WB_QUICK"}
    done = subprocess.run([sys.executable, str(REPORT), str(results), str(readme)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return readme.read_text()


def lines_with(page: str, *needles: str) -> list[str]:
    return [line for line in page.splitlines() if all(n in line for n in needles)]


def test_a_baseline_that_is_not_installed_is_not_measured_and_says_why(tmp_path):
    page = render(tmp_path, base_rows() + [skipped("rg"), skipped("rg-i")])

    assert "## Baselines not measured" in page
    assert f"- `rg`: {MISSING}." in page and f"- `rg-i`: {MISSING}." in page
    # the search table: the rg ratio cells say why; the grep ones are still computed
    row = lines_with(page, "| sensitive (`caseSensitive: true`")[0]
    assert f"not measured ({MISSING})" in row and "2.00x" in row  # 0.36 s / 0.18 s for grep
    # the summary and the targets: not measured, never a ratio
    claims = lines_with(page, "literal `searchFiles`", "`rg -n")
    assert claims and all("not measured" in c for c in claims), claims
    assert not any(c.rstrip(" |").endswith("**met**") or "x |" in c.split("|")[4] for c in lines_with(page, "| literal `searchFiles` of 200 MB")), page


def test_a_baseline_whose_runs_failed_is_never_used_for_a_ratio(tmp_path):
    # rg "ran" in 0.5 ms: exec failed (status 127); rsync likewise. The server's 0.36 s / 0.0005 s would be 720x.
    rows = base_rows() + [exec_row("rg", 0.5, f"rg -n {WORD} /tmp/x", bad=3), exec_row("rg-i", 0.5, f"rg -n -i {WORD} /tmp/x", bad=3),
                          exec_row("rsync", 5.0, "rsync -a /a/ /b/", bad=1, runs=1)]
    page = render(tmp_path, rows)

    assert "720" not in page and "72" + "0.00x" not in page
    assert "- `rg`: `rg` failed (status 127) in 3 of 3 runs; its times are not used." in page
    assert "- `rsync`: `rsync` failed (status 127) in 1 of 2 runs; its times are not used." in page
    migrate = lines_with(page, "| `migrate` round trip |")[0]
    assert "not measured (`rsync` failed" in migrate
    summary = lines_with(page, "| `migrate` 2,000 files / 1 GiB vs `rsync -a`")[0]
    assert "not measured" in summary and "x |" not in summary.split("|")[4]


def test_a_baseline_that_ran_gives_its_ratio_and_no_not_measured_note(tmp_path):
    rows = base_rows() + [exec_row("rg", 120.0, f"rg -n {WORD} /tmp/x"), exec_row("rg-i", 130.0, f"rg -n -i {WORD} /tmp/x"),
                          exec_row("rsync", 2000.0, "rsync -a /a/ /b/", runs=1)]
    page = render(tmp_path, rows)

    assert "## Baselines not measured" not in page and "not measured (" not in page
    assert "3.00x" in lines_with(page, "| sensitive (`caseSensitive: true`")[0]  # 0.36 s / 0.12 s
    assert "1.80x" in lines_with(page, "| `migrate` round trip |")[0]  # 3.6 s / 2.0 s


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
