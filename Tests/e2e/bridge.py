"""A small harness that drives the real workspace-bridge binary over pipes.

Every read has a deadline (select on the pipe); a timeout raises an AssertionError that says
what did arrive. Every message the server sends is decoded strictly (the framing must be the
one the client used, the JSON must be valid UTF-8 without duplicate keys) and checked against
schema/openrpc.json by contract.Contract.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from contract import Contract, ContractViolation

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BIN = REPO / ".build" / "debug" / "workspace-bridge"
DEFAULT_TIMEOUT = 5.0
F_SETPIPE_SZ = 1031


def server_binary() -> Path:
    return Path(os.environ.get("WB_BIN") or DEFAULT_BIN)


# -- encoding ---------------------------------------------------------------

def dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def jansson_compact(value) -> bytes:
    """The bytes jansson's compact dump writes for a value: Python's compact dump, whose escapes
    are jansson's but for the hex digits of `\\u00XX` (jansson writes them upper-case)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return re.sub(r"\\u00[0-9a-f]{2}", lambda m: "\\u00" + m.group(0)[4:].upper(), text).encode("utf-8")


def lsp_frame(body: bytes, headers: Iterable[str] | None = None) -> bytes:
    """An LSP frame; `headers` replaces the default header lines (use {n} for the body length)."""
    if headers is None:
        headers = ["Content-Length: {n}"]
    head = "".join(h.format(n=len(body)) + "\r\n" for h in headers) + "\r\n"
    return head.encode("latin-1") + body


def ndjson_frame(body: bytes) -> bytes:
    assert b"\n" not in body
    return body + b"\n"


def frame(body: bytes, framing: str) -> bytes:
    return lsp_frame(body) if framing == "lsp" else ndjson_frame(body)


def request(method: str, params: Any = None, id: Any = 1) -> dict:
    msg = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: Any = None) -> dict:
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def id_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _strict_object(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError(f"duplicate key {k!r}")
        obj[k] = v
    return obj


def _no_constant(name):
    raise ValueError(f"non-JSON constant {name}")


def parse_json(body: bytes) -> Any:
    return json.loads(body.decode("utf-8"), object_pairs_hook=_strict_object, parse_constant=_no_constant)


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


@dataclass
class Entry:
    t: float                 # time.monotonic() at arrival
    msg: Any                 # decoded JSON
    raw: bytes               # the whole frame as written by the server
    framing: str             # "lsp" or "ndjson"
    seq: int = 0


class Bridge:
    """One server process."""

    _LSP_HEADER = re.compile(rb"Content-Length: (\d+)\r\n\r\n")

    def __init__(self, argv: list[str], framing: str | None, contract: Contract, stderr_path: Path,
                 binary: Path | None = None, env: dict | None = None):
        self.binary = Path(binary or server_binary())
        self.argv = [str(self.binary), *argv]
        self.framing = framing          # the client's framing (and so the one replies must use)
        self.contract = contract
        self.stderr_path = stderr_path
        self._stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, bufsize=0, env=env)
        self.in_fd = self.proc.stdin.fileno()
        self.out_fd = self.proc.stdout.fileno()
        os.set_blocking(self.in_fd, False)
        for fd in (self.in_fd, self.out_fd):
            try:
                fcntl.fcntl(fd, F_SETPIPE_SZ, 1 << 20)
            except OSError:
                pass
        self.started = time.monotonic()
        self.buf = bytearray()
        self.raw_out = bytearray()      # every byte the server wrote on stdout
        self._scan = 0
        self.eof = False
        self.stdin_closed = False
        self.log: list[Entry] = []      # every message, in arrival order
        self.inbox: list[Entry] = []    # not yet consumed by the test
        self.sent_ids: dict[str, list[str]] = {}
        self.violation: AssertionError | None = None
        self._next_id = 1000

    # -- diagnostics -------------------------------------------------------
    def stderr_text(self) -> str:
        self._stderr.flush()
        try:
            return self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def describe(self) -> str:
        lines = [f"server: {' '.join(self.argv)} (client framing {self.framing})",
                 f"exit status: {self.proc.poll()}"]
        lines.append(f"messages received ({len(self.log)}, oldest first; * = not consumed by the test):")
        inbox = {id(e) for e in self.inbox}
        for e in self.log[-15:]:
            lines.append(f"  {'*' if id(e) in inbox else ' '} +{e.t - self.started:7.3f}s {e.framing}: {_short(e.msg)}")
        if self.buf:
            lines.append(f"undecoded stdout bytes ({len(self.buf)}): {bytes(self.buf[:300])!r}")
        err = self.stderr_text()
        if err:
            lines.append("stderr (tail):\n" + err[-1500:])
        return "\n".join(lines)

    def _fail(self, message: str) -> None:
        raise AssertionError(f"{message}\n{self.describe()}")

    # -- writing -----------------------------------------------------------
    def write(self, data: bytes, timeout: float = 60.0) -> None:
        """Write raw bytes to stdin, draining stdout meanwhile so neither side can block."""
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        while view:
            if time.monotonic() > deadline:
                self._fail(f"could not write {len(view)} remaining bytes within {timeout}s")
            writable = self._pump(deadline, want_write=True)
            if writable:
                try:
                    n = os.write(self.in_fd, view[:1 << 20])
                except BlockingIOError:
                    continue
                except BrokenPipeError:
                    self._fail(f"stdin closed by the server with {len(view)} bytes unwritten")
                view = view[n:]

    def write_slowly(self, data: bytes, chunk: int = 1, pause: float = 0.0005) -> None:
        for i in range(0, len(data), chunk):
            self.write(data[i:i + chunk])
            time.sleep(pause)

    def close_stdin(self) -> None:
        if not self.stdin_closed:
            self.stdin_closed = True
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass

    def track(self, msg_id: Any, method: str) -> None:
        self.sent_ids.setdefault(id_key(msg_id), []).append(method)

    def _track_message(self, msg: Any) -> None:
        if isinstance(msg, list):
            for m in msg:
                self._track_message(m)
        elif isinstance(msg, dict) and "id" in msg and isinstance(msg.get("method"), str):
            self.track(msg["id"], msg["method"])

    def body(self, body: bytes, framing: str | None = None) -> None:
        """Frame `body` (bytes) in the client's framing and send it; ids in it are tracked."""
        try:
            self._track_message(json.loads(body))
        except (ValueError, UnicodeDecodeError, RecursionError):
            pass
        self.write(frame(body, framing or self.framing))

    def send(self, msg: Any, framing: str | None = None) -> None:
        self._track_message(msg)
        self.write(frame(dumps(msg), framing or self.framing))

    def send_many(self, msgs: list[Any], framing: str | None = None) -> None:
        """Send several messages back to back in one write, as a pipelining client does."""
        for m in msgs:
            self._track_message(m)
        self.write(b"".join(frame(dumps(m), framing or self.framing) for m in msgs))

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params: Any = None, id: Any = None) -> Any:
        if id is None:
            id = self.new_id()
        self.send(request(method, params, id))
        return id

    def notify(self, method: str, params: Any = None) -> None:
        self.send(notification(method, params))

    # -- reading -----------------------------------------------------------
    def _pump(self, deadline: float, want_write: bool = False) -> bool:
        """Wait until stdout is readable (or stdin writable) or the deadline; read what is there."""
        rlist = [] if self.eof else [self.out_fd]
        wlist = [self.in_fd] if want_write and not self.stdin_closed else []
        if not rlist and not wlist:
            time.sleep(max(0.0, min(0.01, deadline - time.monotonic())))
            return False
        timeout = max(0.0, deadline - time.monotonic())
        r, w, _ = select.select(rlist, wlist, [], timeout)
        if r:
            try:
                chunk = os.read(self.out_fd, 1 << 20)
            except BlockingIOError:
                chunk = None
            if chunk == b"":
                self.eof = True
            elif chunk:
                self.raw_out += chunk
                self.buf += chunk
                self._decode()
        return bool(w)

    def _decode(self) -> None:
        while self.buf:
            first = self.buf[:1]
            if first == b"C":
                fr = "lsp"
                if len(self.buf) < 16:
                    if not b"Content-Length: ".startswith(bytes(self.buf)):
                        self._violation("stdout does not start with a valid LSP header")
                    return
                m = self._LSP_HEADER.match(self.buf)
                if not m:
                    if b"\r\n\r\n" in self.buf[:64] or len(self.buf) > 64 or \
                            not bytes(self.buf).startswith(b"Content-Length: "):
                        self._violation("LSP header on stdout is not exactly 'Content-Length: N\\r\\n\\r\\n'")
                    return
                end = m.end() + int(m.group(1))
                if len(self.buf) < end:
                    return
                raw = bytes(self.buf[:end])
                body = raw[m.end():]
                del self.buf[:end]
                self._scan = 0
            elif first in (b"{", b"["):
                fr = "ndjson"
                nl = self.buf.find(b"\n", self._scan)
                if nl < 0:
                    self._scan = len(self.buf)
                    return
                raw = bytes(self.buf[:nl + 1])
                body = raw[:-1]
                del self.buf[:nl + 1]
                self._scan = 0
                if body.endswith(b"\r"):
                    self._violation("ndjson line on stdout ends in \\r\\n (the server writes \\n)", raw)
            else:
                self._violation("stdout holds bytes that are neither an LSP frame nor an ndjson line")
                return
            if self.framing is not None and fr != self.framing:
                self._violation(f"server replied in {fr} framing to a {self.framing} client", raw)
            try:
                msg = parse_json(body)
            except (ValueError, UnicodeDecodeError) as exc:
                self._violation(f"server wrote a frame that is not valid JSON/UTF-8 ({exc})", raw)
            entry = Entry(time.monotonic(), msg, raw, fr, len(self.log))
            self.log.append(entry)
            self.inbox.append(entry)
            try:
                self.contract.check_server_message(msg, lambda i: self.sent_ids.get(id_key(i), []))
            except ContractViolation as exc:
                self._violation(f"schema contract: {exc}")

    def _violation(self, what: str, raw: bytes | None = None) -> None:
        sample = raw if raw is not None else bytes(self.buf[:300])
        err = AssertionError(f"{what}\nbytes: {sample[:300]!r}\n{self.describe()}")
        if self.violation is None:
            self.violation = err
        raise err

    def pump_until(self, pred: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            if self.violation is not None:
                raise self.violation
            value = pred()
            if value:
                return value
            if time.monotonic() >= deadline:
                self._fail(f"timed out after {timeout}s waiting for {what}")
            if self.eof and not self.buf:
                value = pred()
                if value:
                    return value
                self._fail(f"stdout closed while waiting for {what}")
            self._pump(deadline)

    def take(self, pred: Callable[[Any], bool], timeout: float = DEFAULT_TIMEOUT, what: str = "a message") -> Any:
        """Remove and return the first unconsumed message matching pred."""
        def find():
            for i, e in enumerate(self.inbox):
                if pred(e.msg):
                    return self.inbox.pop(i)
            return None
        return self.pump_until(find, timeout, what).msg

    def take_entry(self, pred: Callable[[Any], bool], timeout: float = DEFAULT_TIMEOUT, what: str = "a message") -> Entry:
        def find():
            for i, e in enumerate(self.inbox):
                if pred(e.msg):
                    return self.inbox.pop(i)
            return None
        return self.pump_until(find, timeout, what)

    def recv(self, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """The next unconsumed message, whatever it is."""
        return self.take(lambda m: True, timeout, "any message")

    def response(self, msg_id: Any, timeout: float = DEFAULT_TIMEOUT) -> dict:
        key = id_key(msg_id)
        return self.take(lambda m: isinstance(m, dict) and "method" not in m and "id" in m and id_key(m["id"]) == key,
                         timeout, f"the response to id {msg_id!r}")

    def response_entry(self, msg_id: Any, timeout: float = DEFAULT_TIMEOUT) -> Entry:
        key = id_key(msg_id)
        return self.take_entry(lambda m: isinstance(m, dict) and "method" not in m and "id" in m
                               and id_key(m["id"]) == key, timeout, f"the response to id {msg_id!r}")

    def error_response(self, timeout: float = DEFAULT_TIMEOUT, id: Any = None) -> dict:
        """The next error response with the given id (null by default)."""
        key = id_key(id)
        return self.take(lambda m: isinstance(m, dict) and "error" in m and id_key(m.get("id")) == key,
                         timeout, f"an error response with id {id!r}")

    def notifications(self, method: str | None = None) -> list[dict]:
        """Remove and return the unconsumed notifications (of one method) received so far."""
        out, keep = [], []
        for e in self.inbox:
            if isinstance(e.msg, dict) and "method" in e.msg and (method is None or e.msg["method"] == method):
                out.append(e.msg)
            else:
                keep.append(e)
        self.inbox = keep
        return out

    def settle(self, duration: float) -> list[Any]:
        """Read for `duration` seconds; return the messages that arrived (left in the inbox)."""
        before = len(self.log)
        deadline = time.monotonic() + duration
        while time.monotonic() < deadline:
            if self.violation is not None:
                raise self.violation
            self._pump(deadline)
        return [e.msg for e in self.log[before:]]

    def assert_silent(self, duration: float = 0.3, ignore: Callable[[Any], bool] | None = None) -> None:
        self.settle(duration)
        left = [e.msg for e in self.inbox if not (ignore and ignore(e.msg))]
        if left:
            self._fail(f"expected no further messages, got {len(left)}: {_short(left, 600)}")

    def call(self, method: str, params: Any = None, timeout: float = DEFAULT_TIMEOUT, id: Any = None) -> dict:
        return self.response(self.request(method, params, id=id), timeout)

    def result(self, method: str, params: Any = None, timeout: float = DEFAULT_TIMEOUT) -> Any:
        r = self.call(method, params, timeout)
        if "error" in r:
            self._fail(f"{method} failed: {_short(r)}")
        return r["result"]

    def error(self, method: str, params: Any = None, timeout: float = DEFAULT_TIMEOUT, id: Any = None) -> dict:
        r = self.call(method, params, timeout, id=id)
        if "error" not in r:
            self._fail(f"{method} was expected to fail: {_short(r)}")
        return r["error"]

    def initialize(self, timeout: float = 10.0, initialized: bool = True, **params) -> dict:
        params.setdefault("clientInfo", {"name": "e2e-tests", "version": "1"})
        result = self.result("initialize", params, timeout)
        if initialized:
            self.notify("initialized", {})
        return result

    # -- process -----------------------------------------------------------
    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Wait for the process to exit (draining stdout); return its status."""
        deadline = time.monotonic() + timeout
        while True:
            rc = self.proc.poll()
            if rc is not None:
                end = time.monotonic() + 2.0
                while not self.eof and time.monotonic() < end:
                    self._pump(end)
                if self.violation is not None:
                    raise self.violation
                return rc
            if time.monotonic() >= deadline:
                self._fail(f"process still running {timeout}s later")
            self._pump(min(deadline, time.monotonic() + 0.02))

    def read_to_eof(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.pump_until(lambda: self.eof, timeout, "end of stdout")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self._stderr.close()


def run_cli(args: list[str], timeout: float = 10.0) -> subprocess.CompletedProcess:
    return subprocess.run([str(server_binary()), *args], stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=timeout)
