#!/usr/bin/env python3
"""Generates the typed layer of the Python client from schema/openrpc.json.

Writes two modules of the ``workspace_bridge`` package:

- ``types.py``: a ``TypedDict`` (or an alias) for every component schema, for inline result and
  notification-param objects, and ``ErrorCode``, the ``Literal`` of every ``error.data.code``;
- ``methods.py``: ``Methods``, one typed method per request of the schema (snake_case names,
  keyword-only snake_case arguments, optional ones ``None`` = omitted) returning a typed
  ``Call``, and typed overloads of ``notifications()`` for every server notification.

The output depends only on the schema's content (schema order, no clocks, no dict-order
accidents), so running it twice gives the same bytes. Usage:

    python3 clients/python/scripts/generate_types.py           # rewrite both modules
    python3 clients/python/scripts/generate_types.py --check   # exit 1 if they are stale
"""
from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "workspace_bridge"
SCHEMA = HERE.parents[2] / "schema" / "openrpc.json"

HEADER = '"""Generated from schema/openrpc.json by clients/python/scripts/generate_types.py: do not edit."""\n'
SKIPPED_METHODS = {"initialize", "shutdown"}  # hand-written in client.py: they change the client's state
RESERVED = {"request", "notify", "send_notification", "notifications", "drain", "close", "closed",
            "failure", "initialize", "shutdown", "exit", "wait_closed", "on_message", "on_send",
            "framing", "process", "returncode", "server_info", "capabilities", "initialize_result"}
NAMED_INLINE = {("ErrorData", "code"): "ErrorCode"}
WIDTH = 100


class GenerationError(Exception):
    pass


def pascal(name: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", name)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def snake(name: str) -> str:
    name = re.sub(r"[^0-9A-Za-z]+", "_", name).strip("_")
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return name.lower()


def py_name(name: str) -> str:
    """A wire name as a Python identifier: snake_case, keywords get a trailing underscore."""
    s = snake(name)
    return s + "_" if keyword.iskeyword(s) or s in {"self", "progress"} else s


def literal(value: Any) -> str:
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    raise GenerationError(f"cannot write {value!r} as a Literal")


def comment_lines(text: str, indent: str, prefix: str = "#: ") -> list[str]:
    text = " ".join(text.split())
    return [indent + prefix + line for line in textwrap.wrap(text, WIDTH - len(indent) - len(prefix))]


def docstring(text: str, indent: str) -> list[str]:
    text = text.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    lines: list[str] = []
    for i, p in enumerate(paragraphs):
        if i:
            lines.append("")
        lines += textwrap.wrap(p, WIDTH - len(indent))
    if len(lines) == 1 and len(lines[0]) + len(indent) + 6 <= WIDTH:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""'] + [f"{indent}{ln}" if ln else "" for ln in lines] + [f'{indent}"""']


def union(members: list[str]) -> str:
    seen: list[str] = []
    for m in members:
        if m not in seen:
            seen.append(m)
    if "Any" in seen:
        return "Any"
    return seen[0] if len(seen) == 1 else f"Union[{', '.join(seen)}]"


class TypesModule:
    """Collects type definitions in dependency order (each name is defined before its users)."""

    def __init__(self, doc: dict[str, Any]):
        self.components: dict[str, Any] = doc.get("components", {}).get("schemas", {})
        self.blocks: dict[str, list[str]] = {}
        self.in_progress: set[str] = set()

    # -- names -------------------------------------------------------------------------------
    def claim(self, name: str) -> str:
        if name in self.blocks or name in self.in_progress:
            raise GenerationError(f"two generated types would be named {name}")
        return name

    def component(self, name: str) -> str:
        if name in self.blocks:
            return name
        if name in self.in_progress:
            return repr(name)  # a cycle: a forward reference
        if name not in self.components:
            raise GenerationError(f"$ref to a missing component {name}")
        self.in_progress.add(name)
        self.blocks[name] = self.definition(name, self.components[name])
        self.in_progress.discard(name)
        return name

    def named(self, name: str, schema: Any) -> str:
        """Define ``schema`` under ``name`` (an alias or a TypedDict) and return the name."""
        self.claim(name)
        self.in_progress.add(name)
        self.blocks[name] = self.definition(name, schema)
        self.in_progress.discard(name)
        return name

    # -- schemas -----------------------------------------------------------------------------
    @staticmethod
    def is_record(schema: Any) -> bool:
        return isinstance(schema, dict) and "properties" in schema and \
            schema.get("type", "object") == "object" and not ("oneOf" in schema or "anyOf" in schema)

    def definition(self, name: str, schema: Any) -> list[str]:
        if self.is_record(schema):
            return self.typed_dict(name, schema)
        lines = comment_lines(schema.get("description", ""), "") if isinstance(schema, dict) else []
        expr = self.expr(schema, name)
        enum = schema.get("enum") if isinstance(schema, dict) else None
        if len(name) + len(expr) + 3 > WIDTH and enum and None not in enum:  # one value a line
            expr = "Literal[\n" + "".join(f"    {literal(v)},\n" for v in enum) + "]"
        return lines + [f"{name} = {expr}"]

    def expr(self, schema: Any, context: str) -> str:
        """A Python type expression for ``schema``; inline records are defined as ``context``."""
        if not isinstance(schema, dict):
            return "Any"
        if "$ref" in schema:
            return self.component(schema["$ref"].rsplit("/", 1)[-1])
        if "allOf" in schema:  # the schema's allOf narrows a $ref (or adds conditions): the $ref's type
            refs = [m for m in schema["allOf"] if isinstance(m, dict) and "$ref" in m]
            return self.expr(refs[0], context) if refs else "Any"
        if schema.get("not") == {}:
            return "NoReturn"
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return union([self.expr(m, f"{context}{i}" if i else context)
                              for i, m in enumerate(schema[key])])
        if "const" in schema:
            return f"Literal[{literal(schema['const'])}]"
        if "enum" in schema:
            values = [v for v in schema["enum"] if v is not None]
            lit = f"Literal[{', '.join(literal(v) for v in values)}]"
            return union([lit, "None"]) if None in schema["enum"] else lit
        t = schema.get("type")
        if isinstance(t, list):
            return union([self.expr({**schema, "type": one}, context) for one in t])
        if t is None and "properties" in schema:
            t = "object"
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            return f"List[{self.expr(schema.get('items'), context + 'Item')}]"
        if t == "object":
            if "properties" in schema:
                return self.named(self.claim(context), schema)
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                return f"Dict[str, {self.expr(extra, context + 'Value')}]"
            return "Dict[str, Any]"
        return "Any"

    def typed_dict(self, name: str, schema: dict[str, Any]) -> list[str]:
        props: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        fields = []
        for key, sub in props.items():
            forced = NAMED_INLINE.get((name, key))
            if forced:
                t = self.named(forced, sub) if forced not in self.blocks else forced
            else:
                t = self.expr(sub, name + pascal(key))
            desc = sub.get("description", "") if isinstance(sub, dict) else ""
            fields.append((key, t, desc, key in required))
        doc = schema.get("description", "")
        identifiers = all(k.isidentifier() and not keyword.iskeyword(k) for k, *_ in fields)
        req = [f for f in fields if f[3]]
        opt = [f for f in fields if not f[3]]
        out: list[str] = []
        if identifiers:
            def body(group: list[tuple[str, str, str, bool]]) -> list[str]:
                lines: list[str] = []
                for key, t, desc, _ in group:
                    lines += comment_lines(desc, "    ") + [f"    {key}: {t}"]
                return lines
            if req and opt:
                out += [f"class _{name}Required(TypedDict):"] + body(req) + ["", ""]
                out += [f"class {name}(_{name}Required, total=False):"]
                out += docstring(doc, "    ") if doc else []
                out += body(opt)
            else:
                total = "" if req or not opt else ", total=False"
                out += [f"class {name}(TypedDict{total}):"]
                out += docstring(doc, "    ") if doc else []
                out += body(req or opt) if fields else ([] if doc else ["    pass"])
            return out

        def functional(type_name: str, group: list[tuple[str, str, str, bool]], total: bool) -> list[str]:
            lines = [f"{type_name} = TypedDict(\"{type_name}\", {{"]
            for key, t, desc, _ in group:
                lines += comment_lines(desc, "    ", "# ") + [f"    {literal(key)}: {t},"]
            return lines + ["}" + ("" if total else ", total=False") + ")"]
        bases = []
        if req:
            out += functional(f"_{name}Required", req, True) + ["", ""]
            bases.append(f"_{name}Required")
        if opt:
            out += functional(f"_{name}Optional", opt, False) + ["", ""]
            bases.append(f"_{name}Optional")
        out += [f"class {name}({', '.join(bases) or 'TypedDict'}):"]
        out += docstring(doc, "    ") if doc else ["    pass"]
        return out

    def render(self) -> str:
        body = "\n\n\n".join("\n".join(lines) for lines in self.blocks.values())
        return (HEADER + "from __future__ import annotations\n\n"
                + typing_import(body, ["Any", "Dict", "List", "Literal", "NoReturn", "TypedDict", "Union"])
                + "\n\n" + body + "\n")


def typing_import(body: str, names: list[str]) -> str:
    """``from typing import ...`` of the names ``body`` uses."""
    used = [n for n in names if re.search(rf"\b{n}\b", body)]
    return f"from typing import {', '.join(used)}\n" if used else ""


def param_object(params: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "object",
            "properties": {p["name"]: {**p["schema"], **({"description": p["description"]}
                                                         if p.get("description") else {})}
                           for p in params},
            "required": [p["name"] for p in params if p.get("required")]}


def method_block(types: TypesModule, m: dict[str, Any]) -> list[str]:
    wire = m["name"]
    name = py_name(wire)
    if name in RESERVED:
        raise GenerationError(f"method {wire} would shadow the client's own {name}")
    result = m.get("result", {})
    rschema = result.get("schema", {})
    if "$ref" in rschema or "allOf" in rschema or rschema.get("not") == {} or rschema.get("type") == "null":
        rtype = types.expr(rschema, pascal(wire) + "Result")
    else:
        rname = result.get("name", "")
        rname = rname if rname and rname[0].isupper() and rname not in types.components \
            and rname not in types.blocks else pascal(wire) + "Result"
        rtype = types.named(rname, rschema)
    args: list[str] = []
    required: list[str] = []
    optional: list[str] = []
    has_token = False
    for p in m.get("params", []):
        arg = py_name(p["name"])
        ptype = types.expr(p["schema"], pascal(wire) + pascal(p["name"]))
        if p.get("required"):
            args.append(f"{arg}: {ptype}")
            required.append(f"{literal(p['name'])}: {arg}")
        else:
            args.append(f"{arg}: Optional[{ptype}] = None")
            optional.append(f"{literal(p['name'])}: {arg}")
        has_token = has_token or p["name"] == "workDoneToken"
    if has_token:
        args.append("progress: bool = False")
    signature = f"    def {name}(self" + (", *, " + ", ".join(args) if args else "") + f") -> Call[{rtype}]:"
    if len(signature) > WIDTH:
        signature = f"    def {name}(\n        self, *,\n" + "".join(f"        {a},\n" for a in args) + \
            f"    ) -> Call[{rtype}]:"
    doc = m.get("summary", "")
    if m.get("description"):
        doc += "\n\n" + m["description"]
    for flag, note in (("x-debug", "Only with --enable-debug-methods."),
                       ("x-host-only", "For a host process on the same machine.")):
        if m.get(flag):
            doc += "\n\n" + note
    doc += f"\n\nSends ``{wire}``." + (" ``progress=True`` asks for ``$/progress`` (see Call.progress)."
                                       if has_token else "")
    lines = [signature] + docstring(doc, "        ")
    call_args = [repr(wire)]
    if required or optional:
        built = "build_params({" + ", ".join(required) + "}, {" + ", ".join(optional) + "})"
        if len(built) + 12 > WIDTH:
            built = ("build_params(\n                {" + ", ".join(required) + "},\n                {"
                     + "".join(f"\n                    {o}," for o in optional)
                     + ("\n                }," if optional else "},") + "\n            )")
        call_args.append(built)
    if has_token:
        call_args.append("progress=progress")
    call = "        return self.request(" + ", ".join(call_args) + ")"
    if len(call) > WIDTH:
        call = "        return self.request(\n" + "".join(f"            {a},\n" for a in call_args) + "        )"
    return lines + [call]


def notification_block(types: TypesModule, server_notes: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for m in server_notes:
        ptype = types.named(pascal(m["name"]) + "Params", {**param_object(m.get("params", [])),
                                                          "description": m.get("summary", "")})
        lines += ["    @overload", f"    def notifications(self, method: Literal[{literal(m['name'])}]) "
                  f"-> Stream[{ptype}]: ...", ""]
    lines += ["    @overload", "    def notifications(self, method: str) -> Stream[Any]: ...", "",
              "    def notifications(self, method: str) -> Stream[Any]:"]
    lines += docstring(
        "The params of every notification ``method`` the server sends from now on, as an async "
        "iterator (see Stream). Subscribing is immediate, so nothing sent after this call is "
        "missed; close the stream (or use it as an async context manager) to unsubscribe.", "        ")
    return lines + ["        return self._subscribe(method)"]


def render(doc: dict[str, Any]) -> dict[str, str]:
    """The generated modules: file name → content."""
    types = TypesModule(doc)
    for name in types.components:
        types.component(name)
    for (owner, member), alias in NAMED_INLINE.items():
        if alias not in types.blocks:
            raise GenerationError(f"{owner}.{member} (generated as {alias}) is no longer in the schema")
    methods = [m for m in doc["methods"] if "x-notification" not in m and m["name"] not in SKIPPED_METHODS]
    blocks = [method_block(types, m) for m in methods]
    server_notes = [m for m in doc["methods"] if m.get("x-notification") == "server"]
    blocks.append(notification_block(types, server_notes))
    types_text = types.render()
    code = "\n".join("\n".join(b) for b in blocks)
    used = sorted(n for n in types.blocks if not n.startswith("_") and
                  re.search(rf"\b{re.escape(n)}\b", code))
    imports = "".join(f"    {n},\n" for n in used)
    methods_text = (
        HEADER + "from __future__ import annotations\n\n"
        + typing_import(code, ["Any", "Dict", "List", "Literal", "NoReturn", "Optional", "Union", "overload"])
        + "\nfrom .call import Call\nfrom .connection import Connection, build_params\n"
        "from .streams import Stream\n"
        + (f"from .types import (\n{imports})\n" if used else "")
        + "\n\nclass Methods(Connection):\n"
        + "\n".join(docstring("A typed method for every request of the schema (initialize and shutdown "
                              "are in Client, as they change its state), and typed notification "
                              "streams. Each method writes its request at once and returns the Call.",
                              "    "))
        + "\n\n" + "\n\n".join("\n".join(b) for b in blocks) + "\n")
    return {"types.py": types_text, "methods.py": methods_text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schema", type=Path, default=SCHEMA)
    parser.add_argument("--out", type=Path, default=PACKAGE, help="the package folder to write into")
    parser.add_argument("--check", action="store_true", help="only report whether the files are current")
    args = parser.parse_args(argv)
    files = render(json.loads(args.schema.read_text(encoding="utf-8")))
    stale = [n for n, text in files.items()
             if not (args.out / n).is_file() or (args.out / n).read_text(encoding="utf-8") != text]
    if args.check:
        for n in stale:
            print(f"{args.out / n} is stale: run {Path(__file__).name}", file=sys.stderr)
        return 1 if stale else 0
    for n in stale:
        (args.out / n).write_text(files[n], encoding="utf-8")
        print(f"wrote {args.out / n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
