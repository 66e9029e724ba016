"""`workspace-bridge --version` and `workspace-bridge doctor` (issue 26).

doctor checks the setup serve would run with (same options) and says, for each problem, how to
fix it; exit status 1 when a problem was found. Each broken setup here is also shown to be
real (the server fails on it), and following the printed fix makes doctor pass again.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path


from bridge import server_binary


def doctor(*args: str, env: dict | None = None) -> tuple[int, list[str]]:
    p = subprocess.run([str(server_binary()), "doctor", *args], stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=20, env=env if env is not None else os.environ)
    assert p.stderr == "", p.stderr
    return p.returncode, p.stdout.splitlines()


def finding(lines: list[str], subject: str) -> tuple[str, str, str | None]:
    """(severity, what was found, fix or None) of the line about `subject`."""
    for i, line in enumerate(lines):
        m = re.match(r"^(ok|WARNING|PROBLEM) +([a-z ]+): (.*)$", line)
        if m and m.group(2) == subject:
            fix = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith("         fix: ") else None
            return m.group(1), m.group(3), fix and fix.removeprefix("fix: ")
    raise AssertionError(f"no finding about {subject!r} in:\n" + "\n".join(lines))


def roots(tmp_path: Path, marker: str | None = ".stfolder") -> tuple[Path, Path, Path]:
    local, cloud, cfg = tmp_path / "local", tmp_path / "cloud", tmp_path / "cfg"
    local.mkdir(mode=0o700)
    cloud.mkdir(mode=0o700)
    if marker:
        (cloud / marker).mkdir()
    return local, cloud, cfg


def args(local: Path, cloud: Path | None, cfg: Path) -> list[str]:
    return ["--local-root", str(local), *(["--cloud-root", str(cloud)] if cloud else []), "--config-dir", str(cfg)]


def test_version_prints_the_release_that_initialize_reports(spawn):
    p = subprocess.run([str(server_binary()), "--version"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 0 and p.stderr == ""
    server_info = spawn(init=False).initialize()["serverInfo"]
    assert p.stdout == server_info["version"] + "\n"


def test_a_healthy_setup_passes_and_doctor_writes_nothing(tmp_path):
    local, cloud, cfg = roots(tmp_path)
    rc, lines = doctor(*args(local, cloud, cfg))
    assert rc == 0, "\n".join(lines)
    assert lines[0].startswith("workspace-bridge ") and lines[-1] == "No problem found."
    sev, found, _ = finding(lines, "jansson")
    assert sev == "ok" and re.match(r"libjansson \d+\.\d+(\.\d+)? \(built against \d+\.\d+", found)
    assert finding(lines, "config folder")[:2] == ("ok", f"{cfg} (missing: created at the first start)")
    assert finding(lines, "local root")[:2] == ("ok", f"{local} (writable, mode 0700)")
    assert finding(lines, "cloud root")[:2] == ("ok", f"{cloud} (writable, mode 0700)")
    assert finding(lines, "sync engine")[:2] == ("ok", f"syncthing keeps {cloud}")
    assert finding(lines, "storage choice")[0] == "ok"
    assert not cfg.exists() and list(local.iterdir()) == [], "doctor must not create or lay out anything"


def test_doctor_reads_the_choice_a_server_saved(spawn, tmp_path):
    local, cloud, cfg = roots(tmp_path)
    b = spawn(*args(local, cloud, cfg), init=True)
    assert b.result("chooseStorage", {"location": "cloud"})["storageType"] == "cloud"
    b.kill()
    rc, lines = doctor(*args(local, cloud, cfg))
    assert rc == 0, "\n".join(lines)
    sev, found, _ = finding(lines, "storage choice")
    assert sev == "ok" and found.startswith("cloud (saved in " + str(cfg) + "/storage-")


def test_a_vanished_cloud_root_that_is_the_choice_is_two_problems_each_with_its_fix(spawn, tmp_path):
    local, cloud, cfg = roots(tmp_path)
    b = spawn(*args(local, cloud, cfg), init=True)
    b.result("chooseStorage", {"location": "cloud"})
    b.kill()
    away = tmp_path / "unmounted"
    cloud.rename(away)

    rc, lines = doctor(*args(local, cloud, cfg))
    assert rc == 1 and lines[-1] == "2 problem(s) found."
    sev, found, fix = finding(lines, "cloud root")
    assert sev == "PROBLEM" and found == f"{cloud} is missing, not mounted or not a folder"
    assert fix.startswith("mount it or start the sync engine")
    sev, found, fix = finding(lines, "storage choice")
    assert sev == "PROBLEM" and "CloudUnavailable" in found and "chooseStorage" in fix

    # The fix works: the folder back (mounted again), doctor passes.
    away.rename(cloud)
    assert doctor(*args(local, cloud, cfg))[0] == 0


def test_a_corrupt_settings_file_is_ignored_by_the_server_and_doctor_names_the_file_to_remove(spawn, tmp_path):
    local, _, cfg = roots(tmp_path)
    b = spawn(*args(local, None, cfg), init=True)
    b.result("chooseStorage", {"location": "local"})
    b.kill()
    [settings] = cfg.glob("storage-*.json")
    settings.write_text("{not json")
    ignored = spawn(*args(local, None, cfg), init=True)   # the server ignores it, with a warning (issue 22)
    assert ignored.result("getStorageInfo", {})["needsChoice"] is True
    assert "not valid JSON" in ignored.stderr_text()
    ignored.kill()

    rc, lines = doctor(*args(local, None, cfg))
    assert rc == 1
    sev, found, fix = finding(lines, "storage choice")
    assert sev == "PROBLEM" and "not valid JSON" in found and fix.startswith(f"remove {settings} ")
    settings.unlink()
    assert doctor(*args(local, None, cfg))[0] == 0


def test_a_config_folder_that_is_a_file_and_a_world_writable_root_are_problems(tmp_path):
    local, _, cfg = roots(tmp_path)
    cfg.write_text("oops")
    local.chmod(0o777)
    rc, lines = doctor(*args(local, None, cfg))
    assert rc == 1 and lines[-1] == "2 problem(s) found."
    assert finding(lines, "config folder") == ("PROBLEM", f"{cfg} exists but is not a folder",
                                               f"move it away (mv {cfg} {cfg}.old), or pass --config-dir with another folder")
    assert finding(lines, "local root") == ("PROBLEM", f"{local} is writable by every user of this machine (mode 0777)",
                                            f"chmod go-w {local}")
    cfg.rename(f"{cfg}.old")
    local.chmod(0o755)
    assert doctor(*args(local, None, cfg))[0] == 0


def test_a_cloud_root_no_sync_engine_keeps_is_a_warning_not_a_failure(tmp_path):
    local, cloud, cfg = roots(tmp_path, marker=None)
    rc, lines = doctor(*args(local, cloud, cfg))
    assert rc == 0 and lines[-1] == "No problem found; 1 warning(s)."
    sev, _, fix = finding(lines, "sync engine")
    assert sev == "WARNING" and "Syncthing adds .stfolder" in fix


def test_no_home_and_no_options_says_which_variable_to_set(tmp_path):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    rc, lines = doctor(env=env)
    assert rc == 1
    for subject in ("config folder", "local root"):
        sev, _, fix = finding(lines, subject)
        assert sev == "PROBLEM" and fix.startswith("set HOME, or pass --")


def test_a_root_this_user_cannot_write_is_a_problem():
    """As an unprivileged user (root may write any folder): nobody, through setpriv, when run as root."""
    as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    with tempfile.TemporaryDirectory() as d:
        top = Path(d)
        local = top / "local"
        local.mkdir(mode=0o555)
        cfg = top / "cfg"
        top.chmod(0o555)  # searchable, not writable: cfg cannot be created there
        try:
            p = subprocess.run([*as_user, str(server_binary()), "doctor", "--local-root", str(local), "--config-dir", str(cfg)],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=20)
        finally:
            top.chmod(0o755)
        lines = p.stdout.splitlines()
        assert p.returncode == 1, p.stdout + p.stderr
        assert finding(lines, "local root") == ("PROBLEM", f"{local} is not writable by this user (mode 0555)",
                                                f"chmod u+rwx {local} as its owner, or pass --local-root with a folder of yours")
        sev, found, fix = finding(lines, "config folder")
        assert sev == "PROBLEM" and found == f"{cfg} is missing and cannot be created ({top} is not a writable folder)"
