"""JSON-RPC 2.0 semantics: errors, notifications, batches, ids, hostile JSON."""
from __future__ import annotations

import json
import time

import pytest

from bridge import dumps, frame, notification, request

DOMAIN_CODES = {"NotFound", "AlreadyExists", "NotADirectory", "IsADirectory", "DirectoryNotEmpty",
                "OutsideWorkspace", "InvalidPath", "PreconditionFailed", "NotText", "TooLarge",
                "PermissionDenied", "NoSpace", "ReadOnly", "CloudUnavailable", "InvalidTransition",
                "BudgetExceeded"}


def ping(id):
    return dumps(request("ping", id=id))


def send_then_ping(b, body: bytes, after="after"):
    b.track(after, "ping")
    b.write(frame(body, b.framing) + frame(ping(after), b.framing))


@pytest.mark.parametrize("body", [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"',
    b'{"jsonrpc":"2.0","id":1,"method":"ping"} x',
    b"{'jsonrpc':'2.0','id':1,'method':'ping'}",
    b'{"jsonrpc":"2.0","id":1,"method":"ping",}',
    b'{"jsonrpc":"2.0","id":1,"method":"debug/echo","params":{"value":NaN}}',
], ids=["truncated", "trailing-garbage", "single-quotes", "trailing-comma", "nan"])
def test_parse_error_is_answered_with_null_id_and_position(server, body):
    send_then_ping(server, body)

    err = server.error_response(id=None)["error"]

    assert err["code"] == -32700 and err["data"]["code"] == "ParseError"
    assert isinstance(err["data"]["reason"], str) and err["data"]["reason"]
    for k in ("line", "column", "position"):
        assert isinstance(err["data"][k], int)
    assert server.response("after")["result"] == {}
    server.assert_silent(0.2)


@pytest.mark.parametrize("msg, expected_id", [
    ({"jsonrpc": "2.0", "id": 7, "method": 42}, 7),
    ({"jsonrpc": "1.0", "id": 8, "method": "ping"}, 8),
    ({"id": "nine", "method": "ping"}, "nine"),
    ({"jsonrpc": "2.0", "id": 10, "method": "ping", "params": "not structured"}, 10),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
    (42, None),
    ("a string", None),
    (None, None),
], ids=["method-not-string", "wrong-version", "no-version", "params-primitive",
        "id-object", "id-array", "id-bool", "id-null", "number", "string", "null"])
def test_invalid_request_is_answered_with_its_id_when_readable(server, msg, expected_id):
    send_then_ping(server, dumps(msg))

    response = server.error_response(id=expected_id)

    assert response["error"]["code"] == -32600 and response["error"]["data"]["code"] == "InvalidRequest"
    assert server.response("after")["result"] == {}
    server.assert_silent(0.2)


def test_params_as_array_are_refused(server):
    err = server.error("ping", [1, 2])
    assert err["code"] in (-32600, -32602)


def test_unknown_method_gets_method_not_found_naming_it(server):
    err = server.error("no/such-method", {})
    assert err["code"] == -32601
    assert err["data"] == {**err["data"], "code": "MethodNotFound", "method": "no/such-method"}


@pytest.mark.parametrize("method, params, field", [
    ("debug/sleep", {"ms": "ten"}, "ms"),
    ("debug/sleep", {}, "ms"),
    ("debug/sleep", {"ms": -1}, "ms"),
    ("debug/sleep", {"ms": 1, "access": "sideways"}, "access"),
    ("debug/sleep", {"ms": 1, "key": 5}, "key"),
    ("debug/echo", {}, "value"),
    ("debug/blob", {"bytes": 1.5}, "bytes"),
    ("debug/log", {"level": "loud", "message": "m"}, "level"),
    ("debug/fail", {"kind": "other"}, "kind"),
])
def test_bad_params_get_invalid_params_with_field_and_expected(server, method, params, field):
    err = server.error(method, params)

    assert err["code"] == -32602 and err["data"]["code"] == "InvalidParams"
    assert err["data"]["field"] == field
    assert isinstance(err["data"]["expected"], str) and err["data"]["expected"]


def test_invalid_params_field_is_a_dotted_path(spawn):
    b = spawn(framing="ndjson")

    err = b.error("initialize", {"clientInfo": {"name": 5}})

    assert err["code"] == -32602 and err["data"]["field"] == "clientInfo.name"


def test_internal_error_is_answered_and_the_server_keeps_serving(server):
    err = server.error("debug/fail", {"kind": "internal"})

    assert err["code"] == -32603 and err["data"]["code"] == "InternalError"
    assert server.result("ping") == {}
    assert server.result("debug/echo", {"value": 1}) == {"value": 1}


def test_domain_failure_gets_32803_with_a_domain_code(server):
    err = server.error("debug/fail", {"kind": "domain"})

    assert err["code"] == -32803 and err["data"]["code"] in DOMAIN_CODES


def test_notifications_are_never_answered(server):
    for msg in [notification("ping"),
                notification("no/such-method", {}),
                notification("debug/sleep", {"ms": "bad"}),
                notification("debug/fail", {"kind": "internal"}),
                notification("debug/echo", {"value": 1}),
                notification("initialized", {})]:
        server.send(msg)

    assert server.result("ping") == {}
    server.assert_silent(0.4)


def test_batch_with_mixed_members_is_answered_with_one_array(server):
    server.send([request("ping", id="b1"),
                 notification("$/setTrace", {"value": "off"}),
                 request("debug/echo", {"value": [1, "two"]}, id="b2"),
                 request("no/such", {}, id="b3"),
                 42])

    reply = server.recv()

    assert isinstance(reply, list) and len(reply) == 4
    by_id = {r["id"]: r for r in reply if r["id"] is not None}
    assert by_id["b1"]["result"] == {}
    assert by_id["b2"]["result"] == {"value": [1, "two"]}
    assert by_id["b3"]["error"]["code"] == -32601
    invalid = [r for r in reply if r["id"] is None]
    assert len(invalid) == 1 and invalid[0]["error"]["code"] == -32600
    server.assert_silent(0.2)


def test_batch_is_answered_once_every_member_is_done(nd):
    sent = time.monotonic()
    nd.send([request("debug/sleep", {"ms": 300, "key": "batch", "label": "slow"}, id="slow"),
             request("ping", id="fast")])

    entry = nd.take_entry(lambda m: True)

    assert isinstance(entry.msg, list) and {r["id"] for r in entry.msg} == {"slow", "fast"}
    assert entry.t - sent >= 0.28
    nd.assert_silent(0.2)


def test_empty_batch_gets_one_invalid_request_error(server):
    server.write(frame(b"[]", server.framing))

    reply = server.recv()

    assert isinstance(reply, dict), "an empty batch is answered with a single error, not an array"
    assert reply["id"] is None and reply["error"]["code"] == -32600
    server.assert_silent(0.2)


def test_batch_of_only_notifications_is_not_answered(server):
    server.send([notification("$/setTrace", {"value": "off"}), notification("initialized", {}),
                 notification("no/such")])

    assert server.result("ping") == {}
    server.assert_silent(0.3)


def test_batch_of_invalid_members_gets_an_error_for_each(server):
    server.write(frame(b"[1,2,3]", server.framing))

    reply = server.recv()

    assert isinstance(reply, list) and len(reply) == 3
    assert all(r["id"] is None and r["error"]["code"] == -32600 for r in reply)


def test_unknown_dollar_notification_is_ignored(server):
    server.notify("$/somethingNew", {"x": 1})
    server.notify("$/anotherThing")

    assert server.result("ping") == {}
    server.assert_silent(0.3)


def test_unknown_dollar_request_gets_method_not_found(server):
    err = server.error("$/somethingNew", {"x": 1})
    assert err["code"] == -32601 and err["data"]["method"] == "$/somethingNew"


@pytest.mark.parametrize("msg_id", [
    "a string id ☃", "", "123", 0, -1, 2**53 + 1, 2**63 - 1, -(2**63),
], ids=["string", "empty-string", "numeric-string", "zero", "minus-one", "2^53+1", "int64-max", "int64-min"])
def test_ids_are_echoed_exactly(server, msg_id):
    entry = server.response_entry(server.request("ping", id=msg_id))

    assert entry.msg["id"] == msg_id and type(entry.msg["id"]) is type(msg_id)
    if isinstance(msg_id, int):
        assert b'"id":%d' % msg_id in entry.raw.replace(b" ", b"")


@pytest.mark.parametrize("msg_id", [2**63 - 1, -(2**63), "err-☃"])
def test_error_responses_echo_ids_exactly(server, msg_id):
    entry = server.response_entry(server.request("no/such", {}, id=msg_id))
    assert entry.msg["id"] == msg_id and entry.msg["error"]["code"] == -32601


@pytest.mark.parametrize("value", [2**53 + 1, 2**63 - 1, -(2**63), 10**15 + 7])
def test_large_integers_in_params_are_echoed_exactly(server, value):
    entry = server.response_entry(server.request("debug/echo", {"value": [value]}))
    assert entry.msg["result"]["value"] == [value]
    assert str(value).encode() in entry.raw


@pytest.mark.parametrize("literal", [str(2**64), str(10**30), str(-(2**63) - 1)])
def test_integer_beyond_64_bits_is_a_parse_error(server, literal):
    body = b'{"jsonrpc":"2.0","id":"big-int","method":"debug/echo","params":{"value":%s}}' % literal.encode()
    server.track("big-int", "debug/echo")

    send_then_ping(server, body)

    err = server.error_response(id=None)["error"]
    assert err["code"] == -32700 and err["data"]["code"] == "ParseError"
    assert server.response("after")["result"] == {}
    server.assert_silent(0.2)


@pytest.mark.parametrize("bad", [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"],
                         ids=["ff", "overlong", "surrogate", "above-10ffff", "truncated", "lone-continuation"])
def test_invalid_utf8_is_a_parse_error(server, bad):
    body = b'{"jsonrpc":"2.0","id":"utf8","method":"debug/echo","params":{"value":"a' + bad + b'b"}}'
    server.track("utf8", "debug/echo")

    send_then_ping(server, body)

    err = server.error_response(id=None)["error"]
    assert err["code"] == -32700 and err["data"]["code"] == "ParseError"
    assert server.response("after")["result"] == {}
    server.assert_silent(0.2)


def test_nesting_100000_levels_deep_is_a_parse_error_and_server_keeps_serving(server):
    depth = 100_000
    body = b'{"jsonrpc":"2.0","id":"deep","method":"debug/echo","params":{"value":' \
        + b"[" * depth + b"]" * depth + b"}}"
    server.track("deep", "debug/echo")

    send_then_ping(server, body)

    err = server.error_response(id=None, timeout=10)["error"]
    assert err["code"] == -32700 and err["data"]["code"] == "ParseError"
    assert server.response("after")["result"] == {}
    assert server.result("debug/echo", {"value": {"still": "serving"}}) == {"value": {"still": "serving"}}


def test_moderate_nesting_is_echoed(server):
    value: object = "core"
    for i in range(200):
        value = [value] if i % 2 else {"k": value}
    assert server.result("debug/echo", {"value": value}) == {"value": value}


def test_nul_inside_a_string_is_echoed(server):
    text = "a\u0000b\u0000\u0001\u001f"

    entry = server.response_entry(server.request("debug/echo", {"value": text, }))

    assert entry.msg["result"]["value"] == text
    assert b"\x00" not in entry.raw


@pytest.mark.parametrize("value", [None, True, False, 0, -0.5, 1.5e300, "", [], {}, {"a": {"b": [1, None, "c"]}}],
                         ids=["null", "true", "false", "zero", "neg-float", "big-float", "empty-string",
                              "empty-array", "empty-object", "nested"])
def test_echo_returns_any_json_value(server, value):
    result = server.result("debug/echo", {"value": value})
    assert json.dumps(result, sort_keys=True) == json.dumps({"value": value}, sort_keys=True)


@pytest.mark.parametrize("size", [0, 1, 1000, 1 << 20])
def test_blob_returns_exactly_that_many_bytes_of_text(server, size):
    data = server.result("debug/blob", {"bytes": size}, timeout=15)["data"]
    assert len(data.encode("utf-8")) == size
