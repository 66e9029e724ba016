"""The method table the server announces equals the schema."""
from __future__ import annotations

import sys

from jsonschema import Draft7Validator

from contract import REPO

sys.path.insert(0, str(REPO / "scripts"))
from gen_tool_schemas import Generator  # noqa: E402


def announced(result):
    caps = result["capabilities"]
    return set(caps["methods"]), set(caps["notifications"]["client"]), set(caps["notifications"]["server"])


def test_announced_methods_with_debug_flag_equal_the_schema(spawn, contract):
    b = spawn(framing="ndjson", debug=True)

    methods, client, server = announced(b.initialize())

    assert methods == contract.request_names(include_debug=True)
    assert client == contract.notification_names("client")
    assert server == contract.notification_names("server")
    assert methods | client | server == set(contract.methods)


def test_debug_methods_are_absent_without_the_flag(spawn, contract):
    b = spawn(framing="ndjson", debug=False)

    methods, client, server = announced(b.initialize())

    debug = {n for n, m in contract.methods.items() if m.get("x-debug")}
    assert methods == contract.request_names(include_debug=False)
    assert methods | client | server == set(contract.methods) - debug


def test_debug_methods_are_not_found_without_the_flag(spawn):
    b = spawn(framing="ndjson", debug=False, init=True)

    for method, params in [("debug/echo", {"value": 1}), ("debug/sleep", {"ms": 1}), ("debug/fail", {"kind": "internal"}),
                           ("debug/log", {"level": "info", "message": "m"}), ("debug/blob", {"bytes": 1})]:
        err = b.error(method, params)
        assert err["code"] == -32601 and err["data"]["method"] == method


def test_every_announced_method_answers_as_the_schema_says(spawn, contract):
    b = spawn(framing="ndjson", init=True)
    calls = {
        "ping": None,
        "debug/echo": {"value": {"x": [1]}},
        "debug/sleep": {"ms": 1, "label": "x"},
        "debug/log": {"level": "info", "message": "m"},
        "debug/blob": {"bytes": 3},
        "agent/listTools": {},
        "session/list": {},
        "host/getConditions": {},
        "queue/list": {},
    }
    for method, params in calls.items():
        assert not contract.validate_params(method, params or {}), method
        b.result(method, params)  # the harness validates the result against the schema
    assert b.call("shutdown")["result"] is None


# -- the agent tool table and the file methods it mirrors ------------------------------------------
# The tools' schemas are generated from schema/openrpc.json (scripts/gen_tool_schemas.py); the
# tests below hold the served table to the schema both through the generator and by restating the
# relation x-agent-tool declares.

def _inlined(contract, schema):
    """`schema` with every $ref replaced by its target (keywords beside a $ref kept, winning)."""
    if isinstance(schema, list):
        return [_inlined(contract, s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    if "$ref" in schema:
        out.update(_inlined(contract, contract.doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]))
    for k, v in schema.items():
        if k != "$ref":
            out[k] = v if k in ("enum", "const", "default", "examples") else _inlined(contract, v)
    return out


def _served(spawn) -> dict:
    b = spawn(framing="ndjson", init=True)
    return {t["name"]: t for t in b.result("agent/listTools", {})}


def _mirrored(contract) -> list[dict]:
    methods = [m for m in contract.doc["methods"] if "x-agent-tool" in m]
    assert methods
    return methods


def test_served_tool_table_is_the_schemas_table_in_its_order(spawn, contract):
    b = spawn(framing="ndjson", init=True)

    names = [t["name"] for t in b.result("agent/listTools", {})]

    assert names == contract.methods["agent/listTools"]["x-tool-table"]


def test_served_tool_schemas_are_the_ones_generated_from_the_schema(spawn, contract):
    served = _served(spawn)

    generated = Generator(contract.doc).tools()

    assert list(served) == list(generated)
    for name, g in generated.items():
        assert served[name]["inputSchema"] == g["input"], name
        assert served[name]["outputSchema"] == g["output"], name


def test_each_mirrored_tool_takes_exactly_its_methods_params_as_declared(spawn, contract):
    """x-agent-tool on a file method: the tool's arguments are the method's params, renamed by
    `rename`, less `omit`: same names, order, requiredness and schemas (descriptions, defaults,
    limits), nothing else accepted."""
    served = _served(spawn)

    for m in _mirrored(contract):
        decl = m["x-agent-tool"]
        tool = served[decl["name"]]["inputSchema"]
        to_arg = {p: a for a, p in decl.get("rename", {}).items()}
        params = [cd for cd in m["params"] if cd["name"] not in decl.get("omit", [])]
        expected = {}
        for cd in params:
            schema = _inlined(contract, cd["schema"])
            if cd.get("description"):
                schema["description"] = cd["description"]
            expected[to_arg.get(cd["name"], cd["name"])] = schema
        assert list(tool["properties"]) == list(expected), f"{decl['name']} vs {m['name']}"
        assert tool["properties"] == expected, f"{decl['name']} vs {m['name']}"
        required = [to_arg.get(cd["name"], cd["name"]) for cd in params if cd.get("required")]
        assert tool.get("required", []) == required, f"{decl['name']} vs {m['name']}: required"
        assert tool["type"] == "object" and tool["additionalProperties"] is False, decl["name"]


def test_each_mirrored_tool_answers_its_methods_result_schema(spawn, contract):
    served = _served(spawn)

    for m in _mirrored(contract):
        output = served[m["x-agent-tool"]["name"]]["outputSchema"]
        assert output == _inlined(contract, m["result"]["schema"]), m["name"]


def test_every_example_of_a_mirrored_method_is_a_valid_tool_call_with_a_valid_result(spawn, contract):
    served = _served(spawn)
    checked = 0

    for m in _mirrored(contract):
        decl = m["x-agent-tool"]
        to_arg = {p: a for a, p in decl.get("rename", {}).items()}
        tool = served[decl["name"]]
        for ex in m.get("examples", []):
            args = {to_arg.get(p["name"], p["name"]): p["value"] for p in ex["params"]
                    if p["name"] not in decl.get("omit", [])}
            problems = [e.message for e in Draft7Validator(tool["inputSchema"]).iter_errors(args)]
            assert not problems, (decl["name"], ex["name"], problems)
            if "result" in ex:
                problems = [e.message for e in Draft7Validator(tool["outputSchema"]).iter_errors(ex["result"]["value"])]
                assert not problems, (decl["name"], ex["name"], "result", problems)
            checked += 1
    assert checked >= len(_mirrored(contract))


def test_tools_without_a_method_take_and_answer_their_component_schemas(spawn, contract):
    served = _served(spawn)
    mirrored = {m["x-agent-tool"]["name"] for m in _mirrored(contract)}
    schemas = contract.doc["components"]["schemas"]

    own = [n for n in contract.methods["agent/listTools"]["x-tool-table"] if n not in mirrored]

    assert own == ["read_multiple_files", "read_context", "update_context", "append_journal"]
    for name in own:
        camel = "".join(part.capitalize() for part in name.split("_"))
        assert served[name]["inputSchema"] == _inlined(contract, schemas[f"Tool{camel}Input"]), name
        assert served[name]["outputSchema"] == _inlined(contract, schemas[f"Tool{camel}Output"]), name
