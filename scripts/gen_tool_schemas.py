#!/usr/bin/env python3
"""Generates Sources/BridgeServer/Tools/ToolSchemas.swift, the agent tools' JSON Schemas, from
schema/openrpc.json, so the tool table and the method table have one source.

For each tool of `x-tool-table` (on agent/listTools), in that order:

- a tool that mirrors a method (`x-agent-tool` on the method): `inputSchema` is the method's params
  as one object schema: each param a property (renamed by `rename`, less `omit`, plus `extra`
  given as "<JSON type>; <description>"), in the params' order, its schema with every `$ref`
  inlined and the param's description, defaults and limits kept; required as the params are;
  `additionalProperties: false`. `outputSchema` is the method's result schema, `$ref`s inlined.
- any other tool: `components.schemas.Tool<CamelName>Input` and `...Output` (written in schema/openrpc.json),
  `$ref`s inlined.
- `pathArguments`: the arguments whose schema is a WorkspacePath (a `$ref` to it) or an array of
  them, which the MCP roots scope checks (each path of an array).
- `mirrors` (a mirroring tool only): the method, its `rename` (tool argument -> param) and the names
  of its `extra` arguments, so the server runs the method's own declaration for the tool.

The output is a pure function of the schema (no dates, no environment). The Swift file holds the
table's facts (names, heavy, mirrors, path arguments) as Swift values and the input and output
schemas as two JSON texts (tool name -> schema), parsed once with the project's JSON codec; nothing in
it looks a value up and unwraps it (scripts/check_crash_points.py).

    python3 scripts/gen_tool_schemas.py            # writes the Swift file
    python3 scripts/gen_tool_schemas.py --check    # exit 1 when the Swift file is not current
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "schema" / "openrpc.json"
OUTPUT = REPO / "Sources" / "BridgeServer" / "Tools" / "ToolSchemas.swift"
PATH_SCHEMA = "#/components/schemas/WorkspacePath"
ANNOTATIONS = {"description", "title", "default", "examples", "$comment"}
DATA_KEYWORDS = {"enum", "const", "default", "examples"}
JSON_TYPES = {"string", "integer", "number", "boolean", "object", "array", "null"}


class SchemaError(Exception):
    pass


def camel(tool: str) -> str:
    return "".join(part.capitalize() for part in tool.split("_"))


class Generator:
    def __init__(self, doc: dict):
        self.doc = doc
        self.components: dict = doc.get("components", {}).get("schemas", {})
        self.methods = {m["name"]: m for m in doc["methods"]}

    def target(self, pointer: str) -> dict:
        prefix = "#/components/schemas/"
        if not pointer.startswith(prefix) or pointer[len(prefix):] not in self.components:
            raise SchemaError(f"unresolvable $ref {pointer!r}")
        return self.components[pointer[len(prefix):]]

    def inline(self, schema, seen: tuple[str, ...] = ()):
        """`schema` with every `$ref` replaced by what it names. Keywords beside a `$ref` are kept
        where the `$ref` stood; they may only be annotations that the target also has (the sibling
        wins), so the merged schema accepts exactly what both did."""
        if isinstance(schema, list):
            return [self.inline(s, seen) for s in schema]
        if not isinstance(schema, dict):
            return schema
        out: dict = {}
        for key, value in schema.items():
            if key in DATA_KEYWORDS:
                out[key] = value
            elif key == "$ref":
                if value in seen:
                    raise SchemaError(f"recursive $ref {value!r} cannot be inlined")
                resolved = self.inline(self.target(value), seen + (value,))
                clash = (set(resolved) & set(schema)) - ANNOTATIONS
                if clash:
                    raise SchemaError(f"$ref {value!r} and its siblings both set {sorted(clash)}")
                out.update({k: v for k, v in resolved.items() if k not in schema})
            else:
                out[key] = self.inline(value, seen)
        return out

    def mirrored(self) -> dict[str, dict]:
        by_tool = {}
        for m in self.doc["methods"]:
            if "x-agent-tool" in m:
                by_tool[m["x-agent-tool"]["name"]] = m
        return by_tool

    def from_method(self, tool: str, m: dict) -> tuple[dict, dict, list[str]]:
        decl = m["x-agent-tool"]
        to_arg = {param: arg for arg, param in decl.get("rename", {}).items()}
        omit = set(decl.get("omit", []))
        known = {cd["name"] for cd in m["params"]}
        for name in set(to_arg) | omit:
            if name not in known:
                raise SchemaError(f"{tool}: x-agent-tool names {name!r}, not a param of {m['name']}")
        properties, required, paths = {}, [], []
        for cd in m["params"]:
            if cd["name"] in omit:
                continue
            arg = to_arg.get(cd["name"], cd["name"])
            schema = self.inline(cd["schema"])
            if cd.get("description"):
                schema = {"description": cd["description"], **{k: v for k, v in schema.items() if k != "description"}}
            properties[arg] = schema
            if cd.get("required"):
                required.append(arg)
            if cd["schema"].get("$ref") == PATH_SCHEMA:
                paths.append(arg)
        for arg, text in decl.get("extra", {}).items():
            kind, _, description = text.partition("; ")
            if kind not in JSON_TYPES or not description:
                raise SchemaError(f"{tool}: extra {arg!r} must read \"<JSON type>; <description>\", not {text!r}")
            properties[arg] = {"description": description, "type": kind}
        inputs = {"type": "object", "properties": properties}
        if required:
            inputs["required"] = required
        inputs["additionalProperties"] = False
        return inputs, self.inline(m["result"]["schema"]), paths

    def from_components(self, tool: str) -> tuple[dict, dict, list[str]]:
        names = [f"Tool{camel(tool)}Input", f"Tool{camel(tool)}Output"]
        missing = [n for n in names if n not in self.components]
        if missing:
            raise SchemaError(f"{tool} mirrors no method and components.schemas lacks {', '.join(missing)} "
                              "(declare them in schema/openrpc.json)")
        source = self.components[names[0]]
        inputs = self.inline(source)
        if inputs.get("type") != "object" or inputs.get("additionalProperties") is not False:
            raise SchemaError(f"{names[0]} must be an object schema with additionalProperties: false")
        paths = [a for a, s in source.get("properties", {}).items()
                 if s.get("$ref") == PATH_SCHEMA or (s.get("type") == "array" and s.get("items", {}).get("$ref") == PATH_SCHEMA)]
        return inputs, self.inline(self.components[names[1]]), paths

    def tools(self) -> dict[str, dict]:
        """tool name -> {"input", "output", "pathArguments", "heavy"}, in x-tool-table order."""
        table = self.methods["agent/listTools"].get("x-tool-table")
        heavy = self.methods["agent/listTools"].get("x-tool-heavy", [])
        if set(heavy) - set(table):
            raise SchemaError(f"x-tool-heavy names tools missing from x-tool-table: {sorted(set(heavy) - set(table))}")
        if not table:
            raise SchemaError("agent/listTools has no x-tool-table")
        mirrored = self.mirrored()
        stray = set(mirrored) - set(table)
        if stray:
            raise SchemaError(f"x-agent-tool names tools missing from x-tool-table: {sorted(stray)}")
        out = {}
        for tool in table:
            inputs, output, paths = (self.from_method(tool, mirrored[tool]) if tool in mirrored
                                     else self.from_components(tool))
            out[tool] = {"input": inputs, "output": output, "pathArguments": paths, "heavy": tool in heavy}
            if tool in mirrored:
                decl = mirrored[tool]["x-agent-tool"]
                out[tool]["mirrors"] = {"method": mirrored[tool]["name"], "rename": decl.get("rename", {}),
                                        "extra": sorted(decl.get("extra", {}))}
        return out


SWIFT = """\
// Generated by scripts/gen_tool_schemas.py from schema/openrpc.json: do not edit; change the schema
// and run the script (`make generate`).

import JSON

/// The agent tools' JSON Schemas, generated from schema/openrpc.json: a tool that mirrors a file
/// method (`x-agent-tool`) takes exactly that method's params (renamed as declared) and answers its
/// result; the others use `components.schemas.Tool<Name>Input`/`Output`. Every `$ref` is inlined.
/// The table's facts are Swift values; the schemas are JSON texts, parsed once, on first use.
enum ToolSchemas {
    /// Tool names in the table's stable order (`x-tool-table` on agent/listTools).
    static let names: [String] = @NAMES@
    /// Each tool's `inputSchema` (an object schema with `additionalProperties: false`).
    static let input: [String: JSON] = parse(inputText)
    /// Each tool's `outputSchema`: the schema of its `structuredContent`.
    static let output: [String: JSON] = parse(outputText)
    /// The tools the device policy treats as heavy work (`x-tool-heavy` on agent/listTools).
    static let heavy: Set<String> = @HEAVY@
    /// The method a tool mirrors (`x-agent-tool`), with its renames (tool argument -> method
    /// param) and extra arguments; absent for a tool of its own.
    static let mirrors: [String: (method: String, rename: [String: String], extra: [String])] = @MIRRORS@
    /// Each tool's arguments that are workspace paths (an absent one means the workspace root).
    static let pathArguments: [String: [String]] = @PATHS@

    /// A text below (one object: tool name -> schema) as a table. The generator wrote it from
    /// parsed JSON, so a failure here is a broken generator, caught by the first test that lists tools.
    private static func parse(_ text: String) -> [String: JSON] {
        let parsed: JSON
        do { parsed = try JSONCodec.decode(text) } catch { fatalError("ToolSchemas.swift holds invalid JSON: \\(error)") }
        guard case .object(let tools) = parsed else { fatalError("ToolSchemas.swift holds no JSON object") }
        return Dictionary(uniqueKeysWithValues: tools.members.map { ($0.key, $0.value) })
    }

    private static let inputText = #\"\"\"
@INPUT@
\"\"\"#

    private static let outputText = #\"\"\"
@OUTPUT@
\"\"\"#
}
"""

SAFE_NAME = re.compile(r"^[A-Za-z0-9_./$-]+$")


def swift_string(s: str) -> str:
    """A Swift string literal of a tool, method or argument name (checked plain, so no escaping)."""
    if not SAFE_NAME.match(s):
        raise SchemaError(f"name {s!r} is not plain enough for a Swift string literal")
    return f'"{s}"'


def swift_strings(items) -> str:
    return "[" + ", ".join(swift_string(s) for s in items) + "]"


def swift_table(rows: list[tuple[str, str]], empty: str = "[:]") -> str:
    if not rows:
        return empty
    return "[\n" + "".join(f"        {k}: {v},\n" for k, v in rows) + "    ]"


def json_text(value) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    if '"#' in text or "\\#" in text:
        raise SchemaError("a schema holds '\"#' or '\\#', which would end the Swift raw string")
    return text


def render(doc: dict) -> str:
    tools = Generator(doc).tools()
    names = list(tools)
    mirrors = []
    for name, t in tools.items():
        if "mirrors" in t:
            m = t["mirrors"]
            rename = ", ".join(f"{swift_string(k)}: {swift_string(v)}" for k, v in m["rename"].items()) or ":"
            mirrors.append((swift_string(name), f"(method: {swift_string(m['method'])}, rename: [{rename}], "
                                                 f"extra: {swift_strings(m['extra'])})"))
    filled = {
        "@NAMES@": "[\n" + "".join(f"        {swift_string(n)},\n" for n in names) + "    ]",
        "@HEAVY@": swift_strings(n for n in names if tools[n]["heavy"]),
        "@MIRRORS@": swift_table(mirrors),
        "@PATHS@": swift_table([(swift_string(n), swift_strings(tools[n]["pathArguments"])) for n in names]),
        "@INPUT@": json_text({n: tools[n]["input"] for n in names}),
        "@OUTPUT@": json_text({n: tools[n]["output"] for n in names}),
    }
    out = SWIFT
    for key, value in filled.items():
        out = out.replace(key, value)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the Swift file is not current")
    ap.add_argument("--schema", type=Path, default=SCHEMA)
    ap.add_argument("--output", type=Path, default=OUTPUT)
    args = ap.parse_args()
    try:
        swift = render(json.loads(args.schema.read_text(encoding="utf-8")))
    except SchemaError as e:
        print(f"gen_tool_schemas.py: {e}", file=sys.stderr)
        return 2
    current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
    if args.check:
        if current != swift:
            print(f"{args.output.relative_to(REPO) if args.output.is_relative_to(REPO) else args.output} is not current: "
                  "run python3 scripts/gen_tool_schemas.py", file=sys.stderr)
            return 1
        return 0
    if current != swift:
        args.output.write_text(swift, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
