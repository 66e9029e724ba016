#!/usr/bin/env python3
"""Adds what the generated protocol reference and the tool-table check read from schema/openrpc.json:

- `components.tags` and one tag per method (`tags: [{"$ref": "#/components/tags/<id>"}]`), chosen by
  the method's name (TAG_RULES, first match wins). docs/protocol.template.md places each tag's
  reference block with a `<!-- reference: <id> -->` marker; scripts/gen_protocol_docs.py renders it.
- `x-agent-tool` on each file method that an agent tool mirrors: the tool's name, the tool arguments
  renamed from the method's params (`rename`: tool argument -> param), the params the tool leaves out
  (`omit`), and tool-only arguments as "<JSON type>; <description>" (`extra`); and `x-tool-table` on
  `agent/listTools`: every tool's name in the table's stable order. scripts/gen_tool_schemas.py
  generates the tools' inputSchema/outputSchema from these declarations (the tools without a method
  from components.schemas, see schema/patch_tools.py); Tests/e2e/test_method_table.py checks the
  served tool table against them.

Idempotent: running it twice gives the same file; run it again after another patch script adds
methods (a method whose name matches no rule fails loudly). Written back with
json.dump(indent=2, ensure_ascii=False) and a trailing newline.

    python3 schema/patch_reference.py [path/to/openrpc.json]
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SCHEMA = Path(__file__).resolve().parent / "openrpc.json"

# id -> (display name, one-line description). The order is the order of components.tags.
TAGS = {
    "lifecycle": ("Lifecycle", "Starting, identifying and stopping a connection, and log forwarding."),
    "progress": ("Cancellation and progress", "Cancelling requests and reporting work-done progress."),
    "files": ("Workspace files", "The workspace's files: reading, writing, listing, searching, watching."),
    "storage": ("Storage", "The local and cloud roots, migration between them, sync engines' conflicts and placeholders."),
    "settings": ("Settings", "Settings kept per workspace and synced with it."),
    "sessions": ("Agent sessions", "Durable agent sessions, their messages, budgets, checkpoints and the tool table."),
    "host": ("Host lifecycle and conditions", "What the host app tells the server about the app and the device."),
    "queue": ("Offline queue", "Work that waits for the network, durably and idempotently."),
    "debug": ("Debug methods", "Only with --enable-debug-methods: for tests and benchmarks."),
}

TAG_RULES = [
    (r"^(initialize|initialized|shutdown|exit|ping|\$/setTrace|window/logMessage)$", "lifecycle"),
    (r"^(\$/cancelRequest|\$/progress|window/workDoneProgress/cancel)$", "progress"),
    (r"^(saveFile|loadFile|appendFile|listFiles|deleteFile|moveFile|copyFile|createFolder|getFileInfo|searchFiles"
     r"|watchFiles|unwatchFiles|getFileUri|importFile|exportFile|workspace/didChangeFiles)$", "files"),
    (r"^(getStorageInfo|chooseStorage|migrate|listConflicts|resolveConflict|downloadFile)$", "storage"),
    (r"^settings/", "settings"),
    (r"^(session/|agent/)", "sessions"),
    (r"^host/", "host"),
    (r"^queue/", "queue"),
    (r"^debug/", "debug"),
]

# tool name -> (mirrored method, rename tool argument -> param, params left out, tool-only arguments).
MIRRORED_TOOLS = {
    "read_file": ("loadFile", {}, [], {}),
    "write_file": ("saveFile", {"content": "data"}, [], {}),
    "append_file": ("appendFile", {"content": "data"}, [], {}),
    "list_files": ("listFiles", {}, [], {}),
    "delete_file": ("deleteFile", {}, [], {}),
    "move_file": ("moveFile", {}, [], {}),
    "copy_file": ("copyFile", {}, [], {}),
    "create_folder": ("createFolder", {}, [], {}),
    "get_file_info": ("getFileInfo", {}, [], {}),
    "search_files": ("searchFiles", {}, ["workDoneToken"], {}),
    "get_storage_info": ("getStorageInfo", {}, [], {}),
}
TOOL_TABLE = ["read_file", "write_file", "append_file", "list_files", "delete_file", "move_file", "copy_file",
              "create_folder", "get_file_info", "search_files", "get_storage_info", "read_context", "update_context",
              "append_journal"]


def tag_of(name: str) -> str:
    for pattern, tag in TAG_RULES:
        if re.search(pattern, name):
            return tag
    raise SystemExit(f"patch_reference.py: no tag rule matches method {name!r}: add one to TAG_RULES")


def with_key_after(d: dict, key: str, value, after: tuple[str, ...]) -> dict:
    """d with d[key] = value, placed after the last present key of `after` (kept in place if present)."""
    if key in d:
        d[key] = value
        return d
    anchor = max((i for i, k in enumerate(d) if k in after), default=len(d) - 1)
    items = list(d.items())
    items.insert(anchor + 1, (key, value))
    return dict(items)


def patch(doc: dict) -> dict:
    methods = doc["methods"]
    used = {tag_of(m["name"]) for m in methods}
    components = doc.setdefault("components", {})
    components["tags"] = {tid: {"name": title, "description": text}
                          for tid, (title, text) in TAGS.items() if tid in used}
    by_name = {m["name"]: m for m in methods}
    for i, m in enumerate(methods):
        m = with_key_after(m, "tags", [{"$ref": f"#/components/tags/{tag_of(m['name'])}"}], ("description", "summary"))
        m.pop("x-agent-tool", None)
        methods[i] = m
        by_name[m["name"]] = m
    for tool, (method, rename, omit, extra) in MIRRORED_TOOLS.items():
        decl = {"name": tool}
        if rename:
            decl["rename"] = rename
        if omit:
            decl["omit"] = omit
        if extra:
            decl["extra"] = extra
        m = by_name[method]
        methods[methods.index(m)] = with_key_after(m, "x-agent-tool", decl, tuple(m))
    lt = by_name["agent/listTools"]
    methods[methods.index(lt)] = with_key_after(lt, "x-tool-table", TOOL_TABLE, tuple(lt))
    return doc


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA
    doc = json.loads(path.read_text(encoding="utf-8"))
    text = json.dumps(patch(doc), indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
