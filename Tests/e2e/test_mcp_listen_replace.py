"""A file replaced by rename (an atomic save: another bridge process's saveFile or write_file,
most editors) is an update of that file, not a change of the resource list.

Found while testing the Syncthing faces (test_mcp_syncthing.py): Syncthing itself removes the
old file before renaming its temp file into place, which the watcher folds into one change, but
a rename over an existing file reached `subscriptions/listen` as a list change, because the
inotify backend reported every IN_MOVED_TO as `created`. The watcher now knows the names of each
watched folder's files and reports a rename over one of them as `changed`.
"""
from __future__ import annotations

import os

import pytest

pytest.importorskip("mcp")

from mcp_helpers import file_uri, place  # noqa: E402,F401
from mcp_modern import SUB, rawm  # noqa: E402,F401

UPDATED = "notifications/resources/updated"
LIST_CHANGED = "notifications/resources/list_changed"


@pytest.mark.parametrize("how", ["rename-over", "another-process-write_file"])
def test_an_atomic_save_of_an_existing_file_is_an_update_not_a_list_change(rawm, place, how):
    r = rawm()
    r.tool("write_file", {"path": "x.md", "content": "1"})
    uri = file_uri(place.root, "x.md")
    r.mreq("subscriptions/listen", {"notifications": {"resourceSubscriptions": [uri], "resourcesListChanged": True}},
           id="L")
    r.wait_for(lambda m: m.get("method") == "notifications/subscriptions/acknowledged", timeout=5)
    r.drain(0.3)
    mark = len(r.log)
    if how == "rename-over":
        tmp = place.root / ".x.md.tmp-editor"
        tmp.write_text("2")
        os.replace(tmp, place.root / "x.md")
    else:
        other = rawm()
        assert other.tool("write_file", {"path": "x.md", "content": "2"})["isError"] is False
    r.wait_for(lambda m: m.get("method") == UPDATED and m["params"]["uri"] == uri, timeout=5)
    r.drain(1.0)
    changes = [m for _, m in r.log[mark:] if m.get("method") == LIST_CHANGED]
    assert not changes, f"a list change, though no file appeared or went: {changes}"
    assert all(m["params"]["_meta"][SUB] == "L" for _, m in r.log[mark:] if m.get("method") == UPDATED)
