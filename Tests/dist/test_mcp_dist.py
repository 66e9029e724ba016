"""The MCP distribution `make dist` wrote (scripts/mcp-dist.mjs): server.json against the MCP
registry's published schema (2025-12-11), the .mcpb's manifest against the published MCPB 0.3
schema (both vendored in schema/vendor/ with their licences), and the bundle run as an MCP host
runs it: unpacked, its variables substituted, started by the official `mcp` SDK (issue 26)."""
from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest
from jsonschema import Draft7Validator, FormatChecker
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import REPO, artefact

VENDOR = REPO / "schema" / "vendor"
REGISTRY_SCHEMA = json.loads((VENDOR / "mcp-registry" / "server.schema.2025-12-11.json").read_text())
MCPB_SCHEMA = json.loads((VENDOR / "mcpb" / "mcpb-manifest-v0.3.schema.json").read_text())


def validator(schema: dict) -> Draft7Validator:
    Draft7Validator.check_schema(schema)
    return Draft7Validator(schema, format_checker=FormatChecker())


@pytest.fixture(scope="module")
def bundle() -> Path:
    return artefact("workspace-bridge-*.mcpb")


@pytest.fixture(scope="module")
def server_json() -> dict:
    return json.loads(artefact("server.json").read_text())


@pytest.fixture(scope="module")
def manifest(bundle) -> dict:
    with zipfile.ZipFile(bundle) as z:
        return json.loads(z.read("manifest.json"))


def test_server_json_is_valid_against_the_registry_schema_and_names_the_bundle(server_json, bundle):
    validator(REGISTRY_SCHEMA).validate(server_json)
    assert server_json["$schema"] == REGISTRY_SCHEMA["$id"]
    [package] = server_json["packages"]
    assert package["registryType"] == "mcpb" and package["transport"] == {"type": "stdio"}
    assert package["identifier"].endswith(f"/releases/download/v{server_json['version']}/{bundle.name}")
    assert package["fileSha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()
    assert f"{package['fileSha256']}  {bundle.name}" in (bundle.parent / "SHA256SUMS").read_text().splitlines()


def test_the_registry_schema_refuses_what_the_registry_refuses(server_json):
    v = validator(REGISTRY_SCHEMA)
    for change in (lambda d: d.update(description="x" * 101), lambda d: d.update(name="no-slash"),
                   lambda d: d["packages"][0].update(fileSha256="ABC"), lambda d: d["packages"][0].update(version="latest")):
        broken = copy.deepcopy(server_json)
        change(broken)
        assert not v.is_valid(broken), broken


def test_the_manifest_is_valid_mcpb_0_3_with_a_binary_server_and_a_directory_picker(manifest, bundle, server_json):
    validator(MCPB_SCHEMA).validate(manifest)
    assert manifest["manifest_version"] == "0.3" and manifest["version"] == server_json["version"]
    server = manifest["server"]
    assert server["type"] == "binary" and server["mcp_config"]["command"] == "${__dirname}/" + server["entry_point"]
    [(key, picker)] = manifest["user_config"].items()
    assert picker["type"] == "directory" and picker["required"] is True
    assert f"${{user_config.{key}}}" in server["mcp_config"]["args"]
    with zipfile.ZipFile(bundle) as z:
        info = z.getinfo(server["entry_point"])
        assert stat.S_IMODE(info.external_attr >> 16) == 0o755 and info.create_system == 3
        assert z.testzip() is None


def substitute(value: str, variables: dict) -> str:
    for name, replacement in variables.items():
        value = value.replace("${" + name + "}", replacement)
    return value


def test_the_bundle_runs_as_a_host_runs_it(bundle, manifest, tmp_path):
    unpacked = tmp_path / "bundle"
    with zipfile.ZipFile(bundle) as z:
        for info in z.infolist():
            target = unpacked / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(info))
            target.chmod(stat.S_IMODE(info.external_attr >> 16))
    picked = tmp_path / "picked folder"  # the folder the user picks (a space, as folders have)
    picked.mkdir()
    (picked / "note.md").write_text("# from the bundle test")
    [key] = manifest["user_config"]
    variables = {"__dirname": str(unpacked), f"user_config.{key}": str(picked), "HOME": str(tmp_path / "home")}
    config = manifest["server"]["mcp_config"]
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           **{k: substitute(v, variables) for k, v in config["env"].items()}}
    params = StdioServerParameters(command=substitute(config["command"], variables),
                                   args=[substitute(a, variables) for a in config["args"]], env=env)

    async def session() -> tuple[list[str], dict]:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    init = await s.initialize()
                    assert init.server_info.name == "workspace-bridge"
                    tools = [t.name for t in (await s.list_tools()).tools]
                    listed = await s.call_tool("list_files", {})
                    assert not listed.is_error, listed.content
                    return tools, listed.structured_content

    tools, listed = asyncio.run(asyncio.wait_for(session(), 60))
    assert {"read_file", "write_file", "list_files"} <= set(tools)
    assert "note.md" in {e["name"] for e in listed["entries"]}
