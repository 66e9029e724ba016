"""docs/protocol.md is generated from docs/protocol.template.md and schema/openrpc.json by
scripts/gen_protocol_docs.py: it is current, complete (every method, param and type), its links
resolve, and the generator refuses a template that would leave methods out."""
from __future__ import annotations

import copy
import re
import sys

import pytest

from contract import REPO

sys.path.insert(0, str(REPO / "scripts"))
from gen_protocol_docs import OUTPUT, TEMPLATE, TemplateError, render  # noqa: E402
from protocol_docs_render import slug  # noqa: E402


@pytest.fixture(scope="module")
def template() -> str:
    return TEMPLATE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page() -> str:
    return OUTPUT.read_text(encoding="utf-8")


def method_block(page: str, name: str) -> str:
    start = page.index(f"\n#### `{name}`\n")
    end = re.search(r"\n#{2,4} ", page[start + 1:])
    return page[start:start + 1 + end.start()] if end else page[start:]


def anchors(page: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    fence = False
    for line in page.splitlines():
        if line.startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", line):
            continue
        base = slug(line.lstrip("#").strip())
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_protocol_md_is_what_the_generator_renders(contract, template, page):
    expected = render(contract.doc, template)

    assert page == expected, "docs/protocol.md is not current: run python3 scripts/gen_protocol_docs.py"


def test_every_method_has_one_tag_and_exactly_one_reference_block(contract, page):
    tags = contract.doc["components"]["tags"]
    for m in contract.doc["methods"]:
        refs = [t["$ref"] for t in m.get("tags", [])]
        assert len(refs) == 1 and refs[0].rsplit("/", 1)[-1] in tags, f"{m['name']}: {refs}"
        assert page.count(f"\n#### `{m['name']}`\n") == 1, m["name"]


def test_every_param_and_result_of_a_method_is_in_its_block(contract, page):
    for m in contract.doc["methods"]:
        block = method_block(page, m["name"])
        for cd in m["params"]:
            assert f"| `{cd['name']}` |" in block, f"{m['name']}: param {cd['name']} missing"
        if "result" in m and m["result"]["schema"] != {"not": {}}:
            assert "**Result**" in block, m["name"]
        for ex in m["examples"]:
            assert f"**Example**: {ex['name']}" in block, (m["name"], ex["name"])


def test_every_component_schema_has_a_type_entry_with_its_fields(contract, page):
    types = page[page.index("\n## Types\n"):]
    for name, schema in contract.doc["components"]["schemas"].items():
        block = method_block(types, name)
        for field in schema.get("properties", {}):
            assert f"| `{field}` |" in block, f"{name}.{field}"


def test_every_error_code_and_data_code_is_in_the_error_table(contract, page):
    mapping = contract.doc["components"]["schemas"]["ErrorData"]["x-error-codes"]
    rows = dict(re.findall(r"^\| (-32\d\d\d) \| \w+ \|[^|]*\|(.*)\|$", page, re.M))
    assert {int(c) for c in rows} == {e["code"] for e in contract.doc["components"]["errors"].values()}
    for data_code, rpc_code in mapping.items():
        assert f"`{data_code}`" in rows[str(rpc_code)], data_code


def test_every_link_within_the_page_resolves(page):
    targets = set(re.findall(r"\]\(#([^)]+)\)", page))
    assert targets
    assert targets <= anchors(page), sorted(targets - anchors(page))


def test_the_mcp_face_stays_prose_of_the_template(template, page):
    for text in (template, page):
        section = text[text.index("\n## MCP face\n"):]
        assert "| `tools/list` |" in section and "| `resources/read` |" in section
    assert "<!-- " not in page.split("\n", 1)[1], "a marker was left unrendered"


def test_a_change_in_the_schema_shows_in_the_page(contract, template):
    doc = copy.deepcopy(contract.doc)
    m = next(m for m in doc["methods"] if m["name"] == "saveFile")
    m["summary"] = "A summary that only this test writes."
    m["params"][0]["description"] = "A param description that only this test writes."

    out = render(doc, template)

    block = method_block(out, "saveFile")
    assert "A summary that only this test writes." in block
    assert "A param description that only this test writes." in block


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("<!-- reference: storage -->\n", ""), "places no reference for tag(s) ['storage']"),
    (lambda t: t.replace("<!-- reference: storage -->", "<!-- reference: storage -->\n\n<!-- reference: storage -->"),
     "appears twice"),
    (lambda t: t + "\n<!-- reference: nosuchtag -->\n", "names no tag"),
    (lambda t: t + "\n<!-- reference:storage -->\n", "malformed marker"),
])
def test_the_generator_refuses_a_template_that_misplaces_a_tag(contract, template, change, message):
    with pytest.raises(TemplateError, match=re.escape(message)):
        render(contract.doc, change(template))


def test_a_new_tag_needs_only_a_marker_in_the_template(contract, template):
    doc = copy.deepcopy(contract.doc)
    doc["components"]["tags"]["extra"] = {"name": "Extra things", "description": "Only in this test."}
    ping = copy.deepcopy(next(m for m in doc["methods"] if m["name"] == "ping"))
    ping["name"] = "extra/ping"
    ping["tags"] = [{"$ref": "#/components/tags/extra"}]
    doc["methods"].append(ping)
    with pytest.raises(TemplateError, match="extra"):
        render(doc, template)

    out = render(doc, template.replace("\n## MCP face\n", "\n## Extra\n\nProse.\n\n<!-- reference: extra -->\n\n## MCP face\n"))

    assert "### Reference: Extra things" in out and "\n#### `extra/ping`\n" in out
    assert "- [Extra](#extra)" in out
