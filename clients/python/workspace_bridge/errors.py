"""The exceptions the client raises."""
from __future__ import annotations

from typing import Any, Optional, cast

from .types import ErrorCode, ErrorData


class BridgeError(Exception):
    """The server answered a request with a JSON-RPC error.

    ``code`` is the JSON-RPC ``error.code`` (-32803 for domain failures such as a missing file),
    ``message`` the human text, ``data`` the whole ``error.data`` object, and ``data_code`` its
    ``code`` member: the stable, machine-readable reason (``"NotFound"``, ``"RequestCancelled"``,
    ...) that callers should switch on. ``method`` and ``request_id`` name the request.
    """

    def __init__(self, code: int, message: str, data: Optional[ErrorData] = None,
                 method: str = "", request_id: Any = None):
        super().__init__(f"{method or 'request'} failed: {code} {message}"
                         + (f" ({data.get('code')})" if isinstance(data, dict) else ""))
        self.code = code
        self.message = message
        self.data = data
        self.method = method
        self.request_id = request_id

    @property
    def data_code(self) -> Optional[ErrorCode]:
        """``error.data.code``, or None when the server sent no data object."""
        if isinstance(self.data, dict):
            return cast(Optional[ErrorCode], self.data.get("code"))
        return None

    @classmethod
    def from_response(cls, error: Any, method: str = "", request_id: Any = None) -> "BridgeError":
        """Build from a response's ``error`` member (tolerating a malformed one)."""
        if not isinstance(error, dict):
            return cls(-32603, f"malformed error object: {error!r}", None, method, request_id)
        code = error.get("code")
        message = error.get("message")
        data = error.get("data")
        return cls(code if isinstance(code, int) else -32603,
                   message if isinstance(message, str) else repr(message),
                   cast(ErrorData, data) if isinstance(data, dict) else None,
                   method, request_id)


class ConnectionClosed(Exception):
    """The connection ended (the server exited or closed its output, or the client was closed)
    before the answer arrived."""


class ProtocolError(Exception):
    """The server sent bytes the client cannot decode; the connection is closed."""
