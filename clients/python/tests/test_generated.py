"""The typed layer generated from schema/openrpc.json: current, deterministic, complete."""
from __future__ import annotations

import copy
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import typing

from pathlib import Path

import pytest

import workspace_bridge
from workspace_bridge import types as wb_types
from workspace_bridge.methods import Methods

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
REPO = PACKAGE_ROOT.parents[1]
GENERATOR = PACKAGE_ROOT / "scripts" / "generate_types.py"
SCHEMA = json.loads((REPO / "schema" / "openrpc.json").read_text(encoding="utf-8"))


def load_generator():
    spec = importlib.util.spec_from_file_location("generate_types", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = load_generator()


def test_committed_modules_are_what_the_generator_writes_from_the_current_schema():
    rendered = gen.render(SCHEMA)

    for name, text in rendered.items():
        committed = (PACKAGE_ROOT / "workspace_bridge" / name).read_text(encoding="utf-8")
        assert committed == text, f"workspace_bridge/{name} is stale: run python3 {GENERATOR.relative_to(REPO)}"


def test_check_mode_exits_zero_when_current_and_one_when_stale(tmp_path):
    current = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True)
    assert current.returncode == 0, current.stderr

    (tmp_path / "types.py").write_text("# old\n")
    stale = subprocess.run([sys.executable, str(GENERATOR), "--check", "--out", str(tmp_path)],
                           capture_output=True, text=True)
    assert stale.returncode == 1 and "types.py is stale" in stale.stderr


def test_generation_is_deterministic_across_runs_and_processes():
    first = gen.render(copy.deepcopy(SCHEMA))
    again = load_generator().render(copy.deepcopy(SCHEMA))

    assert first == again


def test_every_request_method_of_the_schema_has_a_typed_method():
    requests = [m["name"] for m in SCHEMA["methods"]
                if "x-notification" not in m and m["name"] not in ("initialize", "shutdown")]

    missing = [name for name in requests if not callable(getattr(Methods, gen.py_name(name), None))]

    assert requests and not missing
    hints = typing.get_type_hints(Methods.save_file, vars(wb_types) | vars(sys.modules["workspace_bridge.methods"]))
    assert hints["return"].__args__ == (wb_types.WriteResult,)
    parameters = inspect.signature(Methods.move_file).parameters
    assert {"from_", "to", "overwrite"} <= set(parameters), "wire names become snake_case, keywords get _"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for n, p in parameters.items() if n != "self")


def test_a_method_added_to_the_schema_gets_a_typed_method_and_its_types():
    schema = copy.deepcopy(SCHEMA)
    schema["methods"].append({
        "name": "settings/get", "summary": "Reads one setting.", "paramStructure": "by-name",
        "params": [{"name": "key", "required": True, "schema": {"type": "string"}},
                   {"name": "defaultValue", "required": False, "schema": {}}],
        "result": {"name": "SettingValue", "schema": {
            "type": "object", "properties": {"key": {"type": "string"}, "value": {}},
            "required": ["key", "value"], "additionalProperties": False}},
    })

    rendered = gen.render(schema)

    assert "class SettingValue(TypedDict):" in rendered["types.py"]
    assert "def settings_get(self, *, key: str, default_value: Optional[Any] = None) -> Call[SettingValue]:" \
        in rendered["methods.py"]
    assert "build_params({'key': key}, {'defaultValue': default_value})" in rendered["methods.py"]
    namespace: dict = {}
    exec(compile(rendered["types.py"], "types.py", "exec"), namespace)
    assert namespace["SettingValue"].__required_keys__ == frozenset({"key", "value"})


def test_a_method_name_that_would_shadow_the_client_is_refused():
    schema = copy.deepcopy(SCHEMA)
    schema["methods"].append({"name": "close", "paramStructure": "by-name", "params": [],
                              "result": {"name": "x", "schema": {"type": "null"}}})

    with pytest.raises(gen.GenerationError, match="shadow"):
        gen.render(schema)


def test_error_codes_and_optional_keys_follow_the_schema():
    enum = SCHEMA["components"]["schemas"]["ErrorData"]["properties"]["code"]["enum"]

    assert typing.get_args(wb_types.ErrorCode) == tuple(enum)
    assert wb_types.WorkDoneProgressBegin.__required_keys__ == frozenset({"kind", "title", "cancellable"})
    assert wb_types.WorkDoneProgressBegin.__optional_keys__ == frozenset({"message", "percentage"})
    assert "from" in wb_types.TransferResult.__required_keys__


def test_the_package_is_typed():
    assert (PACKAGE_ROOT / "workspace_bridge" / "py.typed").is_file()
    assert workspace_bridge.__version__


USAGE = '''
import asyncio
from workspace_bridge import BridgeError, spawn
from workspace_bridge.types import ErrorCode

async def main() -> None:
    async with spawn(local_root="/tmp/x") as client:
        loaded = await client.load_file(path="a.md")
        text: str = loaded["data"]
        changes = client.notifications("workspace/didChangeFiles")
        kind: str = (await changes.next())["changes"][0]["type"]
        moved = await client.move_file(from_="a", to="b")
        origin: str = moved["from"]
        try:
            await client.ping()
        except BridgeError as e:
            code: ErrorCode | None = e.data_code
'''


def test_the_package_and_a_typical_use_type_check_strictly_and_misuse_does_not(tmp_path):
    pytest.importorskip("mypy", reason="pip install mypy to type-check the client")
    (tmp_path / "good.py").write_text(USAGE)
    (tmp_path / "bad.py").write_text(USAGE.replace('path="a.md"', "path=1").replace('["data"]', '["dta"]'))

    def mypy(*targets: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10",
                               "--cache-dir", str(tmp_path / "cache"), *targets],
                              cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, "MYPYPATH": str(PACKAGE_ROOT)})

    package = mypy(str(PACKAGE_ROOT / "workspace_bridge"), str(GENERATOR), str(tmp_path / "good.py"))
    misuse = mypy(str(tmp_path / "bad.py"))

    assert package.returncode == 0, package.stdout
    assert misuse.returncode == 1
    assert 'Argument "path" to "load_file"' in misuse.stdout and '"dta"' in misuse.stdout
