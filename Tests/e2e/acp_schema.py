"""Validation of ACP messages against the vendored ACP v1 schema (schema/vendor/acp/schema.json).

`Conformance` watches one JSON-RPC stream between two sides (editor = "client", agent =
"agent"); `check(sender, message)` validates the envelope and, per method, the params of each
request and notification and the result (or error) of each response, matching answers to the
requests they answer. Extension methods (`_…`) need object params; their results any object.
"""
import json
from pathlib import Path

from jsonschema import Draft202012Validator

VENDOR = Path(__file__).resolve().parents[2] / "schema/vendor/acp"
SCHEMA = json.loads((VENDOR / "schema.json").read_text())
DEFS = SCHEMA["$defs"]
# The unstable schema of the same release: only for what the stable one does not define
# (session/fork, which the face serves).
UNSTABLE_DEFS = json.loads((VENDOR / "schema.unstable.json").read_text())["$defs"]
_validators = {}


def _validator(name):
    if name not in _validators:
        defs = DEFS if name in DEFS else UNSTABLE_DEFS
        _validators[name] = Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": defs})
    return _validators[name]


def _def_for(method, side, suffixes):
    for defs in (DEFS, UNSTABLE_DEFS):
        for name, d in defs.items():
            if d.get("x-method") == method and d.get("x-side") == side and name.endswith(suffixes):
                return name
    return None


def validate_def(name, value, context):
    errors = sorted(_validator(name).iter_errors(value), key=lambda e: list(e.path))
    assert not errors, f"{context}: not a valid {name}: {errors[0].message} at {list(errors[0].path)}\n{json.dumps(value)[:2000]}"


class Conformance:
    """One stream; `sender` is "client" (the editor side) or "agent"."""

    def __init__(self):
        self.pending = {"client": {}, "agent": {}}  # requests each side sent: id -> method
        self.checked = 0

    def check(self, sender, message):
        other = "agent" if sender == "client" else "client"
        ctx = f"{sender} -> {other}: {json.dumps(message)[:300]}"
        assert message.get("jsonrpc") == "2.0", ctx
        whole = {"client": "Client", "agent": "Agent"}[sender]
        method = message.get("method")
        if method is not None:
            assert isinstance(method, str), ctx
            params = message.get("params")
            if "id" in message:
                validate_def("RequestId", message["id"], ctx)
                self.pending[sender][json.dumps(message["id"])] = method
            if method.startswith("_"):
                assert params is None or isinstance(params, dict), ctx
            elif method == "$/cancel_request":
                validate_def("CancelRequestNotification", params, ctx)
            else:
                # A request or notification is handled by the other side: its x-side.
                name = _def_for(method, other, ("Request", "Notification"))
                assert name, f"{ctx}: {method} is not an ACP v1 method a {sender} may send"
                validate_def(name, params, ctx)
        else:
            assert "result" in message or "error" in message, ctx
            key = json.dumps(message.get("id"))
            asked = self.pending[other].pop(key, None)
            assert asked is not None, f"{ctx}: answers no request the {other} made"
            if "error" in message:
                validate_def("Error", message["error"], ctx)
            elif not asked.startswith("_"):
                name = _def_for(asked, sender, ("Response",))
                assert name, f"{ctx}: no response type for {asked}"
                result = message["result"]
                # The SDKs send null for the empty responses the schema types as objects.
                if result is not None:
                    validate_def(name, result, ctx)
        # The envelope, as the schema's top level describes a message of this side.
        title = "ProtocolLevel" if method == "$/cancel_request" else whole
        branch = next(b for b in SCHEMA["anyOf"] if b["title"] == title)
        Draft202012Validator({**branch, "$defs": DEFS}).validate(message)
        self.checked += 1
