"""Helpers shared by the scripts that patch openrpc.json (patch_storage.py, patch_agent.py)."""
from __future__ import annotations


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
