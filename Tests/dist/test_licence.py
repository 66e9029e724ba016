"""The project's licence, Apache 2.0 (LICENSE), in every artefact `make dist` writes: the archive
(beside the third-party licences, and in the JS and Python clients' metadata it ships), the MCP
bundle (its manifest's `license` and the text). The .vsix is checked in vsix.test.mjs."""
from __future__ import annotations

import json
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, artefact

LICENSE = (REPO / "LICENSE").read_text()


@pytest.fixture(scope="module")
def unpacked(archive, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("licence")
    with tarfile.open(archive) as tar:
        tar.extractall(out, filter="data")
    (root,) = out.iterdir()
    return root


def test_the_licence_is_the_apache_2_0_text():
    assert LICENSE.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in LICENSE
    assert "END OF TERMS AND CONDITIONS" in LICENSE
    # The nine sections of the terms, in order.
    starts = [LICENSE.index(f"\n   {n}. ") for n in range(1, 10)]
    assert starts == sorted(starts)


def test_the_archive_carries_it_beside_the_third_party_licences(unpacked):
    licences = unpacked / "share/doc/workspace-bridge/licenses"
    assert (licences / "workspace-bridge.txt").read_text() == LICENSE
    assert {"swift-runtime.txt", "swift-argument-parser.txt", "swift-log.txt"} <= {p.name for p in licences.iterdir()}


def test_the_archived_js_client_says_apache_2_0(unpacked):
    pkg = json.loads((unpacked / "share/workspace-bridge/clients/js/package.json").read_text())
    assert pkg["license"] == "Apache-2.0"


def test_the_archived_python_client_says_apache_2_0(unpacked):
    """Its pyproject's PEP 639 `license` (what pip writes as `License-Expression` in the wheel's
    METADATA), with a setuptools that takes it. Building the wheel here would fetch setuptools
    from PyPI in an isolated environment, which took minutes on a busy machine; the table is
    what that build reads."""
    project = tomllib.loads((unpacked / "share/workspace-bridge/clients/python/pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    assert not any(c.startswith("License ::") for c in project["project"].get("classifiers", [])), \
        "PEP 639: no licence classifier beside the expression"
    (setuptools,) = [r for r in project["build-system"]["requires"] if r.startswith("setuptools")]
    assert setuptools == "setuptools>=77", "77 is the first setuptools to take a `license` string"


def test_the_mcp_bundle_names_it_and_carries_it():
    with zipfile.ZipFile(artefact("workspace-bridge-*.mcpb")) as z:
        manifest = json.loads(z.read("manifest.json"))
        assert manifest["license"] == "Apache-2.0"
        assert z.read("LICENSE").decode() == LICENSE
