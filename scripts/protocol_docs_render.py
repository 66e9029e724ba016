"""The Markdown pieces of docs/protocol.md, rendered from an OpenRPC document (gen_protocol_docs.py).

Links are written as placeholders (`@@link:KIND:NAME@@`) and resolved by `finish`, once the whole
page is known, to GitHub's heading anchors (lower case, punctuation dropped, spaces to hyphens,
`-1`, `-2`… for repeats), so they stay right whatever headings the template has.
"""
from __future__ import annotations

import json
import re
from typing import Any

JSON_INLINE_WIDTH = 100


def cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(value: Any) -> str:
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def slug(heading: str) -> str:
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def pretty(value: Any, indent: int = 0, column: int | None = None) -> str:
    """JSON on one line when it fits JSON_INLINE_WIDTH from `column` (default: `indent`), else objects
    and arrays broken one member a line, indented by two more than `indent`."""
    one = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if len(one) + (indent if column is None else column) <= JSON_INLINE_WIDTH or not isinstance(value, (dict, list)) or not value:
        return one
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        inner = []
        for k, v in value.items():
            key = f"{pad}{json.dumps(k, ensure_ascii=False)}: "
            inner.append(key + pretty(v, indent + 2, len(key) + 1))
        return "{\n" + ",\n".join(inner) + "\n" + " " * indent + "}"
    inner = [pad + pretty(v, indent + 2) for v in value]
    return "[\n" + ",\n".join(inner) + "\n" + " " * indent + "]"


def envelope(msg: dict) -> str:
    """A JSON-RPC message: the envelope on the first line, its params/result/error laid out by `pretty`."""
    one = json.dumps(msg, ensure_ascii=False, separators=(", ", ": "))
    if len(one) <= JSON_INLINE_WIDTH:
        return one
    *head, last = msg.items()
    start = json.dumps(dict(head), ensure_ascii=False, separators=(", ", ": "))[:-1]
    key = f"{start}, {json.dumps(last[0])}: "
    return f"{key}{pretty(last[1], 0, len(key) + 1)}}}"


class Renderer:
    TOC_PLACEHOLDER = "@@toc@@"

    def __init__(self, doc: dict):
        self.doc = doc
        self.schemas: dict = doc.get("components", {}).get("schemas", {})
        self.errors: dict = doc.get("components", {}).get("errors", {})
        self.tags: dict = doc.get("components", {}).get("tags", {})
        self.headings: list[tuple[str, str]] = []  # (heading line, link key) in emission order

    # -- helpers -----------------------------------------------------------------------------
    def heading(self, level: int, text: str, key: str) -> str:
        line = "#" * level + " " + text
        self.headings.append((line, key))
        return line

    def link(self, kind: str, name: str, text: str | None = None) -> str:
        return f"[{text or '`' + name + '`'}](#@@link:{kind}:{name}@@)"

    def resolve(self, schema: dict) -> dict:
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 20:
            schema = self.schemas[schema["$ref"].rsplit("/", 1)[-1]]
            seen += 1
        return schema

    def tag_id(self, method: dict) -> str | None:
        for t in method.get("tags", []):
            if "$ref" in t:
                return t["$ref"].rsplit("/", 1)[-1]
        return None

    def tags_in_use(self) -> list[str]:
        ids: list[str] = []
        for m in self.doc["methods"]:
            t = self.tag_id(m)
            if t is None:
                raise ValueError(f"method {m['name']} has no tag: give it one of components.tags in schema/openrpc.json")
            if t not in self.tags:
                raise ValueError(f"method {m['name']}: tag {t} is not in components.tags")
            if t not in ids:
                ids.append(t)
        return sorted(ids, key=list(self.tags).index)

    def methods_of(self, tag: str) -> list[dict]:
        return [m for m in self.doc["methods"] if self.tag_id(m) == tag]

    # -- schema to text ----------------------------------------------------------------------
    def type_of(self, s: Any) -> str:
        if s is True or s == {} or (isinstance(s, dict) and set(s) <= {"description", "title"}):
            return "any"
        if s is False or s == {"not": {}}:
            return "never"
        if "$ref" in s:
            return self.link("type", s["$ref"].rsplit("/", 1)[-1])
        if "const" in s:
            return code(s["const"])
        if "enum" in s:
            return " | ".join(code(v) for v in s["enum"])
        for key in ("oneOf", "anyOf"):
            if key in s:
                return " | ".join(self.type_of(x) for x in s[key])
        if "allOf" in s:
            return " & ".join(self.type_of(x) for x in s["allOf"])
        t = s.get("type")
        if isinstance(t, list):
            return " | ".join(self.type_of({**s, "type": x}) for x in t)
        if t == "array":
            items = s.get("items")
            return "array" + (f" of {self.type_of(items)}" if items else "") + self.bounds(s, "minItems", "maxItems")
        if t == "object" and s.get("properties"):
            return "`" + self.keys(s) + "`"
        if t in ("integer", "number"):
            return t + self.bounds(s, "minimum", "maximum")
        if t == "string":
            extra = f" ({s['format']})" if "format" in s else ""
            extra += f" matching `{s['pattern']}`" if "pattern" in s else ""
            return "string" + extra + self.bounds(s, "minLength", "maxLength", unit=" chars")
        return t or "any"

    @staticmethod
    def bounds(s: dict, lo: str, hi: str, unit: str = "") -> str:
        if lo in s and hi in s:
            return f" ({s[lo]}…{s[hi]}{unit})"
        if lo in s:
            return f" (≥ {s[lo]}{unit})"
        if hi in s:
            return f" (≤ {s[hi]}{unit})"
        return ""

    def keys(self, s: dict) -> str:
        s = self.resolve(s)
        req = set(s.get("required", []))
        return "{" + ", ".join(k + ("" if k in req else "?") for k in s.get("properties", {})) + "}"

    def describe(self, cd_or_schema: dict) -> str:
        s = cd_or_schema.get("schema", cd_or_schema)
        return cd_or_schema.get("description") or (s.get("description", "") if isinstance(s, dict) else "")

    def default_of(self, s: dict) -> str:
        if isinstance(s, dict) and "default" in s:
            return code(s["default"])
        r = self.resolve(s) if isinstance(s, dict) else {}
        return code(r["default"]) if isinstance(r, dict) and "default" in r else ""

    def fields_table(self, s: dict) -> list[str]:
        req = set(s.get("required", []))
        rows = ["| field | type | required | description |", "| --- | --- | --- | --- |"]
        for name, p in s["properties"].items():
            rows.append(f"| `{name}` | {cell(self.type_of(p))} | {'yes' if name in req else 'no'} | {cell(self.describe(p))} |")
        return rows

    # -- generated sections ------------------------------------------------------------------
    def errors_table(self) -> list[str]:
        codes = self.schemas["ErrorData"]["x-error-codes"]
        rows = ["| `error.code` | name | meaning | `data.code` values |", "| --- | --- | --- | --- |"]
        for name, e in self.errors.items():
            values = ", ".join(f"`{c}`" for c, n in codes.items() if n == e["code"])
            rows.append(f"| {e['code']} | {name} | {cell(e['message'])} | {values} |")
        return rows

    def tools_table(self) -> list[str]:
        methods = {m["name"]: m for m in self.doc["methods"]}
        table = methods["agent/listTools"].get("x-tool-table", [])
        mirror = {m["x-agent-tool"]["name"]: m for m in self.doc["methods"] if "x-agent-tool" in m}
        rows = ["| tool | mirrors | arguments differ from the method's params |", "| --- | --- | --- |"]
        for name in table:
            m = mirror.get(name)
            if m is None:
                rows.append(f"| `{name}` | — | its own (see the tool's `inputSchema`) |")
                continue
            t = m["x-agent-tool"]
            diffs = [f"`{a}` is `{p}`" for a, p in t.get("rename", {}).items()]
            diffs += [f"no `{p}`" for p in t.get("omit", [])]
            diffs += [f"`{a}`: {x}" for a, x in t.get("extra", {}).items()]
            rows.append(f"| `{name}` | {self.link('method', m['name'])} | {cell('; '.join(diffs) or 'none')} |")
        return rows

    def reference(self, tag: str) -> list[str]:
        ms = self.methods_of(tag)
        out = [self.heading(3, f"Reference: {self.tags[tag]['name']}", f"tag:{tag}"), "",
               "| method | kind | summary |", "| --- | --- | --- |"]
        for m in ms:
            out.append(f"| {self.link('method', m['name'])} | {self.kind(m)} | {cell(m.get('summary', ''))} |")
        for m in ms:
            out += [""] + self.method(m)
        return out

    @staticmethod
    def kind(m: dict) -> str:
        side = m.get("x-notification")
        if side == "client":
            return "notification (client → server)"
        if side == "server":
            return "notification (server → client)"
        return "request"

    def method(self, m: dict) -> list[str]:
        name = m["name"]
        flags = [self.kind(m).capitalize()]
        if m.get("x-host-only"):
            flags.append("host only (not an agent tool)")
        if m.get("x-debug"):
            flags.append("only with `--enable-debug-methods`")
        if "x-agent-tool" in m:
            flags.append(f"agent tool `{m['x-agent-tool']['name']}`")
        out = [self.heading(4, f"`{name}`", f"method:{name}"), "", "*" + "; ".join(flags) + ".*", ""]
        for text in (m.get("summary"), m.get("description")):
            if text:
                out += [text, ""]
        if "x-retry" in m:
            out += [self.retry_line(m["x-retry"]), ""]
        if "x-capabilities" in m:
            caps = ", ".join(f"`{c}`" for c in m["x-capabilities"]) or "none (only the connection itself)"
            out += [f"**Reaches** ({self.link('section', 'capabilities', 'capabilities')}): {caps}.", ""]
        out += ["**Params**", ""]
        if m["params"]:
            out += ["| name | type | required | default | description |", "| --- | --- | --- | --- | --- |"]
            for cd in m["params"]:
                out.append(f"| `{cd['name']}` | {cell(self.type_of(cd['schema']))} | {'yes' if cd.get('required') else 'no'} "
                           f"| {cell(self.default_of(cd['schema']))} | {cell(self.describe(cd))} |")
        else:
            out.append("None (`params` may be omitted or `{}`).")
        out.append("")
        if "result" in m:
            out += self.result(m["result"])
        if m.get("errors"):
            out += [self.errors_line(m), ""]
        for ex in m.get("examples", []):
            out += self.example(m, ex)
        return out[:-1] if out and out[-1] == "" else out

    RETRY_KINDS = {"safe": "safe to repeat", "idempotent": "a repeat changes nothing more",
                   "keyed": "safe to repeat with the same {key}", "unsafe": "not safe to repeat"}

    def retry_line(self, r: dict) -> str:
        """What a repeat of the request does (x-retry), linked to the Retries section."""
        kind = self.RETRY_KINDS[r["kind"]].format(key=f"`{r.get('key', '')}`")
        extra = []
        if r.get("differs"):
            extra.append("differs: " + ", ".join(f"`{f}`" for f in r["differs"]))
        if r.get("repeatError"):
            extra.append(f"repeat answers `{r['repeatError']}`")
        if r.get("repeatResult"):
            extra.append(f"repeat answers {code(r['repeatResult'])}")
        tail = f" ({'; '.join(extra)})" if extra else ""
        return f"**Retry** ({self.link('section', 'retries', kind)}){tail}: {r['note']}"

    EVERY_REQUEST = ("InvalidRequest", "InternalError", "ServerNotInitialized", "RequestCancelled")

    def errors_line(self, m: dict) -> str:
        """The method's own errors; those every request can get are named once, in the Errors table."""
        own = []
        for e in m["errors"]:
            key = e["$ref"].rsplit("/", 1)[-1]
            if key in self.EVERY_REQUEST:
                continue
            err = self.errors[key]
            own.append(f"{err['code']} `{key}`" + (" (a domain `data.code`)" if err["code"] == -32803 else ""))
        generic = f"the protocol errors of every request ({self.link('section', 'errors', 'Errors')})"
        return "**Errors**: " + (", ".join(own) + "; and " if own else "") + generic + "."

    def result(self, cd: dict) -> list[str]:
        s = cd["schema"]
        if s == {"not": {}}:
            return ["**Result**: none; the request always fails.", ""]
        line = f"**Result**: {self.type_of(s)}"
        r = self.resolve(s)
        if "$ref" in s and isinstance(r, dict) and r.get("properties"):
            line += f" `{self.keys(r)}`"
        text = self.describe(cd)
        out = [line + (f" — {text}" if text else ""), ""]
        if "$ref" not in s and isinstance(s, dict) and s.get("type") == "object" and s.get("properties"):
            out = [f"**Result**: object{(' — ' + text) if text else ''}", ""] + self.fields_table(s) + [""]
        return out

    def example(self, m: dict, ex: dict) -> list[str]:
        params = {p["name"]: p["value"] for p in ex.get("params", [])}
        msg: dict = {"jsonrpc": "2.0"}
        if "x-notification" not in m:
            msg["id"] = 1
        msg["method"] = m["name"]
        if params or m["params"]:
            msg["params"] = params
        lines = [f"**Example**: {ex['name']}" + (f" — {ex['description']}" if ex.get("description") else ""), "",
                 "```json", envelope(msg)]
        if "result" in ex:
            lines.append(envelope({"jsonrpc": "2.0", "id": 1, "result": ex["result"]["value"]}))
        elif "x-error" in ex:
            lines.append(envelope({"jsonrpc": "2.0", "id": 1, "error": ex["x-error"]}))
        return lines + ["```", ""]

    def types_section(self) -> list[str]:
        out: list[str] = []
        for name, s in self.schemas.items():
            out += [self.heading(4, f"`{name}`", f"type:{name}"), ""]
            if s.get("description"):
                out += [s["description"], ""]
            if s.get("type") == "object" and s.get("properties"):
                out += self.fields_table(s)
                if s.get("additionalProperties") is False:
                    out += ["", "No other fields."]
            else:
                out.append(f"Type: {self.type_of({k: v for k, v in s.items() if k != 'description'})}")
            out.append("")
        return out[:-1]

    # -- links and contents --------------------------------------------------------------------
    def finish(self, lines: list[str]) -> str:
        anchors: dict[str, str] = {}
        used: dict[str, int] = {}
        toc: list[str] = []
        pending = list(self.headings)
        fence = False
        for line in lines:
            if line.startswith("```"):
                fence = not fence
            if fence or not re.match(r"#{1,6} ", line):
                continue
            text = line.lstrip("#").strip()
            base = slug(text)
            n = used.get(base, 0)
            used[base] = n + 1
            anchor = base if n == 0 else f"{base}-{n}"
            if pending and pending[0][0] == line:
                anchors[pending.pop(0)[1]] = anchor
            if text.lower() in ("errors", "retries", "capabilities"):
                anchors.setdefault(f"section:{text.lower()}", anchor)
            level = len(line) - len(line.lstrip("#"))
            if level in (2, 3):
                toc.append("  " * (level - 2) + f"- [{text.replace('`', '')}](#{anchor})")
        body = "\n".join(lines)

        def sub(m: re.Match) -> str:
            key = f"{m.group(1)}:{m.group(2)}"
            if key not in anchors:
                raise ValueError(f"link to {key}, which has no heading on the page")
            return anchors[key]

        body = re.sub(r"@@link:(\w+):([^@]+)@@", sub, body)
        body = body.replace(self.TOC_PLACEHOLDER, "\n".join(toc))
        return body.rstrip("\n") + "\n"
