"""The schema contract: every message the server sends is checked against schema/openrpc.json.

Responses with a result are validated against the result schema of the method that was
called (looked up by id), error responses against components.schemas.ErrorData and the
x-error-codes map, notifications against the params of the schema's server notification.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO / "schema" / "openrpc.json"
URI = "urn:workspace-bridge:openrpc"

ALWAYS_ERROR = {"not": {}}


class ContractViolation(AssertionError):
    pass


def _short(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


class Contract:
    def __init__(self, path: Path = SCHEMA_PATH):
        self.path = path
        self.doc = json.loads(path.read_text(encoding="utf-8"))
        self.registry = Registry().with_resource(URI, Resource.from_contents(self.doc, default_specification=DRAFT7))
        self.methods = {m["name"]: m for m in self.doc["methods"]}
        self.result_validators: dict[str, Draft7Validator] = {}
        self.params_validators: dict[str, Draft7Validator] = {}
        for i, m in enumerate(self.doc["methods"]):
            if "result" in m:
                self.result_validators[m["name"]] = self._validator(f"/methods/{i}/result/schema")
            self.params_validators[m["name"]] = Draft7Validator(self.params_schema(i), registry=self.registry)
        self.error_data = self._validator("/components/schemas/ErrorData")
        error_data_schema = self.doc["components"]["schemas"]["ErrorData"]
        self.code_map: dict[str, int] = error_data_schema["x-error-codes"]
        self.error_codes = {e["code"] for e in self.doc["components"]["errors"].values()}

    # -- schema helpers -------------------------------------------------
    def _validator(self, pointer: str) -> Draft7Validator:
        return Draft7Validator({"$ref": f"{URI}#{pointer}"}, registry=self.registry)

    def params_schema(self, index: int) -> dict:
        """The by-name params of method `index` as one object schema (unknown names refused)."""
        m = self.doc["methods"][index]
        props, required = {}, []
        for j, cd in enumerate(m["params"]):
            if "$ref" in cd:  # a reference to components/contentDescriptors
                raise NotImplementedError("content descriptor references are not used in this schema")
            props[cd["name"]] = {"$ref": f"{URI}#/methods/{index}/params/{j}/schema"}
            if cd.get("required"):
                required.append(cd["name"])
        return {"type": "object", "properties": props, "required": required, "additionalProperties": False}

    def notification_names(self, side: str) -> set[str]:
        return {n for n, m in self.methods.items() if m.get("x-notification") == side}

    def request_names(self, include_debug: bool = True) -> set[str]:
        return {n for n, m in self.methods.items()
                if "x-notification" not in m and (include_debug or not m.get("x-debug"))}

    @staticmethod
    def _errors(validator: Draft7Validator, instance: Any) -> list[str]:
        return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:300]}"
                for e in validator.iter_errors(instance)]

    # -- message checks -------------------------------------------------
    def check_server_message(self, msg: Any, methods_for_id) -> None:
        """Raise ContractViolation when `msg` disagrees with the schema.

        methods_for_id(id) -> list of method names the client sent with that id (may be empty).
        """
        if isinstance(msg, list):
            if not msg:
                raise ContractViolation("server sent an empty batch response array")
            for m in msg:
                if not isinstance(m, dict) or "method" in m:
                    raise ContractViolation(f"batch response holds a non-response: {_short(m)}")
                self._check_response(m, methods_for_id)
            return
        if not isinstance(msg, dict):
            raise ContractViolation(f"server sent a non-object message: {_short(msg)}")
        if "method" in msg:
            self._check_notification(msg)
        else:
            self._check_response(msg, methods_for_id)

    def _check_notification(self, msg: dict) -> None:
        extra = set(msg) - {"jsonrpc", "method", "params"}
        if msg.get("jsonrpc") != "2.0" or extra:
            raise ContractViolation(f"bad notification envelope (extra keys {sorted(extra)}): {_short(msg)}")
        if "id" in msg:
            raise ContractViolation(f"server sent a request, which the protocol never does: {_short(msg)}")
        name = msg["method"]
        m = self.methods.get(name)
        if m is None or m.get("x-notification") != "server":
            raise ContractViolation(f"server sent notification {name!r}, which the schema does not list as a server notification")
        problems = self._errors(self.params_validators[name], msg.get("params", {}))
        if problems:
            raise ContractViolation(f"params of {name} disagree with the schema: {problems}; message: {_short(msg)}")

    def _check_response(self, msg: dict, methods_for_id) -> None:
        keys = set(msg)
        if msg.get("jsonrpc") != "2.0" or "id" not in msg or len(keys & {"result", "error"}) != 1 \
                or keys - {"jsonrpc", "id", "result", "error"}:
            raise ContractViolation(f"bad response envelope: {_short(msg)}")
        rid = msg["id"]
        if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (int, str))):
            raise ContractViolation(f"response id must be an integer, a string or null: {_short(msg)}")
        if "error" in msg:
            self.check_error(msg["error"], msg)
            return
        methods = [m for m in methods_for_id(rid) if m in self.methods]
        if not methods:
            raise ContractViolation(f"result for id {rid!r}, which no request with a schema method used: {_short(msg)}")
        all_problems = []
        for name in methods:
            validator = self.result_validators.get(name)
            if validator is None:
                all_problems.append(f"{name} is a notification in the schema, yet it got a result")
                continue
            problems = self._errors(validator, msg["result"])
            if not problems:
                return
            all_problems.append(f"{name}: {problems}")
        raise ContractViolation(f"result disagrees with the schema: {all_problems}; response: {_short(msg)}")

    def check_error(self, error: Any, msg: Any = None) -> None:
        where = _short(msg if msg is not None else error)
        if not isinstance(error, dict) or set(error) - {"code", "message", "data"} \
                or not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str):
            raise ContractViolation(f"bad error object: {where}")
        if error["code"] not in self.error_codes:
            raise ContractViolation(f"error.code {error['code']} is not in components.errors: {where}")
        if "data" not in error:
            raise ContractViolation(f"error without data (every error carries data.code): {where}")
        problems = self._errors(self.error_data, error["data"])
        if problems:
            raise ContractViolation(f"error.data disagrees with ErrorData: {problems}; {where}")
        expected = self.code_map.get(error["data"]["code"])
        if expected != error["code"]:
            raise ContractViolation(
                f"data.code {error['data']['code']} belongs with error.code {expected}, got {error['code']}: {where}")

    def validate_params(self, method: str, params: Any) -> list[str]:
        return self._errors(self.params_validators[method], params)

    def validate_result(self, method: str, result: Any) -> list[str]:
        return self._errors(self.result_validators[method], result)

    def iter_schemas(self) -> Iterable[tuple[str, Any]]:
        """Every embedded JSON Schema with a readable location."""
        for name, s in self.doc.get("components", {}).get("schemas", {}).items():
            yield f"components.schemas.{name}", s
        for m in self.doc["methods"]:
            for cd in m["params"]:
                yield f"{m['name']}.params.{cd['name']}", cd["schema"]
            if "result" in m:
                yield f"{m['name']}.result", m["result"]["schema"]
