"""MCP `_meta` that is not an object is answered -32602 naming `_meta`, in both eras, and the
connection keeps serving."""
from __future__ import annotations

import pytest

from mcp_helpers import place, raw  # noqa: F401  (fixtures)


@pytest.mark.parametrize("meta", ["x", 7, [], True])
def test_meta_that_is_not_an_object_is_invalid_params_naming_meta(raw, meta):
    mcp = raw()
    mcp.initialize()
    for method, params in [("tools/list", {}), ("tools/call", {"name": "list_files", "arguments": {}}),
                           ("resources/list", {})]:
        r = mcp.call(method, {**params, "_meta": meta})
        assert r["error"]["code"] == -32602, (method, r)
        assert r["error"]["data"]["code"] == "InvalidParams" and r["error"]["data"]["field"] == "_meta", (method, r)
    # Before any handshake too (the modern era has none), and the server keeps serving.
    fresh = raw()
    r = fresh.call("tools/list", {"_meta": meta})
    assert r["error"]["code"] == -32602 and r["error"]["data"]["field"] == "_meta", r
    assert "tools" in mcp.result("tools/list", {})
    assert "tools" in mcp.result("tools/list", {"_meta": {}})
