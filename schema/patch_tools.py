#!/usr/bin/env python3
"""Adds (or replaces) the schemas of the agent tools that mirror no method in schema/openrpc.json.

The tool table (`x-tool-table` on agent/listTools) holds the file tools, whose schemas are their
methods' params and results (`x-agent-tool`, schema/patch_reference.py), and three tools of the
seeds' agent habits that have no method: read_context, update_context and append_journal. Their
schemas are component schemas named by convention, which scripts/gen_tool_schemas.py reads:

    components.schemas.Tool<CamelName>Input    the tool's arguments (an object schema)
    components.schemas.Tool<CamelName>Output   the tool's structuredContent

Idempotent: running it twice gives the same file; the components are placed after ToolResult.
Written back with json.dump(indent=2, ensure_ascii=False) and a trailing newline.

    python3 schema/patch_tools.py [path/to/openrpc.json]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schema_patching import dict_insert_after, ref  # noqa: E402

SCHEMA = Path(__file__).resolve().parent / "openrpc.json"


def obj(description: str, properties: dict, required: list[str]) -> dict:
    s = {"description": description, "type": "object", "properties": properties}
    if required:
        s["required"] = required
    s["additionalProperties"] = False
    return s


def with_description(description: str, schema: dict) -> dict:
    return {"description": description, **schema}


SCHEMAS = {
    "ToolReadContextInput": obj("read_context's arguments: none.", {}, []),
    "ToolReadContextOutput": obj(
        "read_context's result: context.md's text (\"\" while it does not exist).",
        {"content": {"type": "string", "description": "The whole of context.md, as UTF-8 text."},
         "etag": with_description("context.md's etag, for update_context's ifMatch; absent while it does not exist.",
                                  ref("Etag"))},
        ["content"]),
    "ToolUpdateContextInput": obj(
        "update_context's arguments.",
        {"content": {"type": "string", "description": "Text to add (mode append) or the new whole content (mode replace)."},
         "mode": {"type": "string", "enum": ["append", "replace"], "default": "append",
                  "description": "append adds content (with a final newline) to the end; replace writes it whole."},
         "ifMatch": with_description("For replace: the etag read_context returned (PreconditionFailed when context.md "
                                     "changed meanwhile).", ref("Etag"))},
        ["content"]),
    "ToolUpdateContextOutput": with_description("context.md after the write.", ref("WriteResult")),
    "ToolAppendJournalInput": obj(
        "append_journal's arguments.",
        {"entry": {"type": "string", "description": "The observation, in Markdown; written as a list item."},
         "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                  "description": "The journal's day, YYYY-MM-DD; default today (UTC)."}},
        ["entry"]),
    "ToolAppendJournalOutput": with_description("The journal file (Journal/agent/YYYY-MM-DD.md) after the write.",
                                                ref("WriteResult")),
}


def patch(doc: dict) -> dict:
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    after = "ToolResult" if "ToolResult" in schemas else next(reversed(schemas), "")
    for name, schema in SCHEMAS.items():
        schemas = dict_insert_after(schemas, name, schema, after)
        after = name
    doc["components"]["schemas"] = schemas
    return doc


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(patch(doc), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
