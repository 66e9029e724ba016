"""Message framing: the LSP base protocol (``Content-Length``) and newline-delimited JSON.

Both are sans-I/O: :func:`encode` turns one message into bytes, and a :class:`Decoder` is fed
whatever bytes arrived and hands back every complete message body, in order. Neither touches
a stream, so they can be tested and reused without asyncio.
"""
from __future__ import annotations

import json
import re
from typing import Any, Literal

Framing = Literal["lsp", "ndjson"]
FRAMINGS: tuple[Framing, ...] = ("lsp", "ndjson")

MAX_HEADER_BYTES = 8192
_HEADER_END = re.compile(rb"\r?\n\r?\n")


class FramingError(Exception):
    """The peer's bytes are not a valid frame (bad header, bad length, not JSON)."""


def dumps(message: Any) -> bytes:
    """Compact UTF-8 JSON; never contains a raw newline (JSON escapes them in strings)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def encode(message: Any, framing: Framing) -> bytes:
    """One message as bytes in ``framing``: ``Content-Length: N\\r\\n\\r\\n`` + body, or body + ``\\n``."""
    body = dumps(message)
    if framing == "lsp":
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    if framing == "ndjson":
        return body + b"\n"
    raise ValueError(f"unknown framing {framing!r}")


def parse_body(body: bytes) -> Any:
    """Decode one message body; raises :class:`FramingError` when it is not UTF-8 JSON."""
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FramingError(f"a frame that is not UTF-8 JSON ({exc}): {body[:200]!r}") from exc


class Decoder:
    """Splits a byte stream into message bodies.

    ``lsp``: a header block of ``Name: value`` lines ended by an empty line (``\\r\\n``, a bare
    ``\\n`` is accepted), names case-insensitive, ``Content-Length`` required, other headers
    ignored; then exactly that many bytes. ``ndjson``: one body per line (``\\r\\n`` accepted,
    blank lines skipped). A malformed header raises :class:`FramingError`; the decoder is then
    unusable, as the stream can no longer be trusted.
    """

    def __init__(self, framing: Framing):
        if framing not in FRAMINGS:
            raise ValueError(f"unknown framing {framing!r}")
        self.framing = framing
        self._buf = bytearray()
        self._need: int | None = None  # lsp: body length once the header block was read

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete message."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data``; return the bodies of every message it completed, oldest first."""
        self._buf += data
        return self._lsp() if self.framing == "lsp" else self._ndjson()

    def _ndjson(self) -> list[bytes]:
        out: list[bytes] = []
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                return out
            line = bytes(self._buf[:nl]).rstrip(b"\r")
            del self._buf[:nl + 1]
            if line.strip():
                out.append(line)

    def _lsp(self) -> list[bytes]:
        out: list[bytes] = []
        while True:
            if self._need is None:
                self._need = self._header()
                if self._need is None:
                    return out
            if len(self._buf) < self._need:
                return out
            out.append(bytes(self._buf[:self._need]))
            del self._buf[:self._need]
            self._need = None

    def _header(self) -> int | None:
        """Consume one complete header block and return its Content-Length (None: incomplete)."""
        found = _HEADER_END.search(self._buf, 0, MAX_HEADER_BYTES + 4)
        if found is None:
            if len(self._buf) > MAX_HEADER_BYTES:
                raise FramingError(f"no end of the header block within {MAX_HEADER_BYTES} bytes")
            return None
        end = found.start()
        block = bytes(self._buf[:end]).decode("latin-1")
        del self._buf[:found.end()]
        length: int | None = None
        for line in block.split("\n"):
            line = line.rstrip("\r")
            name, colon, value = line.partition(":")
            if not colon:
                raise FramingError(f"header line without a colon: {line!r}")
            if name.strip().lower() == "content-length":
                value = value.strip()
                if not value.isdigit():
                    raise FramingError(f"Content-Length is not a number: {value!r}")
                length = int(value)
        if length is None:
            raise FramingError(f"header block without Content-Length: {block!r}")
        return length
