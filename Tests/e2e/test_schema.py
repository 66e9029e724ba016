"""The OpenRPC document itself: valid against the official OpenRPC 1.3 meta-schema (vendored in
schema/meta-schema/), the project's conventions, JSON Schema validity, references and examples.
Agreement with docs/protocol.md is by construction: test_protocol_docs.py."""
from __future__ import annotations

import copy
import json
import re

import pytest
from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError
from referencing import Registry
from referencing.jsonschema import DRAFT7

from contract import REPO, Contract

META_SCHEMA_DIR = REPO / "schema" / "meta-schema"

TOP_LEVEL = {"openrpc", "info", "servers", "methods", "components", "externalDocs"}
METHOD_KEYS = {"name", "summary", "description", "tags", "paramStructure", "params", "result", "errors", "links",
               "examples", "deprecated", "servers", "externalDocs"}
CONTENT_DESCRIPTOR_KEYS = {"name", "summary", "description", "required", "schema", "deprecated"}
COMPONENT_KEYS = {"schemas", "links", "errors", "examples", "examplePairings", "contentDescriptors", "tags"}

EXPECTED_METHODS = {
    "initialize", "shutdown", "ping",
    "initialized", "exit", "$/cancelRequest", "$/setTrace", "window/workDoneProgress/cancel",
    "$/progress", "window/logMessage", "$/logTrace",
    "debug/echo", "debug/sleep", "debug/block", "debug/fail", "debug/log", "debug/blob",
    "saveFile", "loadFile", "appendFile", "listFiles", "deleteFile", "moveFile", "copyFile", "createFolder",
    "getFileInfo", "searchFiles", "watchFiles", "unwatchFiles", "getFileUri", "importFile", "exportFile",
    "workspace/didChangeFiles", "workspace/textDocumentContent", "workspace/executeCommand",
    "getStorageInfo", "chooseStorage", "migrate", "listConflicts", "resolveConflict", "downloadFile",
    "session/create", "session/get", "session/list", "session/messages", "session/delete", "session/transition",
    "session/appendMessages", "session/recordUsage", "session/checkpoint", "session/resume", "session/callTool",
    "session/fork", "session/compact", "session/uncompact", "session/getRetention", "session/setRetention", "session/prune",
    "session/export", "session/import", "session/setApprovalPolicy", "session/approve", "session/listDeferred",
    "session/deleteMessages", "session/update", "session/stats",
    "session/search",
    "agent/listTools",
    "host/didEnterBackground", "host/willEnterForeground", "host/setConditions", "host/getConditions",
    "queue/enqueue", "queue/list", "queue/complete", "queue/fail",
    "session/didChangeState", "session/deferredReady", "queue/ready",
    "settings/get", "settings/set", "settings/remove", "settings/didChange",
}
CLIENT_NOTIFICATIONS = {"initialized", "exit", "$/cancelRequest", "$/setTrace", "window/workDoneProgress/cancel"}
SERVER_NOTIFICATIONS = {"$/progress", "window/logMessage", "$/logTrace", "workspace/didChangeFiles", "session/didChangeState", "session/deferredReady",
                        "queue/ready", "settings/didChange"}
PROTOCOL_CODES = {
    "ParseError": -32700, "InvalidHeader": -32700, "UnsupportedCharset": -32700,
    "InvalidRequest": -32600, "MessageTooLarge": -32600, "DuplicateRequestId": -32600,
    "AlreadyInitialized": -32600, "ShutdownRequested": -32600, "BatchTooLarge": -32600,
    "MethodNotFound": -32601, "InvalidParams": -32602, "InternalError": -32603,
    "ServerNotInitialized": -32002, "RequestCancelled": -32800,
    "UnsupportedProtocolVersion": -32022,      # the MCP face's 2026-07-28 era (docs/mcp-2026.md)
    "MissingRequiredClientCapability": -32021,  # the same era: tasks/* without the tasks extension declared
    "ServerBusy": -32803,  # no thread for the request now (stuck cancelled handlers at their cap, or a task limit)
    "CapabilityDenied": -32803,  # the method, or the one a command or tool call forwards to, needs a capability not granted (--deny)
    "AgentUnavailable": -32603,  # the ACP face: the downstream agent exited or could not start (test_acp.py)
}
DOMAIN_CODES = {"NotFound", "AlreadyExists", "NotADirectory", "IsADirectory", "DirectoryNotEmpty",
                "OutsideWorkspace", "InvalidPath", "PreconditionFailed", "NotText", "TooLarge",
                "PermissionDenied", "NoSpace", "ReadOnly", "CloudUnavailable", "InsufficientSpace", "NotDownloaded",
                "InvalidTransition", "BudgetExceeded", "SessionLocked", "SymlinkNotFollowed", "InvalidArgument",
                "IOError", "QuotaExceeded", "NotARegularFile", "Deferred", "LimitExceeded"}
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


def meta_schema_validator() -> Draft7Validator:
    """The OpenRPC 1.3 meta-schema, with the JSON Schema meta-schema it refers to for embedded schemas
    (named without the trailing slash of its $id, so registered under both), formats checked."""
    meta = json.loads((META_SCHEMA_DIR / "openrpc-1.3.json").read_text(encoding="utf-8"))
    jst = json.loads((META_SCHEMA_DIR / "json-schema-tools.json").read_text(encoding="utf-8"))
    jst_resource = DRAFT7.create_resource(jst)
    registry = Registry().with_resources([
        (meta["$id"], DRAFT7.create_resource(meta)),
        (jst["$id"], jst_resource),
        (jst["$id"].rstrip("/"), jst_resource),
    ])
    return Draft7Validator(meta, registry=registry, format_checker=Draft7Validator.FORMAT_CHECKER)


def meta_schema_errors(document) -> list[str]:
    def leaves(e):
        return [x for c in e.context for x in leaves(c)] if e.context else [e]
    return [f"{'/'.join(map(str, leaf.absolute_path))}: {leaf.message[:200]}"
            for e in meta_schema_validator().iter_errors(document) for leaf in leaves(e)]


def test_document_validates_against_the_openrpc_meta_schema(doc):
    problems = meta_schema_errors(doc)

    assert not problems, problems[:20]


def _without_params(d):
    del d["methods"][0]["params"]


def _param_without_schema(d):
    del d["methods"][0]["params"][0]["schema"]


def _misspelt_type(d):
    d["methods"][0]["params"][0]["schema"] = {"type": "strng"}


def _unknown_method_field(d):
    d["methods"][0]["parameters"] = []


def _error_without_code(d):
    del d["components"]["errors"]["ParseError"]["code"]


def _example_without_params(d):
    del d["methods"][0]["examples"][0]["params"]


def _unsupported_version(d):
    d["openrpc"] = "2.0.0"


def _tag_without_name(d):
    next(iter(d["components"]["tags"].values())).pop("name")


@pytest.mark.parametrize("breakage", [_without_params, _param_without_schema, _misspelt_type, _unknown_method_field,
                                      _error_without_code, _example_without_params, _unsupported_version,
                                      _tag_without_name])
def test_the_meta_schema_rejects_a_broken_document(doc, breakage):
    broken = copy.deepcopy(doc)
    breakage(broken)

    assert meta_schema_errors(broken)


def test_every_method_has_one_tag_of_the_components(doc):
    tags = doc["components"]["tags"]
    assert tags and all(t["name"] and t["description"] for t in tags.values())
    used = set()
    for m in doc["methods"]:
        refs = [t.get("$ref", "") for t in m.get("tags", [])]
        assert len(refs) == 1 and refs[0].startswith("#/components/tags/"), \
            f"{m['name']}: {refs} (add one tag of components.tags to the method)"
        used.add(refs[0].rsplit("/", 1)[-1])
    assert used == set(tags), f"tags without methods: {set(tags) - used}"


def test_agent_tool_declarations_name_tools_of_the_table_and_params_of_their_method(doc):
    methods = {m["name"]: m for m in doc["methods"]}
    table = methods["agent/listTools"]["x-tool-table"]
    assert len(table) == len(set(table))
    declared = [m["x-agent-tool"]["name"] for m in doc["methods"] if "x-agent-tool" in m]
    assert len(declared) == len(set(declared)) and set(declared) <= set(table)
    for m in doc["methods"]:
        if "x-agent-tool" not in m:
            continue
        decl = m["x-agent-tool"]
        assert set(decl) <= {"name", "rename", "omit", "extra"}, m["name"]
        params = {cd["name"]: cd for cd in m["params"]}
        assert set(decl.get("rename", {}).values()) | set(decl.get("omit", [])) <= set(params), m["name"]
        assert not any(params[p].get("required") for p in decl.get("omit", [])), f"{m['name']}: omits a required param"
        assert not m.get("x-host-only") and not m.get("x-debug") and "x-notification" not in m, m["name"]


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


def test_host_only_marks_exactly_the_host_methods(doc):
    marked = {m["name"] for m in doc["methods"] if m.get("x-host-only")}
    assert marked == HOST_ONLY
    for m in doc["methods"]:
        if m["name"] in HOST_ONLY:
            assert m["x-host-only"] is True


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
                declared = {doc["components"]["errors"][e["$ref"].rsplit("/", 1)[-1]]["code"] for e in m["errors"]}
                assert ex["x-error"]["code"] in declared, f"{name} example {ex['name']}: error code not in its errors"
            else:
                assert set(ex["result"]) >= {"name", "value"}, name
                problems = contract.validate_result(name, ex["result"]["value"])
                assert not problems, f"{name} example {ex['name']}: result {problems}"


def test_error_table_has_one_entry_per_json_rpc_code(contract):
    errors = contract.doc["components"]["errors"]
    codes = [e["code"] for e in errors.values()]
    assert sorted(codes) == sorted([-32700, -32600, -32601, -32602, -32603, -32002, -32800, -32803, -32022, -32021])
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


@pytest.mark.parametrize("data, ok", [
    ({"code": "ParseError", "reason": "x", "line": 1, "column": 2, "position": 3}, True),
    ({"code": "ParseError"}, False),
    ({"code": "InvalidParams", "field": "ms", "expected": "integer"}, True),
    ({"code": "InvalidParams", "field": "ms"}, False),
    ({"code": "MethodNotFound", "method": "x"}, True),
    ({"code": "MethodNotFound"}, False),
    ({"code": "CapabilityDenied", "method": "importFile", "capabilities": ["host-paths"]}, True),
    ({"code": "CapabilityDenied", "method": "importFile"}, False),
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
