"""Helpers shared by the scripts that patch openrpc.json (patch_storage.py, patch_agent.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def param(name, schema, required=False, description=None) -> dict:
    cd = {"name": name}
    if description:
        cd["description"] = description
    cd["required"] = required
    cd["schema"] = schema
    return cd


def example(name, params: dict, result) -> dict:
    return {"name": name, "params": [{"name": k, "value": v} for k, v in params.items()],
            "result": {"name": "result", "value": result}}


def insert_after(items: list, value: str, after: str) -> list:
    if value in items:
        return items
    i = items.index(after) + 1 if after in items else len(items)
    return items[:i] + [value] + items[i:]


def dict_insert_after(d: dict, key: str, value, after: str) -> dict:
    if key in d:
        d[key] = value
        return d
    out = {}
    for k, v in d.items():
        out[k] = v
        if k == after:
            out[key] = value
    if key not in out:
        out[key] = value
    return out


# The protocol errors every method can answer with (components/errors).
STANDARD_ERRORS = [{"$ref": f"#/components/errors/{n}"} for n in
                   ("InvalidRequest", "InvalidParams", "InternalError", "ServerNotInitialized", "RequestCancelled",
                    "RequestFailed")]


def place_methods(methods: list, new: list, after: str) -> None:
    """Puts `new` (copies) where they already are, else after the method named `after` (else at
    the end): running a script again leaves the order as it was."""
    wanted = {m["name"] for m in new}
    present = [i for i, m in enumerate(methods) if m["name"] in wanted]
    if present:
        at = present[0]
        methods[:] = [m for m in methods if m["name"] not in wanted]
    else:
        names = [m["name"] for m in methods]
        at = names.index(after) + 1 if after in names else len(methods)
    methods[at:at] = [json.loads(json.dumps(m)) for m in new]


def rewrite(argv: list[str], default: Path, *patches: Callable[[dict], None]) -> Path:
    """Loads the document (argv[1], else `default`), applies `patches` in order, and writes it
    back with json.dump(indent=2, ensure_ascii=False) and a trailing newline."""
    path = Path(argv[1]) if len(argv) > 1 else default
    doc = json.loads(path.read_text(encoding="utf-8"))
    for patch in patches:
        patch(doc)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return path


def add_domain_codes(ed: dict, codes: list[str], after: str) -> None:
    """Adds domain codes (-32803) to ErrorData's enum, x-domain-codes and x-error-codes, in
    order after `after` (each already present stays where it is)."""
    enum = ed["properties"]["code"]["enum"]
    domain = ed.get("x-domain-codes", [])
    table = ed["x-error-codes"]
    prev = after
    for code in codes:
        enum = insert_after(enum, code, prev)
        domain = insert_after(domain, code, prev)
        table = dict_insert_after(table, code, -32803, prev)
        prev = code
    ed["properties"]["code"]["enum"] = enum
    if "x-domain-codes" in ed:
        ed["x-domain-codes"] = domain
    ed["x-error-codes"] = table


def rule_code(rule: dict):
    """The data.code an ErrorData `allOf` rule is about (None for other rules)."""
    return rule.get("if", {}).get("properties", {}).get("code", {}).get("const")


def required_rule(code: str, required: list[str]) -> dict:
    """An ErrorData `allOf` rule: when data.code is `code`, `required` fields must be present."""
    return {"if": {"properties": {"code": {"const": code}}, "required": ["code"]}, "then": {"required": required}}
