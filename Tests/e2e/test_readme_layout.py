"""README.md's "Layout" table and Package.swift's layer comment say what the package is: every
target of Package.swift is named in each, with the dependencies it declares (the comment's
arrows), and every path they name exists. Grep-level, no build needed."""
from __future__ import annotations

import re

from readme_snippets import REPO, section

PACKAGE = (REPO / "Package.swift").read_text()
# Products of other packages a target may name (`.product(name: …)`).
PRODUCTS = {"Logging", "ArgumentParser"}


def calls(text: str, pattern: str) -> list[tuple[str, str]]:
    """(name, body) of each call `.name(…)` whose name matches `pattern`, parentheses balanced."""
    out = []
    for m in re.finditer(rf"\.({pattern})\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(1), text[m.end():i - 1]))
    return out


def targets() -> dict[str, dict]:
    """name → {kind, path, dependencies} for every target of Package.swift (the fuzz drivers,
    made in a map, once each under their folder)."""
    found = {}
    for kind, body in calls(PACKAGE, "target|executableTarget|testTarget|systemLibrary"):
        name = re.match(r"\s*name: \"?([\w-]+)", body).group(1)
        deps = re.search(r"dependencies: \[(.*?)\]", body, re.S)
        names = re.findall(r"\"([\w-]+)\"", re.sub(r", package: \"[\w-]+\"", "", deps.group(1))) if deps else []
        path = re.search(r"path: \"([^\"]+)\"", body)
        found[name] = {"kind": kind, "path": path.group(1) if path else None, "dependencies": set(names)}
    drivers = re.search(r"\] \+ \[(.*?)\]\.map \{ name in", PACKAGE, re.S)
    assert drivers and "name" in found, "the fuzz drivers' map is where Package.swift had it"
    template = found.pop("name")
    for name in re.findall(r"\"(\w+)\"", drivers.group(1)):
        found[name] = {**template, "path": template["path"].replace("\\(name)", name)}
    return found


def source_targets() -> dict[str, dict]:
    return {n: t for n, t in targets().items() if t["kind"] != "testTarget" and t["path"] is None}


def layout_rows() -> list[tuple[str, str]]:
    rows = []
    for line in section("Layout").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("path", "---"):
            rows.append((cells[0], cells[1]))
    return rows


def layer_comment() -> dict[str, set[str]]:
    """The comment's rows: target → the targets its arrow line names (parentheses are remarks)."""
    lines = [line[4:] for line in PACKAGE.splitlines() if line.startswith("///")]
    rows, current = {}, None
    for line in lines:
        row = re.match(r"^ {4}([\w-]+) {2,}\S", line)
        arrow = re.match(r"^ {6}→ (.*)$", line)
        if row:
            current = row.group(1)
            rows[current] = set()
        elif arrow and current:
            rows[current] = {d.strip() for d in re.sub(r"\([^)]*\)", "", arrow.group(1)).split(",")}
    return rows


def test_the_package_parses_as_expected():
    t = targets()
    assert {"workspace-bridge", "BridgeServer", "CJansson", "FuzzJSON", "JSONTests"} <= set(t)
    assert "SessionErrorData" in t["BridgeServer"]["dependencies"]


def test_the_layout_table_names_every_target():
    paths = [p for p, _ in layout_rows()]
    for name in source_targets():
        assert f"`Sources/{name}`" in paths, f"README Layout has no row for Sources/{name}"
    tests = [n for n, t in targets().items() if t["kind"] == "testTarget"]
    assert "`Tests/*Tests`" in paths and all(n.endswith("Tests") for n in tests)
    for name, t in targets().items():
        if t["path"]:
            assert any(t["path"].startswith(p.strip("`").rstrip("/") + "/") for p in paths if p.startswith("`Tests/")), \
                f"README Layout has no row for {name}'s folder {t['path']}"
    rows = {p.strip("`") for p in paths}
    named = {r.removeprefix("Sources/") for r in rows if r.startswith("Sources/")}
    assert named == set(source_targets()), f"rows for targets Package.swift does not have: {named - set(source_targets())}"


def test_every_path_the_layout_table_names_exists():
    missing = []
    for path_cell, what in layout_rows():
        for path in re.findall(r"`([^`]+)`", path_cell):
            if "*" in path:
                assert list(REPO.glob(path)), path
            elif not (REPO / path).exists():
                missing.append(path)
        base = path_cell.split("`")[1]
        if not base.startswith("Sources/") or not (REPO / base).is_dir():
            continue
        # A target's folder (`Tools/`) or file (`FileMethods.swift`) named in its description is in it
        # (other rows name artefacts, such as `server.json`, that are not files of the tree).
        for name in re.findall(r"`([\w+.-]+(?:/|\.swift|\.py|\.mjs|\.json))`", what):
            if not list((REPO / base).rglob(name.rstrip("/"))):
                missing.append(f"{base}/{name}")
    assert missing == [], f"README Layout names paths that do not exist: {missing}"


def test_the_layer_comment_names_every_target_with_its_dependencies():
    comment = layer_comment()
    declared = source_targets()
    assert set(comment) == set(declared), set(comment) ^ set(declared)
    for name, deps in comment.items():
        if name in ("CWorkspaceShims", "CJansson"):
            assert deps == set() or deps <= set(declared)
            continue
        assert deps == declared[name]["dependencies"], \
            f"Package.swift's comment gives {name} → {sorted(deps)}, its target declares {sorted(declared[name]['dependencies'])}"
    fuzz = re.search(r"^/// FuzzTargets \(Tests/Fuzz\) → (.*?);", PACKAGE, re.M)
    assert fuzz and {d.strip() for d in fuzz.group(1).split(",")} == targets()["FuzzTargets"]["dependencies"]
