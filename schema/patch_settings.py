#!/usr/bin/env python3
"""Adds (or replaces) the synced-settings methods, notification and error code in schema/openrpc.json.

docs/protocol.md, "Synced settings", is the contract described here: settings/get, settings/set,
settings/remove, the server notification settings/didChange, the component schemas they use,
and the domain code QuotaExceeded (data.quota, data.limit, data.size), sent with -32803. Keys
that are empty or longer than 64 bytes fail with InvalidArgument (data.key, data.limit,
data.size).

Idempotent: running it twice gives the same file. Everything else in the document is left as
it is. Written back with json.dump(indent=2, ensure_ascii=False) and a trailing newline.

    python3 schema/patch_settings.py [path/to/openrpc.json]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schema_patching import (  # noqa: E402
    STANDARD_ERRORS, add_domain_codes, example, param, place_methods, ref, required_rule, rewrite, rule_code,
)

SCHEMA = Path(__file__).resolve().parent / "openrpc.json"


VALUES_EXAMPLE = {"darkMode": True, "textSize": 17, "languages": ["en", "fr"]}

SCHEMAS = {
    "SettingsKey": {
        "description": "A settings key: 1 to 64 bytes of UTF-8 (so at most 64 characters); longer or empty keys "
                       "fail with InvalidArgument (data.key, data.limit 64, data.size).",
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
    },
    "SettingsValues": {
        "description": "Settings as an object of key to value; a value is any JSON value but null. The store holds "
                       "at most 1,024 keys and 1 MB (1,048,576 bytes: each key's UTF-8 bytes plus its value's "
                       "compact JSON), counted over the values merged from every device.",
        "type": "object",
        "propertyNames": ref("SettingsKey"),
        "additionalProperties": {"not": {"type": "null"}},
    },
    "SettingsGetResult": {
        "type": "object",
        "properties": {
            "values": {"description": "The values of the keys asked for that have one (all keys when `keys` is "
                                      "left out); keys without a value are absent.", **ref("SettingsValues")},
            "updatedAt": {"description": "When the store last changed on any device (the latest write, removals "
                                         "included), or null when it never has.",
                          "oneOf": [ref("Timestamp"), {"type": "null"}]},
        },
        "required": ["values", "updatedAt"],
        "additionalProperties": False,
    },
    "SettingsResult": {
        "description": "Every value after the change (as settings/get without keys answers).",
        "type": "object",
        "properties": {"values": ref("SettingsValues")},
        "required": ["values"],
        "additionalProperties": False,
    },
}

METHODS = [
    {
        "name": "settings/get",
        "summary": "Synced settings: the values of `keys` (default: every key) merged from every device, and when "
                   "the store last changed.",
        "description": "Settings live in the active root's .workspace/settings/, one file per device, merged per key "
                       "(the latest write by hybrid logical clock wins). The first settings/* request of a "
                       "connection starts settings/didChange notifications.",
        "paramStructure": "by-name",
        "params": [param("keys", {"type": "array", "items": {"type": "string"}},
                         description="Only these keys; default: all.")],
        "result": {"name": "SettingsGetResult", "schema": ref("SettingsGetResult")},
        "errors": STANDARD_ERRORS,
        "examples": [example("all", {}, {"values": VALUES_EXAMPLE, "updatedAt": "2025-11-22T10:00:00.000Z"}),
                     example("some", {"keys": ["darkMode", "unset"]},
                             {"values": {"darkMode": True}, "updatedAt": "2025-11-22T10:00:00.000Z"})],
    },
    {
        "name": "settings/set",
        "summary": "Sets keys to values (any JSON but null), durably and for every device; answers every value after "
                   "the change.",
        "description": "All or nothing: the change is checked against the limits on the merged result first "
                       "(QuotaExceeded with data.quota keys or bytes, data.limit, data.size; a change that does not "
                       "grow an exceeded measure is allowed), keys against 1 to 64 bytes (InvalidArgument). A null "
                       "value is InvalidParams (settings/remove removes keys). Not echoed as settings/didChange to "
                       "this connection.",
        "paramStructure": "by-name",
        "params": [param("values", ref("SettingsValues"), required=True)],
        "result": {"name": "SettingsResult", "schema": ref("SettingsResult")},
        "errors": STANDARD_ERRORS,
        "examples": [example("dark mode", {"values": {"darkMode": True}}, {"values": VALUES_EXAMPLE})],
    },
    {
        "name": "settings/remove",
        "summary": "Removes keys (for every device: a removal later than another device's write of the key wins); "
                   "answers every value after the change.",
        "description": "Keys without a value are ignored. Not echoed as settings/didChange to this connection.",
        "paramStructure": "by-name",
        "params": [param("keys", {"type": "array", "items": {"type": "string"}}, required=True)],
        "result": {"name": "SettingsResult", "schema": ref("SettingsResult")},
        "errors": STANDARD_ERRORS,
        "examples": [example("forget", {"keys": ["languages"]}, {"values": {"darkMode": True, "textSize": 17}})],
    },
]

NOTIFICATION = {
    "name": "settings/didChange",
    "summary": "Synced settings changed other than through this connection: values written by another process on "
               "this device (source local) or arriving from another device through the sync engine (source remote).",
    "description": "Sent after the connection's first settings/* request, once per batch of file changes, with one "
                   "notification per source. A key removed is null in `changed`. The connection's own settings/set "
                   "and settings/remove are never echoed (their answers carry the values).",
    "paramStructure": "by-name",
    "params": [
        param("changed", {"type": "object", "minProperties": 1, "propertyNames": ref("SettingsKey")},
              required=True, description="Key to its new value, or null when it was removed."),
        param("source", {"type": "string", "enum": ["local", "remote"]}, required=True,
              description="local: the winning write was made on this device (another process); remote: on another "
                          "device."),
    ],
    "examples": [{"name": "from another device", "params": [
        {"name": "changed", "value": {"darkMode": False, "languages": None}},
        {"name": "source", "value": "remote"}]}],
    "x-notification": "server",
}

# -- error codes ------------------------------------------------------------------

NEW_CODE, AFTER = "QuotaExceeded", "InvalidArgument"

ERROR_PROPERTIES = {
    "quota": {"type": "string", "enum": ["keys", "bytes"],
              "description": "QuotaExceeded: which synced-settings limit the change would break."},
    "key": {"type": "string", "description": "InvalidArgument from settings/*: the key refused."},
}

# Appended (once) to the descriptions of fields other codes share.
SHARED_NOTES = {
    "limit": "QuotaExceeded: the limit (1024 keys or 1048576 bytes); InvalidArgument from settings/*: 64 (bytes of "
             "a key).",
    "size": "QuotaExceeded: the keys or bytes the settings would hold after the change; InvalidArgument from "
            "settings/*: the key's bytes.",
}

ERROR_REQUIRED = {NEW_CODE: ["quota", "limit", "size"]}


def patch_errors(doc: dict) -> None:
    ed = doc["components"]["schemas"]["ErrorData"]
    add_domain_codes(ed, [NEW_CODE], AFTER)
    props = ed["properties"]
    for name, schema in ERROR_PROPERTIES.items():
        props[name] = schema
    for name, note in SHARED_NOTES.items():
        desc = props[name].get("description", "")
        if note not in desc:
            props[name]["description"] = (desc + " " + note).strip()
    rules = [r for r in ed.get("allOf", []) if rule_code(r) not in ERROR_REQUIRED]
    rules += [required_rule(code, required) for code, required in ERROR_REQUIRED.items()]
    ed["allOf"] = rules


def patch_schemas(doc: dict) -> None:
    schemas = doc["components"]["schemas"]
    for name, schema in SCHEMAS.items():
        schemas[name] = schema


def patch_methods(doc: dict) -> None:
    place_methods(doc["methods"], METHODS, "queue/fail")
    place_methods(doc["methods"], [NOTIFICATION], "queue/ready")


def main(argv: list[str]) -> int:
    path = rewrite(argv, SCHEMA, patch_schemas, patch_errors, patch_methods)
    print(f"{path}: settings methods {', '.join(m['name'] for m in METHODS)}, notification {NOTIFICATION['name']}; "
          f"code {NEW_CODE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
