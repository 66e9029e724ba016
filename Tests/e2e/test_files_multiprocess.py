"""Two server processes on one workspace: appends never lose or interleave lines, and ifMatch
sees writes made by the other process."""
from __future__ import annotations

import threading

from bridge import dumps, ndjson_frame, request
from wsfiles import domain_error, save

APPENDS = 2000
CHUNK = 200
PATH = "shared/log/appends.txt"


def _lines(name: str) -> list[str]:
    return [f"{name}-{i:05d}-" + "0123456789abcdef" * 4 + f"-{name}\n" for i in range(APPENDS)]


def _append_all(b, name: str, lines: list[str], errors: list) -> None:
    try:
        for start in range(0, len(lines), CHUNK):
            msgs = [request("appendFile", {"path": PATH, "data": line}, id=f"{name}-{start + j}")
                    for j, line in enumerate(lines[start:start + CHUNK])]
            for m in msgs:
                b.track(m["id"], "appendFile")
            b.write(b"".join(ndjson_frame(dumps(m)) for m in msgs))
            for m in msgs:
                r = b.response(m["id"], timeout=60)
                assert "result" in r, f"{m['id']}: {r}"
    except BaseException as exc:  # noqa: BLE001 -- reported by the main thread
        errors.append(exc)


def test_two_servers_appending_to_one_file_lose_and_interleave_nothing(spawn, ws_root):
    servers = {name: spawn("--local-root", str(ws_root), framing="ndjson", debug=False, init=True) for name in "PQ"}
    lines = {name: _lines(name) for name in servers}
    errors: list = []

    threads = [threading.Thread(target=_append_all, args=(b, name, lines[name], errors)) for name, b in servers.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    assert not errors, errors[0]

    content = (ws_root / PATH).read_text()
    got = content.split("\n")
    assert got[-1] == "", "the file must end with a whole line"
    got = [line + "\n" for line in got[:-1]]
    assert len(got) == 2 * APPENDS, f"{len(got)} lines, expected {2 * APPENDS}"
    expected = set(lines["P"]) | set(lines["Q"])
    broken = [line for line in got if line not in expected]
    assert not broken, f"{len(broken)} lines are not intact, e.g. {broken[:3]}"
    assert len(set(got)) == len(got), "a line was written twice"
    for name in "PQ":
        mine = [line for line in got if line.startswith(name + "-")]
        assert mine == lines[name], f"the lines of {name} are out of order"
    assert len(content.encode()) == sum(len(x.encode()) for x in got)


def test_if_match_catches_a_write_made_by_the_other_server(spawn, ws_root):
    a = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    first = save(a, "doc.md", "v1 from a")
    seen_by_b = b.result("loadFile", {"path": "doc.md"})
    assert seen_by_b["etag"] == first["etag"]

    second = save(a, "doc.md", "v2 from a")
    err = domain_error(b, "saveFile", {"path": "doc.md", "data": "from b", "ifMatch": seen_by_b["etag"]},
                       "PreconditionFailed")

    assert err["data"]["currentEtag"] == second["etag"]
    assert (ws_root / "doc.md").read_text() == "v2 from a"
    assert b.result("getFileInfo", {"path": "doc.md"})["etag"] == second["etag"]


def test_if_match_with_the_etag_seen_from_the_other_server_writes(spawn, ws_root):
    a = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    b = spawn("--local-root", str(ws_root), framing="ndjson", init=True)
    first = save(a, "doc.md", "v1")

    save(b, "doc.md", "v2 from b", ifMatch=first["etag"])

    assert (ws_root / "doc.md").read_text() == "v2 from b"
    domain_error(a, "saveFile", {"path": "doc.md", "data": "late", "ifMatch": first["etag"]}, "PreconditionFailed")
