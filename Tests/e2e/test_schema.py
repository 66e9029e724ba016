"""The OpenRPC document itself: structure (in place of the meta-schema, which cannot be fetched
here), JSON Schema validity, references, examples, and agreement with docs/protocol.md."""
from __future__ import annotations

import re

import pytest
from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError

from contract import REPO, Contract

PROTOCOL_MD = REPO / "docs" / "protocol.md"

TOP_LEVEL = {"openrpc", "info", "servers", "methods", "components", "externalDocs"}
METHOD_KEYS = {"name", "summary", "description", "tags", "paramStructure", "params", "result", "errors", "links",
               "examples", "deprecated", "servers", "externalDocs"}
CONTENT_DESCRIPTOR_KEYS = {"name", "summary", "description", "required", "schema", "deprecated"}
COMPONENT_KEYS = {"schemas", "links", "errors", "examples", "examplePairings", "contentDescriptors", "tags"}

EXPECTED_METHODS = {
    "initialize", "shutdown", "ping",
    "initialized", "exit", "$/cancelRequest", "$/setTrace", "window/workDoneProgress/cancel",
    "$/progress", "window/logMessage",
    "debug/echo", "debug/sleep", "debug/fail", "debug/log", "debug/blob",
    "saveFile", "loadFile", "appendFile", "listFiles", "deleteFile", "moveFile", "copyFile", "createFolder",
    "getFileInfo", "searchFiles", "watchFiles", "unwatchFiles", "getFileUri", "importFile", "exportFile",
    "workspace/didChangeFiles",
    "getStorageInfo", "chooseStorage", "migrate", "listConflicts", "resolveConflict", "downloadFile",
    "session/create", "session/get", "session/list", "session/messages", "session/delete", "session/transition",
    "session/appendMessages", "session/recordUsage", "session/checkpoint", "session/resume", "session/callTool",
    "agent/listTools",
    "host/didEnterBackground", "host/willEnterForeground", "host/setConditions", "host/getConditions",
    "queue/enqueue", "queue/list", "queue/complete", "queue/fail",
    "session/didChangeState", "queue/ready",
}
CLIENT_NOTIFICATIONS = {"initialized", "exit", "$/cancelRequest", "$/setTrace", "window/workDoneProgress/cancel"}
SERVER_NOTIFICATIONS = {"$/progress", "window/logMessage", "workspace/didChangeFiles", "session/didChangeState",
                        "queue/ready"}
PROTOCOL_CODES = {
    "ParseError": -32700, "InvalidHeader": -32700, "UnsupportedCharset": -32700,
    "InvalidRequest": -32600, "MessageTooLarge": -32600, "DuplicateRequestId": -32600,
    "AlreadyInitialized": -32600, "ShutdownRequested": -32600,
    "MethodNotFound": -32601, "InvalidParams": -32602, "InternalError": -32603,
    "ServerNotInitialized": -32002, "RequestCancelled": -32800,
}
DOMAIN_CODES = {"NotFound", "AlreadyExists", "NotADirectory", "IsADirectory", "DirectoryNotEmpty",
                "OutsideWorkspace", "InvalidPath", "PreconditionFailed", "NotText", "TooLarge",
                "PermissionDenied", "NoSpace", "ReadOnly", "CloudUnavailable", "InsufficientSpace", "NotDownloaded",
                "InvalidTransition", "BudgetExceeded", "SessionLocked", "SymlinkNotFollowed", "InvalidArgument",
                "IOError"}
HOST_ONLY = {"getFileUri", "importFile", "exportFile"}


@pytest.fixture(scope="module")
def doc(contract: Contract) -> dict:
    return contract.doc


def resolve(doc: dict, ref: str):
    assert ref.startswith("#/"), f"only local references are used: {ref}"
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        assert isinstance(node, dict) and part in node, f"$ref {ref} does not resolve (at {part!r})"
        node = node[part]
    return node


def walk(node, path="#"):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, f"{path}/{i}")


def extension_free(keys) -> set:
    return {k for k in keys if not k.startswith("x-")}


def test_document_has_the_required_top_level_fields(doc):
    assert re.fullmatch(r"1\.3\.\d+", doc["openrpc"]) and doc["openrpc"] == "1.3.2"
    assert doc["info"]["title"] == "WorkspaceBridge"
    assert doc["info"]["version"] == "0.1.0"
    assert isinstance(doc["methods"], list) and doc["methods"]
    assert extension_free(doc) <= TOP_LEVEL, extension_free(doc) - TOP_LEVEL
    assert extension_free(doc["info"]) <= {"title", "description", "termsOfService", "version", "contact", "license"}
    assert extension_free(doc["components"]) <= COMPONENT_KEYS


def test_every_method_has_name_params_and_result_or_is_a_notification(doc):
    names = [m["name"] for m in doc["methods"]]
    assert len(names) == len(set(names)), "method names must be unique"
    for m in doc["methods"]:
        name = m["name"]
        assert isinstance(name, str) and name, m
        assert extension_free(m) <= METHOD_KEYS, (name, extension_free(m) - METHOD_KEYS)
        assert m.get("paramStructure") == "by-name", name
        assert isinstance(m["params"], list), name
        pnames = [cd["name"] for cd in m["params"]]
        assert len(pnames) == len(set(pnames)), name
        for cd in m["params"]:
            assert extension_free(cd) <= CONTENT_DESCRIPTOR_KEYS and "schema" in cd and cd["name"], (name, cd)
        side = m.get("x-notification")
        if side is None:
            assert "result" in m, f"{name}: a request needs a result"
            assert extension_free(m["result"]) <= CONTENT_DESCRIPTOR_KEYS and m["result"]["name"], name
        else:
            assert side in ("client", "server"), name
            assert "result" not in m, f"{name}: a notification has no result"
        assert m.get("x-debug", False) is (name.startswith("debug/")), f"{name}: x-debug marks exactly debug/*"
        for e in m.get("errors", []):
            assert set(e) == {"$ref"} and e["$ref"].startswith("#/components/errors/"), (name, e)


def test_methods_are_exactly_the_ones_in_the_protocol(doc):
    methods = {m["name"]: m for m in doc["methods"]}
    assert set(methods) == EXPECTED_METHODS
    assert {n for n, m in methods.items() if m.get("x-notification") == "client"} == CLIENT_NOTIFICATIONS
    assert {n for n, m in methods.items() if m.get("x-notification") == "server"} == SERVER_NOTIFICATIONS


def test_method_tables_in_protocol_md_are_in_the_schema(doc):
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    section = text[text.index("## Methods"):]
    if "\n## MCP face" in section:  # another protocol on the same stdin: not part of this schema
        section = section[:section.index("\n## MCP face")]
    table_names = set(re.findall(r"^\| `([^`]+)` \|", section, re.M))
    assert table_names, "no method table found in docs/protocol.md"
    assert table_names <= {m["name"] for m in doc["methods"]}, table_names - {m["name"] for m in doc["methods"]}
    for name in CLIENT_NOTIFICATIONS | SERVER_NOTIFICATIONS:
        assert f"`{name}" in text, f"{name} not mentioned in docs/protocol.md"


def test_host_only_marks_exactly_the_host_methods(doc):
    marked = {m["name"] for m in doc["methods"] if m.get("x-host-only")}
    assert marked == HOST_ONLY
    for m in doc["methods"]:
        if m["name"] in HOST_ONLY:
            assert m["x-host-only"] is True


def _top_level_keys(cell: str) -> dict[str, bool]:
    """`{a, b?: x, c: {d}}` -> {"a": True, "b": False, "c": True} (name -> required)."""
    text = cell.strip()
    if not text.startswith("{"):
        return {}
    keys, depth, item = {}, 0, ""
    for ch in text:
        if ch in "{[(":
            depth += 1
            if depth == 1:
                continue
        elif ch in "}])":
            depth -= 1
        if depth == 1 and ch == ",":
            m = re.match(r"\s*([A-Za-z][A-Za-z0-9]*)(\??)", item)
            if m:
                keys[m.group(1)] = not m.group(2)
            item = ""
        elif depth >= 1:
            item += ch
        if depth == 0:
            m = re.match(r"\s*([A-Za-z][A-Za-z0-9]*)(\??)", item)
            if m:
                keys[m.group(1)] = not m.group(2)
            break
    return keys


def _workspace_rows():
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    section = text[text.index("## Workspace files"):]
    section = section[:section.index("\nDetails:")]
    rows = re.findall(r"^\| `([A-Za-z]+)` \| `(.*?)` \| `(.*?)`", section, re.M)
    assert len(rows) == 15, rows
    return rows


def _object_schema(contract, schema):
    """Follow $ref / allOf to the object schema with properties."""
    while True:
        if "$ref" in schema:
            schema = resolve(contract.doc, schema["$ref"])
        elif "allOf" in schema and "properties" not in schema:
            schema = schema["allOf"][0]
        else:
            return schema


def test_workspace_method_params_in_protocol_md_match_the_schema(contract):
    for name, params, _ in _workspace_rows():
        documented = _top_level_keys(params)
        m = contract.methods[name]
        in_schema = {cd["name"]: bool(cd.get("required")) for cd in m["params"] if cd["name"] != "workDoneToken"}
        assert documented == in_schema, f"{name}: protocol.md {documented} vs schema {in_schema}"


def test_workspace_method_results_in_protocol_md_match_the_schema(contract):
    for name, _, result in _workspace_rows():
        documented = _top_level_keys(result)
        schema = _object_schema(contract, contract.methods[name]["result"]["schema"])
        props = set(schema["properties"])
        assert set(documented) == props, f"{name}: protocol.md {sorted(documented)} vs schema {sorted(props)}"
        required = {k for k, req in documented.items() if req}
        assert required == set(schema["required"]), f"{name}: required {required} vs {schema['required']}"
        assert schema.get("additionalProperties") is False, name


def test_file_entry_and_info_fields_match_protocol_md(contract):
    for name, _, result in _workspace_rows():
        if name == "listFiles":
            inner = result[result.index("[") + 1:result.rindex("]")]
            documented = _top_level_keys(inner)
            schema = contract.doc["components"]["schemas"]["FileEntry"]
            assert set(documented) == set(schema["properties"]) == set(schema["required"])


def _agent_rows():
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    section = text[text.index("## Agent sessions"):]
    section = section[:section.find("\n## ", 1)] if "\n## " in section[1:] else section
    rows = re.findall(r"^\| `([a-z]+/[A-Za-z]+)` \| `?(.*?)`? \| `?(.*?)`? \|$", section, re.M)
    assert len(rows) == 20, rows
    return rows


AGENT_NAMED_RESULTS = {"a session": "Session", "an item": "QueueItem"}


def test_agent_method_params_in_protocol_md_match_the_schema(contract):
    for name, params, _ in _agent_rows():
        documented = _top_level_keys(params)
        in_schema = {cd["name"]: bool(cd.get("required")) for cd in contract.methods[name]["params"]}
        assert documented == in_schema, f"{name}: protocol.md {documented} vs schema {in_schema}"


def test_agent_method_results_in_protocol_md_match_the_schema(contract):
    for name, _, result in _agent_rows():
        schema = contract.methods[name]["result"]["schema"]
        if result in AGENT_NAMED_RESULTS:
            assert schema == {"$ref": f"#/components/schemas/{AGENT_NAMED_RESULTS[result]}"}, name
            continue
        if result.startswith("["):
            assert schema["type"] == "array", name
            documented = _top_level_keys(result[1:-1])
            schema = _object_schema(contract, schema["items"])
        else:
            documented = _top_level_keys(result)
            schema = _object_schema(contract, schema)
        assert set(documented) == set(schema["properties"]), f"{name}: protocol.md {sorted(documented)} vs schema"
        assert {k for k, req in documented.items() if req} == set(schema["required"]), name
        assert schema.get("additionalProperties") is False, name


@pytest.mark.parametrize("component, sentence", [
    ("Session", "A session is `"), ("Message", "a message is `"), ("QueueItem", "a queue item is `"),
])
def test_agent_objects_in_protocol_md_match_the_schema(contract, component, sentence):
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    section = " ".join(text[text.index("## Agent sessions"):].split())
    cell = section[section.index(sentence) + len(sentence):]
    documented = _top_level_keys(cell[:cell.index("`")])
    schema = contract.doc["components"]["schemas"][component]
    assert set(documented) == set(schema["properties"]), component
    assert {k for k, req in documented.items() if req} == set(schema["required"]), component


def test_every_ref_resolves(doc):
    refs = [(path, node["$ref"]) for path, node in walk(doc) if isinstance(node.get("$ref"), str)]
    assert refs
    for path, ref in refs:
        target = resolve(doc, ref)
        assert target is not None, f"{path}: {ref}"


@pytest.mark.parametrize("where", ["components", "params", "results"])
def test_every_embedded_schema_is_a_valid_draft7_schema(contract, where):
    prefix = {"components": "components.", "params": ".params.", "results": ".result"}[where]
    checked = 0
    for location, schema in contract.iter_schemas():
        if prefix in location or (where == "results" and location.endswith(".result")):
            try:
                Draft7Validator.check_schema(schema)
            except SchemaError as exc:
                pytest.fail(f"{location}: {exc.message}")
            checked += 1
    assert checked


def test_every_method_has_an_example_that_validates(contract):
    doc = contract.doc
    for m in doc["methods"]:
        name = m["name"]
        examples = m.get("examples")
        assert examples, f"{name}: no example"
        for ex in examples:
            assert ex.get("name") and isinstance(ex.get("params"), list), (name, ex)
            params = {p["name"]: p["value"] for p in ex["params"]}
            problems = contract.validate_params(name, params)
            assert not problems, f"{name} example {ex['name']}: params {problems}"
            if "x-notification" in m:
                assert "result" not in ex, name
            elif m["result"]["schema"] == {"not": {}}:
                assert "result" not in ex and "x-error" in ex, f"{name} always fails: give x-error instead of result"
                contract.check_error(ex["x-error"])
            else:
                assert set(ex["result"]) >= {"name", "value"}, name
                problems = contract.validate_result(name, ex["result"]["value"])
                assert not problems, f"{name} example {ex['name']}: result {problems}"


def test_error_table_has_one_entry_per_json_rpc_code(contract):
    errors = contract.doc["components"]["errors"]
    codes = [e["code"] for e in errors.values()]
    assert sorted(codes) == sorted([-32700, -32600, -32601, -32602, -32603, -32002, -32800, -32803])
    for name, e in errors.items():
        assert set(e) <= {"code", "message", "data"} and isinstance(e["message"], str), name
        contract.check_error(e)


def test_error_data_enumerates_every_data_code_with_its_json_rpc_code(contract):
    schema = contract.doc["components"]["schemas"]["ErrorData"]
    enum = schema["properties"]["code"]["enum"]
    assert len(enum) == len(set(enum))
    assert set(enum) == set(PROTOCOL_CODES) | DOMAIN_CODES
    mapping = schema["x-error-codes"]
    assert set(mapping) == set(enum)
    for code, rpc in PROTOCOL_CODES.items():
        assert mapping[code] == rpc, code
    for code in DOMAIN_CODES:
        assert mapping[code] == -32803, code
    assert "code" in schema["required"]


def test_error_table_in_protocol_md_matches_the_schema(contract):
    mapping = contract.doc["components"]["schemas"]["ErrorData"]["x-error-codes"]
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (-32\d\d\d) \|[^|]*\|(.*)\|$", text, re.M)
    assert len(rows) == 8, rows
    for code, cell in rows:
        for name in re.findall(r"`([A-Z][A-Za-z]+)`", cell):
            assert mapping.get(name) == int(code), f"{name}: protocol.md says {code}, schema says {mapping.get(name)}"


@pytest.mark.parametrize("data, ok", [
    ({"code": "ParseError", "reason": "x", "line": 1, "column": 2, "position": 3}, True),
    ({"code": "ParseError"}, False),
    ({"code": "InvalidParams", "field": "ms", "expected": "integer"}, True),
    ({"code": "InvalidParams", "field": "ms"}, False),
    ({"code": "MethodNotFound", "method": "x"}, True),
    ({"code": "MethodNotFound"}, False),
    ({"code": "MessageTooLarge", "limit": 10, "size": 20}, True),
    ({"code": "MessageTooLarge"}, False),
    ({"code": "NotFound", "path": "a/b"}, True),
    ({"code": "PreconditionFailed", "path": "a", "currentEtag": "0123456789abcdef"}, True),
    ({"code": "PreconditionFailed", "path": "a", "currentEtag": None}, True),
    ({"code": "PreconditionFailed", "path": "a"}, False),
    ({"code": "PreconditionFailed", "path": "a", "currentEtag": "xyz"}, False),
    ({"code": "TooLarge", "path": "a", "size": 20000000, "limit": 16777216}, True),
    ({"code": "TooLarge", "path": "a", "size": 20000000}, False),
    ({"code": "SymlinkNotFollowed", "path": "link/x"}, True),
    ({"code": "InvalidArgument", "path": "a"}, True),
    ({"code": "IOError", "path": "a", "errno": 5}, True),
    ({"code": "InvalidTransition", "from": "idle", "to": "completed", "allowed": ["running"]}, True),
    ({"code": "InvalidTransition", "from": "completed", "to": "running", "allowed": []}, True),
    ({"code": "InvalidTransition", "from": "idle", "to": "completed"}, False),
    ({"code": "SessionLocked", "owner": "device-1", "expiresAt": "2025-11-22T10:00:00.000Z"}, True),
    ({"code": "SessionLocked"}, False),
    ({"code": "BudgetExceeded", "id": "sess_1", "error": {"code": "BudgetExceeded", "message": "m"}}, True),
    ({"code": "NoSuchCode"}, False),
    ({}, False),
])
def test_error_data_schema_requires_the_documented_fields(contract, data, ok):
    assert (not contract._errors(contract.error_data, data)) is ok


# -- the contract helper itself: it must catch disagreements ----------------

def _ids(mapping):
    return lambda i: mapping.get(i, [])


@pytest.mark.parametrize("msg, ids", [
    ({"jsonrpc": "2.0", "id": 1, "result": {"extra": 1}}, {1: ["ping"]}),
    ({"jsonrpc": "2.0", "id": 1, "result": {"value": 1}}, {}),
    ({"jsonrpc": "2.0", "id": 1, "result": None, "error": {"code": -32603, "message": "x", "data": {"code": "InternalError"}}}, {1: ["ping"]}),
    ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x", "data": {"code": "NotFound"}}}, {}),
    ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}, {}),
    ({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "x", "data": {"code": "InternalError"}}}, {}),
    ({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x", "data": {"code": "ParseError"}}}, {}),
    ({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 9, "message": "m"}}, {}),
    ({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "t", "value": {"kind": "begin"}}}, {}),
    ({"jsonrpc": "2.0", "method": "initialized", "params": {}}, {}),
    ({"jsonrpc": "2.0", "id": 5, "method": "window/logMessage", "params": {"type": 1, "message": "m"}}, {}),
    ([], {}),
    ({"id": 1, "result": {}}, {1: ["ping"]}),
], ids=["extra-result-field", "untracked-id", "result-and-error", "wrong-code-for-data-code", "no-data",
        "unknown-code", "parse-error-without-position", "bad-log-type", "begin-without-title",
        "client-notification-from-server", "notification-with-id", "empty-batch", "no-jsonrpc"])
def test_contract_rejects_messages_that_disagree_with_the_schema(contract, msg, ids):
    from contract import ContractViolation
    with pytest.raises(ContractViolation):
        contract.check_server_message(msg, _ids(ids))


@pytest.mark.parametrize("msg, ids", [
    ({"jsonrpc": "2.0", "id": 1, "result": {}}, {1: ["ping"]}),
    ({"jsonrpc": "2.0", "id": "s", "result": None}, {"s": ["shutdown"]}),
    ({"jsonrpc": "2.0", "id": 1, "result": {"label": "x", "startedAt": 1, "finishedAt": 2}}, {1: ["ping", "debug/sleep"]}),
    ({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "x", "data": {"code": "MessageTooLarge", "limit": 1}}}, {}),
    ({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": 3, "value": {"kind": "report", "percentage": 5}}}, {}),
    ([{"jsonrpc": "2.0", "id": 1, "result": {}}], {1: ["ping"]}),
])
def test_contract_accepts_messages_that_agree_with_the_schema(contract, msg, ids):
    contract.check_server_message(msg, _ids(ids))
