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
