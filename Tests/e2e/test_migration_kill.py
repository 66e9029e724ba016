"""migrate survives SIGKILL at any moment (docs/protocol.md, "Storage", **migrate**: "After a
kill at any moment getStorageInfo reports pendingMigration …, and the next migrate with the same
`to` and `mode` resumes … The storage choice switches at the very end, once.").

Each combination of direction (local→cloud, cloud→local) and mode (copy, move) migrates the
same 2,000 files / about 200 MiB of random content (generated once per module, copied into the
source root for each combination) and is SIGKILLed at random moments, at least 50 times, then
restarted and told to migrate again until a migrate answers. The kill delays are random and
adapt to the progress seen on disk so that the kills spread over the whole run: the start (the
manifest), the copies, the renames and journal records, the deletions of a move, the folders
and the final switch. Then: no file lost, none corrupt (SHA-256 of every file equals the
original's), no duplicates (no `(from …)` copies, no staging leftovers, nothing extra), a move
leaves nothing in the source, and the choice switched exactly once (checked after every
restart: once storageType is the target it stays so).

Full scale for all four combinations (2,000 files, 200 MiB each); WB_KILL_FILES / WB_KILL_MIB
scale it down, WB_KILL_SEED changes the random kill moments.
"""
from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from bridge import dumps, ndjson_frame, request
from storage_helpers import STAGING, Roots, choose, copy_tree, info, listed, make_tree, start, user_files

FILES = int(os.environ.get("WB_KILL_FILES", "2000"))
MIB = int(os.environ.get("WB_KILL_MIB", "200"))
MIN_KILLS = 50
FINISH_KILLS = 6       # extra kills aimed at the end of the run (after MIN_KILLS spread over it)
MAX_CYCLES = 400
SEED = int(os.environ.get("WB_KILL_SEED", "20251122"))


@pytest.fixture(scope="module")
def master(tmp_path_factory):
    """FILES files of random content, MIB MiB in all, under data/ (generated once)."""
    root = tmp_path_factory.mktemp("kill-master")
    size = MIB * (1 << 20) // FILES
    hashes = make_tree(root, FILES, size, seed=SEED, folder="data", per_folder=50)
    (root / "data" / "empty-folder" / "inner").mkdir(parents=True)
    yield root, hashes
    shutil.rmtree(root, ignore_errors=True)


def _data_files_on(root: Path) -> int:
    n = 0
    for _, _, files in os.walk(root / "data"):
        n += len(files)
    return n


def _answer_within(b, seconds: float):
    """The migrate answer if it arrives within `seconds`, else None."""
    try:
        return b.response("m", timeout=seconds)
    except AssertionError:
        if b.violation is not None:
            raise b.violation
        if b.proc.poll() is not None:
            raise
        return None


def _answer_when(b, condition, timeout: float):
    """Pump until the migrate answer arrives (returned) or `condition()` holds (None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = _answer_within(b, 0.01)
        if r is not None:
            return r
        if condition():
            return None
    raise AssertionError(f"neither an answer nor the condition within {timeout}s")


def _progress_done(b) -> int:
    """Files done according to the last $/progress report received (-1: none yet)."""
    done = -1
    for e in b.log:
        m = e.msg
        if isinstance(m, dict) and m.get("method") == "$/progress":
            msg = m["params"]["value"].get("message") or ""
            hit = re.match(r"(\d+)/(\d+)", msg)
            if hit:
                done = int(hit.group(1))
    return done


@pytest.mark.parametrize("mode", ["copy", "move"])
@pytest.mark.parametrize("source, target", [("local", "cloud"), ("cloud", "local")],
                         ids=["local-to-cloud", "cloud-to-local"])
def test_migration_killed_at_random_moments_loses_nothing_and_switches_once(spawn, tmp_path, master, source,
                                                                            target, mode):
    master_root, master_hashes = master
    roots = Roots.under(tmp_path, marker=".stfolder")
    first = start(spawn, roots)
    if source == "cloud":
        choose(first, "cloud")
    first.kill()
    src, dst = roots.root(source), roots.root(target)
    copy_tree(master_root, src)
    originals = {p: sha for p, (_, sha) in user_files(src).items()}
    assert len([p for p in originals if p.startswith("data/")]) == FILES
    target_before = {p: sha for p, (_, sha) in user_files(dst).items()}

    rng = random.Random(f"{SEED}-{source}-{mode}")
    window = 0.12                      # the kill delay is uniform in [0, window]; adapted below
    kills, cycles, answer, switched_seen = 0, 0, None, False
    finish_window, finish_kills = 0.08, 0
    phases: dict[str, int] = {}
    storage_types = []
    started = time.monotonic()
    try:
        while answer is None:
            cycles += 1
            assert cycles <= MAX_CYCLES, f"no migrate answered after {MAX_CYCLES} restarts ({kills} kills)"
            b = start(spawn, roots)
            i = info(b, timeout=30)
            storage_types.append(i["storageType"])
            if switched_seen:
                assert i["storageType"] == target, f"the choice switched back after restart {cycles}: {storage_types}"
            switched_seen = switched_seen or i["storageType"] == target
            if i["pendingMigration"] is not None:
                assert i["pendingMigration"]["to"] == target and i["pendingMigration"]["mode"] == mode, i
                assert 0 <= i["pendingMigration"]["filesDone"] <= i["pendingMigration"]["filesTotal"], i
            elif switched_seen:
                answer = {"switched": True, "lostToKill": True}   # it finished just before a kill
                b.kill()
                break
            before = _data_files_on(dst)
            b.write(ndjson_frame(dumps(request("migrate", {"to": target, "mode": mode, "workDoneToken": "k"}, id="m"))))
            b.track("m", "migrate")
            if kills < MIN_KILLS:
                # A random moment in the window, but never later than a share of the files left
                # landing on the target, so a fast stretch of copying cannot finish the run
                # before MIN_KILLS kills have landed (the window adapts only after each kill).
                quota = max(1, (FILES - before) // (MIN_KILLS - kills + 3))
                kill_at = time.monotonic() + rng.uniform(0.0, window)
                r = _answer_when(b, lambda: time.monotonic() >= kill_at or _data_files_on(dst) >= before + quota, window + 120.0)
            elif finish_kills < FINISH_KILLS:
                # Aim at the end: once every file is across (journal replay, the deletions of a
                # move, folders, staging removal, the switch), a little later each time.
                r = _answer_when(b, lambda: _data_files_on(dst) >= FILES, 120.0)
                if r is None:
                    r = _answer_within(b, rng.uniform(0.0, finish_window))
                    finish_window *= 1.5
                    finish_kills += 1
            else:
                r = _answer_within(b, 300.0)
            if r is not None:
                assert "result" in r, f"migrate failed after {kills} kills: {r}"
                answer = r["result"]
                b.kill()
                break
            os.kill(b.proc.pid, signal.SIGKILL)
            b.proc.wait(10)
            kills += 1
            done = _progress_done(b)
            after = _data_files_on(dst)
            phase = "finish" if after >= FILES else "start" if done < 0 else "copy"
            phases[phase] = phases.get(phase, 0) + 1
            b.kill()
            # Adapt: spread at least MIN_KILLS kills over the run, then let it finish.
            remaining = FILES - after
            gained = after - before
            needed = MIN_KILLS - kills
            if needed > 0:
                per_kill = max(gained, 1)
                projected = remaining / per_kill
                if projected > 3 * needed + 30:
                    window = min(window * 1.25, 2.0)
                elif projected < needed + 5:
                    window = max(window * 0.7, 0.01)
    finally:
        elapsed = time.monotonic() - started
        print(f"{source}->{target} {mode}: {kills} kills in {cycles} starts, {elapsed:.1f}s, phases {phases}, "
              f"final window {window:.3f}s, storage types seen {''.join(t[0] for t in storage_types)}")

    assert kills >= MIN_KILLS, f"only {kills} kills landed before the migration finished"
    assert answer.get("switched") is True, answer

    final = start(spawn, roots)
    i = info(final, timeout=30)
    assert i["storageType"] == target and i["pendingMigration"] is None, i
    on_target = {p: sha for p, (_, sha) in user_files(dst).items()}
    lost = sorted(set(originals) - set(on_target))
    corrupt = sorted(p for p in originals if p in on_target and on_target[p] != originals[p])
    extra = sorted(set(on_target) - set(originals) - set(target_before))
    assert not lost, f"{len(lost)} files lost, e.g. {lost[:5]}"
    assert not corrupt, f"{len(corrupt)} files corrupt, e.g. {corrupt[:5]}"
    assert not extra, f"{len(extra)} unexpected files in the target (duplicates?), e.g. {extra[:5]}"
    assert not [p for p in on_target if "(from " in p]
    staged = [str(p) for p in (dst / STAGING).rglob("*") if p.is_file()] if (dst / STAGING).exists() else []
    assert not staged, f"{len(staged)} staging files left in the target, e.g. {staged[:3]}"
    seen = listed(final, timeout=60)
    assert {p for p, e in seen.items() if e["type"] == "file"} == set(on_target)
    assert "data/empty-folder/inner" in seen
    if mode == "move":
        left = user_files(src)
        assert not left, f"a move left {len(left)} files in the source, e.g. {sorted(left)[:5]}"
    else:
        assert {p: sha for p, (_, sha) in user_files(src).items()} == originals, "copy changed the source"
    for rel in rng.sample(sorted(master_hashes), 20):
        assert hashlib.sha256((dst / rel).read_bytes()).hexdigest() == master_hashes[rel]
    final.kill()
    shutil.rmtree(roots.local, ignore_errors=True)
    shutil.rmtree(roots.cloud, ignore_errors=True)


def test_pending_migration_counts_the_files_already_done(spawn, tmp_path):
    """After a kill mid-migration, pendingMigration.filesDone counts the verified files."""
    roots = Roots.under(tmp_path)
    b = start(spawn, roots)
    make_tree(roots.local, 400, 256 * 1024, seed=3, jitter=False)
    b.write(ndjson_frame(dumps(request("migrate", {"to": "cloud", "workDoneToken": "p"}, id="m"))))
    b.track("m", "migrate")
    b.pump_until(lambda: _progress_done(b) >= 100, 30, "progress past 100 files")
    os.kill(b.proc.pid, signal.SIGKILL)
    b.proc.wait(10)
    b.kill()
    whole = sum(1 for p, (size, _) in user_files(roots.cloud).items() if p.startswith("data/") and size == 256 * 1024)

    pending = info(start(spawn, roots))["pendingMigration"]

    assert pending is not None and pending["to"] == "cloud" and pending["mode"] == "copy"
    assert pending["filesTotal"] == 402
    assert whole - 1 <= pending["filesDone"] <= pending["filesTotal"], \
        f"{whole} files are whole in the target, pendingMigration says {pending}"
