"""The agent tools' schemas have one source: schema/openrpc.json. scripts/gen_tool_schemas.py turns
it into Sources/BridgeServer/Tools/ToolSchemas.swift (committed, checked current here), and the
patch scripts that write the tool declarations into the schema have been applied. The served table
is compared with the generator's output in test_method_table.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from contract import REPO

sys.path.insert(0, str(REPO / "scripts"))
from gen_tool_schemas import OUTPUT, Generator, SchemaError  # noqa: E402

SCRIPT = REPO / "scripts" / "gen_tool_schemas.py"
SCHEMA = REPO / "schema" / "openrpc.json"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def doc() -> dict:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def test_the_committed_swift_file_is_what_the_generator_makes_of_the_schema():
    r = run("--check")

    assert r.returncode == 0, r.stderr


def test_check_mode_reports_a_stale_file_and_writing_makes_it_current(tmp_path):
    stale = tmp_path / "ToolSchemas.swift"
    stale.write_text(OUTPUT.read_text(encoding="utf-8").replace('"read_file"', '"read_a_file"'), encoding="utf-8")

    before = run("--check", "--output", str(stale))
    written = run("--output", str(stale))
    after = run("--check", "--output", str(stale))

    assert before.returncode == 1 and "not current" in before.stderr
    assert written.returncode == 0 and after.returncode == 0
    assert stale.read_text(encoding="utf-8") == OUTPUT.read_text(encoding="utf-8")


def test_generation_does_not_depend_on_hash_seeds(tmp_path):
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"seed{seed}.swift"
        r = subprocess.run([sys.executable, str(SCRIPT), "--output", str(out)], capture_output=True, text=True,
                           timeout=60, env={**os.environ, "PYTHONHASHSEED": seed})
        assert r.returncode == 0, r.stderr
        outputs.append(out.read_bytes())

    assert outputs[0] == outputs[1]


def test_every_reference_is_inlined(doc):
    def refs(value) -> int:
        if isinstance(value, dict):
            return ("$ref" in value) + sum(refs(v) for v in value.values())
        if isinstance(value, list):
            return sum(refs(v) for v in value)
        return 0

    tools = Generator(doc).tools()

    assert refs(doc["components"]["schemas"]["WriteResult"]) > 0  # the source has references
    assert refs(tools) == 0
    assert tools["update_context"]["output"]["properties"]["etag"]["pattern"] == "^[0-9a-f]{16}$"


def test_path_arguments_are_exactly_the_workspace_path_params(doc):
    tools = Generator(doc).tools()

    paths = {name: t["pathArguments"] for name, t in tools.items()}

    assert paths == {
        "read_file": ["path"], "read_multiple_files": ["paths"], "write_file": ["path"], "append_file": ["path"], "list_files": ["path"],
        "delete_file": ["path"], "move_file": ["from", "to"], "copy_file": ["from", "to"],
        "create_folder": ["path"], "get_file_info": ["path"], "search_files": ["path"], "get_storage_info": [],
        "read_context": [], "update_context": [], "append_journal": [],
    }


def test_renamed_and_omitted_params_shape_the_tool_arguments(doc):
    tools = Generator(doc).tools()

    write = tools["write_file"]["input"]
    search = tools["search_files"]["input"]

    assert list(write["properties"]) == ["path", "content", "encoding", "createParents", "ifMatch", "exclusive"]
    assert write["required"] == ["path", "content"]
    assert write["properties"]["ifMatch"]["pattern"] == "^[0-9a-f]{16}$"
    assert "workDoneToken" not in search["properties"] and search["properties"]["query"]["minLength"] == 1
    assert search["properties"]["maxResults"]["maximum"] == 100000
    assert tools["list_files"]["input"]["properties"]["limit"]["maximum"] == 10000
    assert tools["get_file_info"]["input"]["properties"]["hash"] == {"type": "string", "enum": ["sha256"]}


def test_an_extra_argument_is_typed_by_its_declaration(doc):
    info = next(m for m in doc["methods"] if m["name"] == "getFileInfo")
    info["x-agent-tool"]["extra"] = {"quick": "boolean; skip the state lookup"}

    tool = Generator(doc).tools()["get_file_info"]["input"]

    assert tool["properties"]["quick"] == {"description": "skip the state lookup", "type": "boolean"}
    assert "quick" not in tool["required"]


@pytest.mark.parametrize("breakage, message", [
    (lambda d: d["components"]["schemas"].pop("ToolAppendJournalInput"), "ToolAppendJournalInput"),
    (lambda d: next(m for m in d["methods"] if m["name"] == "saveFile")["x-agent-tool"].update(rename={"content": "body"}),
     "'body'"),
    (lambda d: next(m for m in d["methods"] if m["name"] == "getFileInfo")["x-agent-tool"].update(extra={"x": "a flag"}),
     "'x'"),
    (lambda d: next(m for m in d["methods"] if m["name"] == "agent/listTools")["x-tool-table"].remove("write_file"),
     "write_file"),
], ids=["missing-component", "rename-of-unknown-param", "untyped-extra", "tool-missing-from-table"])
def test_the_generator_refuses_a_schema_it_cannot_follow(doc, breakage, message):
    breakage(doc)

    with pytest.raises(SchemaError) as e:
        Generator(doc).tools()

    assert message in str(e.value)
