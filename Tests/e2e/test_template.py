"""Workspace templates (docs/protocol.md, "Workspace files"): the layout a root gets the first
time it is used. `--template atome` (or `initializationOptions.template: "atome"`) lays out
seed 002's Atome folders (Projects/, Exports/, Recordings/, Templates/, README.txt) instead of
seed 000's agent layout; the cloud root gets it when the user chooses the cloud; a migration
replaces an untouched Atome README instead of keeping both; nothing existing is overwritten.
"""
from __future__ import annotations

from storage_helpers import Roots, choose, start, user_files, user_folders

ATOME_FOLDERS = {"Projects", "Exports", "Recordings", "Templates"}


def listed_names(b, path: str = "") -> set[str]:
    return {e["name"] for e in b.result("listFiles", {"path": path})["entries"]}


def test_template_atome_lays_out_seed_002s_folders_and_readme(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    b = start(spawn, roots, cloud=False, extra=("--template", "atome"))

    assert listed_names(b) == ATOME_FOLDERS | {"README.txt"}
    assert user_folders(roots.local) == ATOME_FOLDERS
    readme = b.result("loadFile", {"path": "README.txt"})["data"]
    assert readme.startswith("Welcome to Atome.")
    for line in ("Projects/     your projects (.atome files)", "Exports/      exported audio (.wav)",
                 "Recordings/   audio recordings", "Templates/    presets and templates"):
        assert line in readme
    assert (roots.local / ".workspace").is_dir()
    assert not (roots.local / "context.md").exists() and not (roots.local / "Journal").exists()


def test_the_default_template_is_unchanged_without_the_option(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    b = start(spawn, roots, cloud=False)
    assert listed_names(b) == {"Journal", "Research", "Chats", "context.md", "README.txt"}


def test_initialization_options_choose_the_template_when_the_command_line_does_not(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    b = start(spawn, roots, cloud=False, init={"initializationOptions": {"template": "atome"}})
    assert listed_names(b) == ATOME_FOLDERS | {"README.txt"}

    # The command line wins over the client's wish.
    other = Roots.under(tmp_path / "other", make_cloud=False)
    b2 = start(spawn, other, cloud=False, extra=("--template", "default"),
               init={"initializationOptions": {"template": "atome"}})
    assert "context.md" in listed_names(b2)


def test_an_unknown_template_is_invalid_params_and_creates_nothing(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    b = start(spawn, roots, cloud=False, init=False)
    err = b.error("initialize", {"initializationOptions": {"template": "garageband"}})
    assert err["code"] == -32602
    assert err["data"]["code"] == "InvalidParams"
    assert err["data"]["field"] == "initializationOptions.template"
    assert not roots.local.exists()
    # The connection keeps serving: a correct initialize now succeeds.
    b.initialize(initializationOptions={"template": "atome"})
    assert listed_names(b) == ATOME_FOLDERS | {"README.txt"}


def test_an_existing_root_keeps_its_files_and_gets_no_second_layout(spawn, tmp_path):
    roots = Roots.under(tmp_path, make_cloud=False)
    roots.local.mkdir()
    (roots.local / "README.txt").write_text("my own readme\n")
    b = start(spawn, roots, cloud=False, extra=("--template", "atome"))
    assert (roots.local / "README.txt").read_text() == "my own readme\n"
    assert (roots.local / "Projects").is_dir()
    b.kill()
    # A root already used (it has .workspace/) is never laid out again, whatever the template.
    (roots.local / "Exports").rmdir()
    b2 = start(spawn, roots, cloud=False, extra=("--template", "default"))
    assert listed_names(b2) == {"Projects", "Recordings", "Templates", "README.txt"}


def test_choosing_the_cloud_lays_out_the_atome_template_there(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    b = start(spawn, roots, extra=("--template", "atome"))
    assert not (roots.cloud / "Projects").exists()  # only when the user chooses it
    choose(b, "cloud")
    assert user_folders(roots.cloud) == ATOME_FOLDERS
    assert listed_names(b) == ATOME_FOLDERS | {"README.txt"}


def test_a_migration_replaces_an_untouched_atome_readme_instead_of_keeping_both(spawn, tmp_path):
    roots = Roots.under(tmp_path)
    # Another device chose the cloud first: the cloud root has the pristine Atome layout.
    other = start(spawn, Roots(tmp_path, tmp_path / "other-local", roots.cloud, tmp_path / "other-config"),
                  extra=("--template", "atome"))
    choose(other, "cloud")
    other.kill()
    # This device edited its README and saved a project, then moves to the cloud.
    b = start(spawn, roots, extra=("--template", "atome"))
    b.result("saveFile", {"path": "README.txt", "data": "my notes about this workspace\n"})
    b.result("saveFile", {"path": "Projects/song.atome", "data": '{"tempo":120}'})
    result = b.result("migrate", {"to": "cloud", "mode": "copy"}, timeout=30)
    assert result["conflicts"] == 0 and result["copied"] == 2
    files = user_files(roots.cloud)
    assert (roots.cloud / "README.txt").read_text() == "my notes about this workspace\n"
    assert (roots.cloud / "Projects" / "song.atome").read_text() == '{"tempo":120}'
    assert not any("from local" in p for p in files)
