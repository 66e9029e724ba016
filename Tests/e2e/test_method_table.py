"""The method table the server announces equals the schema."""
from __future__ import annotations


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

def _resolved(contract, schema: dict) -> dict:
    while "$ref" in schema:
        schema = contract.doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _shape(schema: dict) -> tuple:
    """What a tool argument and a method param must agree on: type and enumeration. (Bounds, patterns
    and descriptions are written separately in the Swift tool table today and differ in places.)"""
    return schema.get("type"), schema.get("enum")


def test_served_tool_table_is_the_schemas_table_in_its_order(spawn, contract):
    b = spawn(framing="ndjson", init=True)

    names = [t["name"] for t in b.result("agent/listTools", {})]

    assert names == contract.methods["agent/listTools"]["x-tool-table"]


def test_each_mirrored_tool_takes_its_methods_params_as_declared(spawn, contract):
    """x-agent-tool on a file method: the tool's arguments are the method's params, renamed by
    `rename`, less `omit`, plus `extra`; same requiredness, types and enumerations."""
    b = spawn(framing="ndjson", init=True)
    served = {t["name"]: t for t in b.result("agent/listTools", {})}
    mirrored = [m for m in contract.doc["methods"] if "x-agent-tool" in m]
    assert mirrored

    for m in mirrored:
        decl = m["x-agent-tool"]
        tool = served[decl["name"]]["inputSchema"]
        to_param = decl.get("rename", {})
        to_arg = {p: a for a, p in to_param.items()}
        params = {cd["name"]: cd for cd in m["params"] if cd["name"] not in decl.get("omit", [])}
        expected = {to_arg.get(p, p) for p in params} | set(decl.get("extra", {}))
        assert set(tool["properties"]) == expected, f"{decl['name']} vs {m['name']}"
        required = {to_arg.get(p, p) for p, cd in params.items() if cd.get("required")}
        assert set(tool.get("required", [])) == required, f"{decl['name']} vs {m['name']}: required"
        assert tool.get("additionalProperties") is False, decl["name"]
        for arg, schema in tool["properties"].items():
            if arg in decl.get("extra", {}):
                continue
            param = params[to_param.get(arg, arg)]
            assert _shape(schema) == _shape(_resolved(contract, param["schema"])), \
                f"{decl['name']}.{arg} vs {m['name']}.{to_param.get(arg, arg)}"


def test_each_mirrored_tools_output_fields_are_fields_of_its_methods_result(spawn, contract):
    b = spawn(framing="ndjson", init=True)
    served = {t["name"]: t for t in b.result("agent/listTools", {})}

    for m in contract.doc["methods"]:
        if "x-agent-tool" not in m:
            continue
        output = served[m["x-agent-tool"]["name"]]["outputSchema"]
        result = _resolved(contract, m["result"]["schema"])
        assert set(output.get("properties", {})) <= set(result.get("properties", {})), m["name"]
        assert set(output.get("required", [])) <= set(result.get("required", [])), m["name"]
